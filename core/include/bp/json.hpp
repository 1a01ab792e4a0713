// JSON text helpers for the tools' and the service's output (the project reads JSON only in tests).
#pragma once

#include <string>
#include <utility>

namespace bp {

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& s);

// Each item's text, comma separated: the inside of a JSON array, a blame list. (Appending
// piece by piece also keeps g++ 12's -O3 from a false -Wrestrict on "," + std::string.)
template <class Range, class Text>
std::string comma_separated(const Range& items, Text&& text) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ',';
    first = false;
    out += text(item);
  }
  return out;
}

// Numbers, comma separated.
template <class Range>
std::string comma_separated(const Range& numbers) {
  return comma_separated(numbers, [](const auto& n) { return std::to_string(n); });
}

}  // namespace bp
