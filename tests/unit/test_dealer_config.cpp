// bp-dealer's configuration: the file, the flags over it, and every refusal.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bp/server/config.hpp"

using bp::server::parse_dealer_config;

namespace {

bp::server::ConfigOutcome parse(std::vector<std::string> args) {
  args.insert(args.begin(), "bp-dealer");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_dealer_config(static_cast<int>(argv.size()), argv.data());
}

const std::string kKey(64, 'a');

}  // namespace

TEST_CASE("defaults, flags, and a config file that flags override") {
  const auto defaults = parse({"--allow-anonymous"});
  REQUIRE(defaults.ok);
  CHECK(defaults.config.host == "127.0.0.1");
  CHECK(defaults.config.port == 8700);
  CHECK(defaults.config.threads >= 1);

  const std::string path = "/tmp/bp-dealer-test.conf";
  std::ofstream(path) << "# a comment\nlisten = 0.0.0.0:9000\nmax-sessions = 7   # trailing comment\n"
                         "round-timeout-ms = 1234\n";
  const auto both = parse({"--config", path, "--max-sessions", "9", "--operator-key", kKey});
  REQUIRE(both.ok);
  CHECK(both.config.host == "0.0.0.0");
  CHECK(both.config.port == 9000);
  CHECK(both.config.max_sessions == 9);  // the flag wins over the file
  CHECK(both.config.default_round_timeout_ms == 1234);
  CHECK(both.config.operator_keys == std::vector<std::string>{kKey});
  CHECK_FALSE(both.config.allow_anonymous);
  std::remove(path.c_str());
}

TEST_CASE("bad input is refused with a message naming it") {
  CHECK(parse({"--listen", "nowhere"}).message.find("listen") != std::string::npos);
  CHECK(parse({"--listen", "127.0.0.1:70000"}).ok == false);
  CHECK(parse({"--threads", "-1"}).ok == false);
  CHECK(parse({"--frobnicate", "1"}).message.find("unknown option") != std::string::npos);
  CHECK(parse({"--log-level", "loud"}).ok == false);
  CHECK(parse({"--config", "/nonexistent/file"}).message.find("cannot read") != std::string::npos);
  CHECK(parse({"--threads"}).ok == false);
  CHECK(parse({"--operator-key", kKey + ",,b"}).ok == false);
  const auto help = parse({"--help"});
  CHECK(help.help);
  for (const char* option :
       {"--listen", "--record", "--db", "--store", "--config", "--max-frame-bytes", "--round-timeout-ms",
        "--shutdown-grace-ms", "--reconnect-grace-ms", "--operator-key", "--dealer-key", "--allow-anonymous"})
    CHECK(help.message.find(option) != std::string::npos);
}

TEST_CASE("a dealer that would let anyone in is refused at start") {
  CHECK(parse({}).message.find("no --operator-key") != std::string::npos);
  const auto open_to_all = parse({"--listen", "0.0.0.0:8700", "--allow-anonymous"});
  CHECK_FALSE(open_to_all.ok);
  CHECK(open_to_all.message.find("only on a loopback address") != std::string::npos);
  CHECK(parse({"--listen", "::1:8700", "--allow-anonymous"}).ok);
  // Bracketed IPv6 is the usual spelling; a host name is refused here, not at bind.
  const auto bracketed = parse({"--listen", "[::1]:8700", "--allow-anonymous"});
  REQUIRE(bracketed.ok);
  CHECK(bracketed.config.host == "::1");
  CHECK_FALSE(parse({"--listen", "dealer:8700", "--allow-anonymous"}).ok);
  CHECK_FALSE(parse({"--listen", "[]:8700", "--allow-anonymous"}).ok);
  const auto keyed = parse({"--listen", "0.0.0.0:8700", "--operator-key", kKey + "," + std::string(64, 'b')});
  REQUIRE(keyed.ok);
  CHECK(keyed.config.operator_keys.size() == 2);
  // The flag also works as the last argument, and as a file option.
  CHECK(parse({"--max-sessions", "3", "--allow-anonymous"}).config.allow_anonymous);
  const std::string path = "/tmp/bp-dealer-anon.conf";
  std::ofstream(path) << "allow-anonymous = true\n";
  CHECK(parse({"--config", path}).config.allow_anonymous);
  std::ofstream(path) << "allow-anonymous = maybe\n";
  CHECK_FALSE(parse({"--config", path}).ok);
  std::remove(path.c_str());
}

TEST_CASE("environment variables sit between the config file and the flags") {
  CHECK(bp::server::env_name("max-sessions") == "BP_DEALER_MAX_SESSIONS");
  const std::string path = "/tmp/bp-dealer-env.conf";
  std::ofstream(path) << "max-sessions = 5\nthreads = 3\nallow-anonymous = true\n";
  ::setenv("BP_DEALER_CONFIG", path.c_str(), 1);
  ::setenv("BP_DEALER_MAX_SESSIONS", "6", 1);
  ::setenv("BP_DEALER_LISTEN", "127.0.0.1:9100", 1);
  auto env = parse({});
  REQUIRE_MESSAGE(env.ok, env.message);
  CHECK(env.config.max_sessions == 6);  // the variable over the file
  CHECK(env.config.threads == 3);       // the file where no variable says otherwise
  CHECK(env.config.port == 9100);
  CHECK(parse({"--max-sessions", "8"}).config.max_sessions == 8);  // the flag over the variable
  ::setenv("BP_DEALER_MAX_SESSIONS", "lots", 1);
  CHECK(parse({}).message.find("BP_DEALER_MAX_SESSIONS") != std::string::npos);
  for (const char* name : {"BP_DEALER_CONFIG", "BP_DEALER_MAX_SESSIONS", "BP_DEALER_LISTEN"}) ::unsetenv(name);
  std::remove(path.c_str());
}

TEST_CASE("the limits against outside attack: defaults, durations, and every way to set them") {
  const auto defaults = parse({"--allow-anonymous"});
  REQUIRE(defaults.ok);
  CHECK(defaults.config.max_connections_per_ip == 64);
  CHECK(defaults.config.request_timeout_ms == 10000);
  CHECK(defaults.config.outcome_retention_s == 30 * 86400);
  CHECK(defaults.config.max_anonymous_sessions_per_ip < defaults.config.max_sessions_per_ip);
  // (no structured binding: clang 14 cannot capture one in CAPTURE's lambda)
  for (const auto& example : std::vector<std::pair<std::string, uint64_t>>{
           {"30d", 30 * 86400}, {"12h", 12 * 3600}, {"15m", 900}, {"90s", 90}, {"45", 45}, {"0", 0}}) {
    CAPTURE(example.first);
    const auto parsed = parse({"--allow-anonymous", "--outcome-retention", example.first});
    REQUIRE(parsed.ok);
    CHECK(parsed.config.outcome_retention_s == example.second);
  }
  for (const char* bad : {"", "d", "3w", "-1d", "1.5h", "99999999999d"})
    CHECK_FALSE(parse({"--allow-anonymous", "--outcome-retention", bad}).ok);
  const std::string path = "/tmp/bp-dealer-limits.conf";
  std::ofstream(path) << "request-timeout-ms = 1500\nmax-connections-per-ip = 9\nverify-queue = 2\n";
  ::setenv("BP_DEALER_MAX_CONNECTIONS_PER_IP", "11", 1);
  const auto layered = parse({"--allow-anonymous", "--config", path, "--verify-per-ip-per-s", "4"});
  REQUIRE(layered.ok);
  CHECK(layered.config.request_timeout_ms == 1500);
  CHECK(layered.config.max_connections_per_ip == 11);
  CHECK(layered.config.verify_queue == 2);
  CHECK(layered.config.verify_per_ip_per_s == 4);
  ::unsetenv("BP_DEALER_MAX_CONNECTIONS_PER_IP");
  std::remove(path.c_str());
  const auto help = parse({"--help"});
  for (const char* option :
       {"--max-connections-per-ip", "--request-timeout-ms", "--outcome-retention", "--outcome-cache",
        "--max-sessions-per-operator", "--max-sessions-per-ip", "--max-anonymous-sessions-per-ip", "--verify-threads",
        "--verify-queue", "--verify-per-ip-per-s", "--max-http-body-bytes"})
    CHECK_MESSAGE(help.message.find(option) != std::string::npos, option);
}

TEST_CASE("the record's options go by one name, and their old spellings still work") {
  const auto named = parse({"--allow-anonymous", "--record", "/tmp/r.db", "--record-timeout-ms", "700"});
  REQUIRE(named.ok);
  CHECK(named.config.record == "/tmp/r.db");
  CHECK(named.config.record_timeout_ms == 700);
  const auto old =
      parse({"--allow-anonymous", "--store", "/tmp/s.db", "--store-timeout-ms", "800", "--store-queue", "9"});
  REQUIRE(old.ok);
  CHECK(old.config.record == "/tmp/s.db");
  CHECK(old.config.record_timeout_ms == 800);
  CHECK(old.config.record_queue == 9);
  CHECK(parse({"--allow-anonymous", "--db", "/tmp/d.db"}).config.record == "/tmp/d.db");
  setenv("BP_DEALER_STORE", "/tmp/e.db", 1);
  CHECK(parse({"--allow-anonymous"}).config.record == "/tmp/e.db");
  unsetenv("BP_DEALER_STORE");
  // --help states each default once, read from DealerConfig, and names the old spellings.
  const std::string help = parse({"--help"}).message;
  CHECK(help.find("--record-timeout-ms  time limit of every record call") != std::string::npos);
  CHECK(help.find("; default 5000\n") != std::string::npos);
  CHECK(help.find("--store  the old name of --record") != std::string::npos);
  CHECK(help.find("--reconnect-grace-ms  how long a dropped party may take to resume its seat; default " +
                  std::to_string(bp::server::DealerConfig{}.reconnect_grace_ms)) != std::string::npos);
}
