#include "bp/json.hpp"

#include <cstdio>

#include "bp/hex.hpp"

namespace bp {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string JsonObject::hex_literal(std::span<const uint8_t> bytes) {
  std::string out = "\"";  // appended piece by piece: g++ 12 -O3 warns falsely (-Wrestrict) on "\"" + std::string
  out += to_hex(bytes);
  out += '"';
  return out;
}

JsonObject& JsonObject::key(std::string_view k) {
  if (body_.size() > 1) body_ += ',';
  body_ += json_string(k);
  body_ += ':';
  return *this;
}

JsonObject& JsonObject::text(std::string_view k, std::string_view value) {
  key(k).body_ += json_string(value);
  return *this;
}

JsonObject& JsonObject::hex(std::string_view k, std::span<const uint8_t> bytes) {
  key(k).body_ += hex_literal(bytes);
  return *this;
}

JsonObject& JsonObject::number(std::string_view k, uint64_t value) {
  key(k).body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::number(std::string_view k, double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  key(k).body_ += buf;
  return *this;
}

JsonObject& JsonObject::boolean(std::string_view k, bool value) {
  key(k).body_ += value ? "true" : "false";
  return *this;
}

JsonObject& JsonObject::json(std::string_view k, std::string_view json) {
  key(k).body_ += json;
  return *this;
}

JsonObject& JsonObject::merge(const JsonObject& other) {
  if (other.body_.size() <= 1) return *this;
  if (body_.size() > 1) body_ += ',';
  body_.append(other.body_, 1);
  return *this;
}

}  // namespace bp
