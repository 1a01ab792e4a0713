// The dealer's log lines: text keeps a line readable, JSON keeps every line one valid object
// whatever a value holds (a reason may quote what a peer sent).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "observability/log.hpp"

using namespace bp::server;

TEST_CASE("a text line leads with session and position, then the message, then the other fields") {
  const std::string line =
      log::text_line("party joined", {{"remote", "127.0.0.1"}, {"session", "ab12"}, {"position", 3}});
  CHECK(line == "session=ab12 position=3 party joined remote=127.0.0.1");
  CHECK(log::text_line("aborted", {{"reason", "a point does not decode"}, {"blamed", std::vector<size_t>{1, 3}}}) ==
        "aborted reason=\"a point does not decode\" blamed=1,3");
}

TEST_CASE("a JSON line is one object with time, level, message and each field as its own key") {
  const std::string hostile = std::string("quote\" backslash\\ newline\n nul") + '\0' + " high\xff\xfe";
  const std::string line = log::json_line(
      "2026-12-01T17:45:25.123Z", "warn", "session aborted",
      {{"session", "ab12"}, {"position", size_t{2}}, {"reason", hostile}, {"blamed", std::vector<size_t>{2}}});
  CHECK(line.find('\n') == std::string::npos);
  const auto object = nlohmann::json::parse(line);  // throws on invalid JSON or UTF-8
  CHECK(object["time"] == "2026-12-01T17:45:25.123Z");
  CHECK(object["level"] == "warn");
  CHECK(object["message"] == "session aborted");
  CHECK(object["session"] == "ab12");
  CHECK(object["position"] == 2);
  CHECK(object["blamed"] == nlohmann::json::array({2}));
  CHECK(object["reason"].get<std::string>().find("newline\\x0a nul\\x00 high\\xff\\xfe") != std::string::npos);
}

TEST_CASE("the format's names") {
  CHECK(log::format_from_name("text") == log::Format::Text);
  CHECK(log::format_from_name("json") == log::Format::Json);
  CHECK_FALSE(log::format_from_name("JSON").has_value());
}
