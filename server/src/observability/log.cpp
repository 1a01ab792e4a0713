#include "observability/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <ctime>

#include "bp/json.hpp"

namespace bp::server::log {
namespace {

std::atomic<Format> g_format{Format::Text};

// Log values come from the dealer's own text and addresses, but a reason may quote what a
// peer sent: anything outside printable ASCII is escaped, so every line stays valid UTF-8.
std::string printable(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const unsigned char c : value) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A text value reads bare when it is one word, quoted otherwise.
std::string text_value(const std::string& value) {
  if (!value.empty() && value.find_first_of(" \"=") == std::string::npos) return value;
  return json_string(value);
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(millis));
  return buf;
}

// The fields that say where a line belongs lead a text line; the rest follow the message.
bool leads(std::string_view key) { return key == "session" || key == "position"; }

void write(spdlog::level::level_enum level, std::string_view name, std::string_view message, Fields fields) {
  if (!spdlog::should_log(level)) return;
  if (g_format.load() == Format::Json)
    spdlog::log(level, "{}", json_line(utc_now(), name, message, fields));
  else
    spdlog::log(level, "{}", text_line(message, fields));
}

}  // namespace

Field::Field(std::string_view key, std::string_view value)
    : key(key), json(json_string(printable(value))), text(text_value(printable(value))) {}

Field::Field(std::string_view key, const std::vector<size_t>& positions)
    : key(key), json("[" + comma_separated(positions) + "]"), text(comma_separated(positions)) {}

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  return std::nullopt;
}

void set_level(const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); }

void configure(Format format, const std::string& level) {
  g_format = format;
  // JSON lines carry their own time and level, and no colour codes.
  auto logger = format == Format::Json ? spdlog::stderr_logger_mt("bp-dealer") : spdlog::stderr_color_mt("bp-dealer");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern(format == Format::Json ? "%v" : "%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
}

std::string text_line(std::string_view message, Fields fields) {
  std::string out;
  for (const Field& f : fields)
    if (leads(f.key)) out.append(f.key).append("=").append(f.text).append(" ");
  out.append(message);
  for (const Field& f : fields)
    if (!leads(f.key)) out.append(" ").append(f.key).append("=").append(f.text);
  return out;
}

std::string json_line(std::string_view time, std::string_view level, std::string_view message, Fields fields) {
  JsonObject line;
  line.text("time", time).text("level", level).text("message", printable(message));
  for (const Field& f : fields) line.json(f.key, f.json);
  return line.str();
}

void debug(std::string_view message, Fields fields) { write(spdlog::level::debug, "debug", message, fields); }
void info(std::string_view message, Fields fields) { write(spdlog::level::info, "info", message, fields); }
void warn(std::string_view message, Fields fields) { write(spdlog::level::warn, "warn", message, fields); }
void error(std::string_view message, Fields fields) { write(spdlog::level::err, "error", message, fields); }

}  // namespace bp::server::log
