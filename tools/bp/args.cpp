#include "args.hpp"

#include "bp/hex.hpp"
#include "bp/random.hpp"

#include <cerrno>
#include <cstdlib>

namespace bp::cli {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& valued,
           const std::set<std::string>& switches) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    const std::string name = arg.substr(2);
    if (switches.count(name)) {
      switches_.insert(name);
    } else if (valued.count(name)) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      values_[name] = argv[++i];
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
}

std::string Args::required(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) throw UsageError("missing --" + flag);
  return it->second;
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

uint64_t parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + " '" + s + "' is not an unsigned 64-bit integer");
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE) throw UsageError(what + " '" + s + "' does not fit in 64 bits");
  return v;
}

size_t parse_bits(const Args& args) {
  const uint64_t n = parse_u64(args.required("bits"), "--bits");
  if (n != 8 && n != 16 && n != 32 && n != 64) throw UsageError("--bits must be 8, 16, 32 or 64");
  return n;
}

std::vector<uint8_t> parse_hex(const std::string& h, const std::string& what, size_t expected_len) {
  auto bytes = from_hex(h);
  if (!bytes) throw UsageError(what + " is not hexadecimal");
  if (expected_len != 0 && bytes->size() != expected_len)
    throw UsageError(what + " must be " + std::to_string(expected_len) + " bytes");
  return *bytes;
}

std::vector<Scalar> blindings_of(const Args& args, size_t count) {
  std::vector<Scalar> blindings;
  if (!args.has("blindings")) {
    SystemRandom rng;
    for (size_t j = 0; j < count; ++j) blindings.push_back(Scalar::random(rng));
    return blindings;
  }
  for (const auto& h : split_commas(args.required("blindings"))) {
    const auto bytes = parse_hex(h, "blinding", 32);
    const auto s = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(bytes.data(), 32));
    if (!s) throw UsageError("blinding " + h + " is not a canonical scalar");
    blindings.push_back(*s);
  }
  if (blindings.size() != count) throw UsageError("--blindings must have one entry per value");
  return blindings;
}

}  // namespace bp::cli
