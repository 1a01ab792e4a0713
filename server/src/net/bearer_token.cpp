#include "net/bearer_token.hpp"

#include <sys/stat.h>

#include <fstream>
#include <stdexcept>

namespace bp::server {

std::string read_token_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot read --metrics-token-file " + path);
  if ((st.st_mode & 077) != 0)
    throw std::runtime_error("--metrics-token-file " + path + " is readable by others (chmod 600 it)");
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < 16)
    throw std::runtime_error("--metrics-token-file " + path + " holds no token of 16 characters or more");
  return token;
}

}  // namespace bp::server
