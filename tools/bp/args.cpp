#include "args.hpp"

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

}  // namespace bp::cli
