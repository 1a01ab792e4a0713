// The dealer's log lines: a fixed message and named fields, written as text (the default,
// for a terminal) or as one JSON object per line (--log-format json, for Loki, ELK or
// journald), so a field is a key to filter on rather than a word to grep for:
//   log::warn("party misbehaved", {{"session", id}, {"position", 3}, {"reason", why}});
//   text: 2026-12-01T17:45:25.123 warning session=ab12 position=3 party misbehaved reason="bad share"
//   json: {"time":"2026-12-01T17:45:25.123Z","level":"warn","message":"party misbehaved","session":"ab12",...}
// Every line of the dealer goes through here; nothing calls spdlog directly.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bp::server::log {

enum class Format { Text, Json };

// The sink (stderr), the format and the lowest level written ("info", "debug", ...).
void configure(Format format, const std::string& level);
// The level alone, while the dealer runs (SIGHUP); safe from any thread.
void set_level(const std::string& level);
std::optional<Format> format_from_name(std::string_view name);  // "text" or "json"

// One field: its value as JSON and as it reads in a text line.
struct Field {
  Field(std::string_view key, std::string_view value);
  Field(std::string_view key, const char* value) : Field(key, std::string_view(value)) {}
  Field(std::string_view key, const std::string& value) : Field(key, std::string_view(value)) {}
  template <std::integral Number>
  Field(std::string_view key, Number value) : key(key), json(std::to_string(value)), text(json) {}
  Field(std::string_view key, const std::vector<size_t>& positions);  // a JSON array; "1,3" in text

  std::string_view key;
  std::string json;
  std::string text;
};

using Fields = std::initializer_list<Field>;

void debug(std::string_view message, Fields fields = {});
void info(std::string_view message, Fields fields = {});
void warn(std::string_view message, Fields fields = {});
void error(std::string_view message, Fields fields = {});

// The lines as written (the text one after spdlog's time and level), apart for tests.
std::string text_line(std::string_view message, Fields fields);
std::string json_line(std::string_view time, std::string_view level, std::string_view message, Fields fields);

}  // namespace bp::server::log
