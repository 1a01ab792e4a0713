#include "bp/version.hpp"

namespace bp {

namespace detail {
extern const char* const kBuildCommit;  // build_commit.cpp, written at build time
}

std::string_view release_version() { return BP_RELEASE_VERSION; }
std::string_view build_commit() { return detail::kBuildCommit; }

}  // namespace bp
