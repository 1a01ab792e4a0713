// A small flag parser for the bp command: `--name value` pairs and bare `--switch`es.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bp/scalar.hpp"

namespace bp::cli {

// The transcript label when a command is given no --label.
inline constexpr const char* kDefaultLabel = "bp";

// Thrown for any bad command line; main prints what() as the one-line error.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `valued` lists the flags that take a value, `switches` those that do not; anything else is an error.
  Args(int argc, char** argv, int first, const std::set<std::string>& valued, const std::set<std::string>& switches);

  bool has(const std::string& flag) const { return values_.count(flag) != 0 || switches_.count(flag) != 0; }
  std::string required(const std::string& flag) const;
  std::string get(const std::string& flag, const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
};

std::vector<std::string> split_commas(const std::string& s);
uint64_t parse_u64(const std::string& s, const std::string& what);
// --bits, which must be 8, 16, 32 or 64.
size_t parse_bits(const Args& args);
// Hex bytes (of expected_len, when not 0); the error names `what`.
std::vector<uint8_t> parse_hex(const std::string& h, const std::string& what, size_t expected_len = 0);
// --blindings h1,h2,... (canonical scalars, one per value), or `count` random ones.
std::vector<Scalar> blindings_of(const Args& args, size_t count);

}  // namespace bp::cli
