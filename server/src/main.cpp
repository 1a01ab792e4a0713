// bp-dealer: the aggregation dealer daemon.
#include <sodium.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "bp/server/config.hpp"
#include "bp/server/dealer_server.hpp"

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
  auto logger = spdlog::stderr_color_mt("bp-dealer");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(parsed.config.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  try {
    bp::server::DealerServer server(parsed.config);
    std::printf("listening on %s:%u\n", parsed.config.host.c_str(), server.port());
    std::fflush(stdout);
    if (server.tls())
      spdlog::info("listening on wss://{}:{} (TLS; {} threads)", parsed.config.host, server.port(),
                   parsed.config.threads);
    else
      spdlog::info("listening on ws://{}:{} ({} threads) - plain WebSocket without TLS: only for loopback demos "
                   "or behind a TLS-terminating proxy",
                   parsed.config.host, server.port(), parsed.config.threads);
    server.run();
    spdlog::info("stopped");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
