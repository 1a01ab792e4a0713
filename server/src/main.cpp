// bp-dealer: the aggregation dealer daemon.
#include <sodium.h>
#include <cstdio>

#include "bp/server/config.hpp"
#include "bp/server/dealer_server.hpp"
#include "bp/version.hpp"
#include "bp/wire/version.hpp"
#include "observability/log.hpp"

int main(int argc, char** argv) {
  const auto parsed = bp::server::parse_dealer_config(argc, argv);
  if (parsed.help) {
    std::fputs(parsed.message.c_str(), stdout);
    return 0;
  }
  if (!parsed.ok) {
    std::fprintf(stderr, "error: %s (see bp-dealer --help)\n", parsed.message.c_str());
    return 2;
  }
  if (sodium_init() < 0) {
    std::fprintf(stderr, "error: libsodium failed to initialise\n");
    return 1;
  }
  // Logs go to stderr; stdout carries only the "listening on" line scripts wait for.
  namespace log = bp::server::log;
  log::configure(*log::format_from_name(parsed.config.log_format), parsed.config.log_level);
  // The first line says what runs: a fleet's logs tell its versions apart.
  log::info("bp-dealer starting", {{"version", std::string(bp::release_version())},
                                   {"commit", std::string(bp::build_commit())},
                                   {"build", bp::wire::version_line("bp-dealer")}});
  try {
    bp::server::DealerServer server(parsed.config);
    std::printf("listening on %s:%u\n", parsed.config.host.c_str(), server.port());
    std::fflush(stdout);
    if (server.tls())
      log::info("listening (TLS)", {{"address", "wss://" + parsed.config.host + ":" + std::to_string(server.port())},
                                    {"threads", parsed.config.threads}});
    else
      log::info("listening (plain WebSocket without TLS: only for loopback demos or behind a TLS-terminating proxy)",
                {{"address", "ws://" + parsed.config.host + ":" + std::to_string(server.port())},
                 {"threads", parsed.config.threads}});
    server.run();
    log::info("stopped");
    return 0;
  } catch (const std::exception& e) {
    log::error("the dealer stopped on an error", {{"reason", e.what()}});
    return 1;
  }
}
