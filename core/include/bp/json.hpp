// The one JSON writer of the project: the tools' and the service's output, the record, the
// logs (the project reads JSON only in tests and in `bp verify --batch`, through nlohmann).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace bp {

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(std::string_view s);

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

// One JSON object, field by field in the order given:
//   JsonObject().text("status", "open").number("parties", 4).str()  ->  {"status":"open","parties":4}
class JsonObject {
 public:
  JsonObject& text(std::string_view key, std::string_view value);
  JsonObject& hex(std::string_view key, std::span<const uint8_t> bytes);  // a lowercase hex string
  JsonObject& number(std::string_view key, uint64_t value);
  JsonObject& number(std::string_view key, double value, int decimals);
  JsonObject& boolean(std::string_view key, bool value);
  JsonObject& json(std::string_view key, std::string_view json);  // a value that is JSON already
  template <class Range>
  JsonObject& numbers(std::string_view key, const Range& values) {
    return json(key, "[" + comma_separated(values) + "]");
  }
  // An array of hex strings, one per item: `bytes_of(item)` gives its bytes.
  template <class Range, class BytesOf>
  JsonObject& hex_strings(std::string_view key, const Range& items, BytesOf&& bytes_of) {
    return json(key, "[" + comma_separated(items, [&](const auto& item) { return hex_literal(bytes_of(item)); }) + "]");
  }
  // Every field of `other`, here (the record's outcome inside a log line, a result with more fields).
  JsonObject& merge(const JsonObject& other);
  std::string str() const { return body_ + "}"; }

 private:
  static std::string hex_literal(std::span<const uint8_t> bytes);
  JsonObject& key(std::string_view key);
  std::string body_ = "{";
};

}  // namespace bp
