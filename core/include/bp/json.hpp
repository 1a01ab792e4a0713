// JSON text helpers for the tools' and the service's output (the project reads JSON only in tests).
#pragma once

#include <string>

namespace bp {

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& s);

}  // namespace bp
