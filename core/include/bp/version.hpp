// What this build is, for a program's --version, the dealer's /v1/version and its first log
// line: the release, the git commit it was built from, and the backend this CPU selected.
#pragma once

#include <string>
#include <string_view>

namespace bp {

std::string_view release_version();  // the project's version, e.g. "0.1.0"
std::string_view build_commit();     // 12 hex digits ("-modified": a tree that differs), or "unknown"

}  // namespace bp
