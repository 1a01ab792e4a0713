// The operator port's bearer token (--metrics-token-file), read once at start.
#pragma once

#include <string>

namespace bp::server {

// The token in `path`: one line of at least 16 characters, in a file only its owner may read
// (like the key files). Throws std::runtime_error saying what is wrong: the dealer does not
// start on anything else.
std::string read_token_file(const std::string& path);

}  // namespace bp::server
