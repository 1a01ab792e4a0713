// bp-netbench: aggregation sessions through the real dealer (in this process, on its own
// threads) and real party clients over loopback sockets. Prints, per m, the wall time of
// a session, the bytes each party sends and receives, and the ratio to the same session run
// in one process (bp aggregate); then a load figure: completed m = 4 sessions per second
// with many sessions in flight. --latency-ms and --bandwidth-kbps emulate slower links on
// every frame a party sends. --soak N and --load-table run the real bp-dealer binary under
// hostile traffic instead (soak.cpp, load.cpp). --record puts the in-process dealer's record in a
// SQLite file or a PostgreSQL database (memory by default), and the load row then says what
// the record's writes cost: each session's checkpoints and outcome. --sweep-in-flight prints
// session latency against sessions in flight instead (in_flight_sweep.cpp); --json makes it
// and --target print JSON lines, the plots' input (tools/plots).
#include <sodium.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <pthread.h>
#include <thread>
#include <ctime>
#include <vector>

#include "../common/in_process.hpp"
#include "../common/machine.hpp"
#include "in_flight_sweep.hpp"
#include "modes.hpp"
#include "record_latency.hpp"
#include "churn.hpp"
#include "positions.hpp"
#include "record_capacity.hpp"
#include "gadgets.hpp"
#include "sessions.hpp"
#include "bp/client/party_client.hpp"
#include "bp/random.hpp"
#include "bp/server/dealer_server.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using bp::netbench::ms_since;

double median(std::vector<double> v) { return bp::netbench::quantile(std::move(v), 0.5); }

constexpr const char* kUsage =
    "usage: bp-netbench [--quick] [--latency-ms N] [--bandwidth-kbps N] [--load-seconds N] [--record FILE|URL]\n"
    "       bp-netbench --positions [--quick]   (sessions of 64, 128, 256 positions: 1 value per party, and 4\n"
    "           parties of many; wall ms, dealer CPU ms per session, bytes of the busiest party)\n"
    "       bp-netbench --churn [--quick] [--latency-ms N]   (sessions of 16, 64, 256 parties, each failing\n"
    "           with probability 0, 1%, 5%: with a quorum of half and successors, and all or nothing; sessions\n"
    "           that delivered, parties excluded, p50/p99 ms, dealer CPU ms per session)\n"
    "       bp-netbench --gadgets [--quick]   (gadget sessions of 2, 4, 16 parties, every seat range:64 or\n"
    "           shuffle:8; wall ms, dealer CPU ms per session, bytes of one party)\n"
    "       bp-netbench --record-capacity FILE|URL [--parallel P] [--load-seconds N]   (sessions/s the record\n"
    "           alone takes: P synthetic sessions at once, each a claim, 3 checkpoints and a close)\n"
    "       bp-netbench --sweep-in-flight [--quick] [--json] [--load-seconds N] [--record FILE|URL]\n"
    "       bp-netbench --soak N [--bits B] [--parties M] [--parallel P] [--max-slope-kib K] [--dealer PATH]\n"
    "       bp-netbench --load-table [--load-seconds N] [--dealer PATH]\n"
    "       bp-netbench --target ws://HOST:PORT [--bits B] [--parties M] [--parallel P] [--load-seconds N] [--json]\n"
    "           (one row: target | bits | parties | in flight | sessions/s | p50 ms | p99 ms | failed)\n";

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) return 1;
  bool churn = false;
  bool quick = false, load_table = false, sweep_in_flight = false, json = false, positions = false, gadgets = false;
  std::string target;
  bp::client::Options options;
  bp::client::LinkEmulation link;
  double load_seconds = 5;
  std::string record, record_capacity;
  bp::netbench::SoakOptions soak;
  soak.dealer_path = BP_DEALER_PATH;
  soak.sessions = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", name);
        std::exit(64);
      }
      return std::stoul(argv[++i]);
    };
    if (a == "--churn")
      churn = true;
    else if (a == "--quick")
      quick = true;
    else if (a == "--latency-ms")
      link.added_latency = std::chrono::milliseconds(value("--latency-ms"));
    else if (a == "--bandwidth-kbps")
      link.bandwidth_bytes_per_second = value("--bandwidth-kbps") * 1000 / 8;
    else if (a == "--load-seconds")
      load_seconds = static_cast<double>(value("--load-seconds"));
    else if (a == "--soak")
      soak.sessions = value("--soak");
    else if (a == "--bits")
      soak.bits = value("--bits");
    else if (a == "--parties")
      soak.parties = value("--parties");
    else if (a == "--parallel")
      soak.parallel = std::max<size_t>(1, value("--parallel"));
    else if (a == "--max-slope-kib")
      soak.max_slope_kib = static_cast<double>(value("--max-slope-kib"));
    else if (a == "--dealer" && i + 1 < argc)
      soak.dealer_path = argv[++i];
    else if (a == "--positions")
      positions = true;
    else if (a == "--gadgets")
      gadgets = true;
    else if (a == "--sweep-in-flight")
      sweep_in_flight = true;
    else if (a == "--json")
      json = true;
    else if (a == "--load-table")
      load_table = true;
    else if (a == "--target" && i + 1 < argc)
      target = argv[++i];
    else if (a == "--record" && i + 1 < argc)
      record = argv[++i];
    else if (a == "--record-capacity" && i + 1 < argc)
      record_capacity = argv[++i];
    else {
      std::fputs(kUsage, stderr);
      return 64;
    }
  }
  // The in-process dealer logs through spdlog's default logger, which writes to stdout: the
  // tables and JSON lines own stdout, so its lines go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("bp-netbench"));
  try {
    if (soak.sessions != 0) return bp::netbench::run_soak(soak);
    if (!record_capacity.empty()) {
      spdlog::set_level(spdlog::level::warn);
      return bp::netbench::run_record_capacity(record_capacity, soak.parallel, load_seconds);
    }
    if (load_table) {  // the bp-dealer child inherits this process's BP_BACKEND
      std::printf("%s\n", bp::tools::machine_lines().c_str());
      return bp::netbench::run_load_table(soak.dealer_path, load_seconds);
    }
    if (!target.empty()) {
      spdlog::set_level(spdlog::level::warn);
      return bp::netbench::run_target_load(target, soak.bits, soak.parties, soak.parallel, load_seconds, json);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);

  bp::server::DealerConfig config;
  config.port = 0;
  config.threads = 1;  // one core for the dealer, one for the parties, on the 2-core machine
  // Every party comes from 127.0.0.1 here: its per-address limits are lifted.
  config.max_connects_per_ip_per_s = 1000000;
  config.max_connections_per_ip = 100000;
  config.max_sessions_per_ip = config.max_anonymous_sessions_per_ip = 100000;
  config.allow_anonymous = true;  // loopback only; signatures cost ~50 µs a join
  config.record = record;
  if (positions || churn) config.max_positions = config.max_parties = 256;
  if (churn) config.reconnect_grace_ms = 200;  // a dropped party is noticed within a round
  bp::server::DealerServer server(config);
  std::thread dealer_thread([&] { server.run(); });
  const bp::client::Endpoint dealer{"127.0.0.1", server.port(), false, ""};
  // The dealer's own CPU time (its one worker thread), which is what sizing a dealer needs:
  // the parties' work runs on their own machines in production.
  clockid_t dealer_clock;
  pthread_getcpuclockid(dealer_thread.native_handle(), &dealer_clock);
  const auto dealer_cpu_ms = [dealer_clock] {
    timespec ts{};
    clock_gettime(dealer_clock, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  };
  // The sweep prints its own machine line (JSON or text); every other table starts here.
  if (!sweep_in_flight) std::printf("%s\n", bp::tools::machine_lines().c_str());
  if (churn) {
    const int status = bp::netbench::run_churn_rows(dealer, dealer_cpu_ms, quick, link);
    server.stop();
    dealer_thread.join();
    return status;
  }
  if (positions || gadgets) {
    const int status = positions ? bp::netbench::run_positions_rows(dealer, dealer_cpu_ms, quick)
                                 : bp::netbench::run_gadget_rows(dealer, dealer_cpu_ms, quick);
    server.stop();
    dealer_thread.join();
    return status;
  }
  if (sweep_in_flight) {
    const int status = bp::netbench::run_in_flight_sweep(dealer, {quick, json, load_seconds, 64, 4});
    server.stop();
    dealer_thread.join();
    return status;
  }

  std::printf("dealer and parties on loopback; added latency %lld ms per frame, bandwidth %s\n\n",
              static_cast<long long>(link.added_latency.count()),
              link.bandwidth_bytes_per_second
                  ? (std::to_string(link.bandwidth_bytes_per_second * 8 / 1000) + " kbit/s").c_str()
                  : "unlimited");
  std::printf(
      "| m | network session ms | in-process ms | network / in-process | bytes up per party | bytes down per party "
      "|\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  std::vector<size_t> sizes = {2, 4, 8, 16};
  if (!quick) {
    sizes.push_back(32);
    sizes.push_back(64);
  }
  const bp::BulletproofGens gens(64, 64);
  const bp::PedersenGens pc;
  bp::SystemRandom rng;
  for (size_t m : sizes) {
    const int runs = m <= 8 ? 5 : 3;
    std::vector<double> net, local;
    bp::netbench::NetRun last{};
    for (int r = 0; r < runs; ++r) {
      auto run = bp::netbench::network_session(dealer, 64, m, options, link);
      if (!run) {
        std::fprintf(stderr, "error: a network session with m = %zu failed\n", m);
        server.stop();
        dealer_thread.join();
        return 1;
      }
      net.push_back(run->wall_ms);
      last = *run;
      const bp::mpc::SessionParams params{64, m, bp::mpc::session_label("local", 64, m, "netbench")};
      std::vector<uint64_t> values(m, 1000);
      std::vector<bp::Scalar> blindings(m);
      for (auto& b : blindings) b = bp::Scalar::random(rng);
      const auto t0 = Clock::now();
      if (!bp::cli::aggregate_in_process(gens, pc, params, values, blindings).ok) return 1;
      local.push_back(ms_since(t0));
    }
    std::printf("| %zu | %.1f | %.1f | %.2f | %zu | %zu |\n", m, median(net), median(local),
                median(net) / median(local), last.up, last.down);
    std::fflush(stdout);
  }

  // Load: keep `in_flight` sessions of m = 4 going for load_seconds; count the completed ones.
  const size_t in_flight = 8;
  const double cpu_before = dealer_cpu_ms();
  const auto load = bp::netbench::keep_in_flight(dealer, 64, 4, in_flight, quick ? 2.0 : load_seconds, options, link);
  const size_t completed = load.latencies_ms.size(), failed = load.failed;
  const double seconds = load.seconds;
  const double cpu_per_session = (dealer_cpu_ms() - cpu_before) / static_cast<double>(std::max<size_t>(1, completed));
  std::printf(
      "\nload: %zu sessions of m = 4 (n = 64) completed in %.1f s with %zu in flight: %.2f sessions/s (%zu failed)\n",
      completed, seconds, in_flight, static_cast<double>(completed) / seconds, failed);
  std::printf(
      "dealer CPU per session: %.2f ms, so one dealer core serves about %.0f such sessions/s when the parties "
      "run elsewhere\n",
      cpu_per_session, 1000.0 / cpu_per_session);
  // What the record's calls cost, over the whole run, from the dealer's own histogram.
  const std::string metrics = bp::netbench::fetch_metrics(server.port());
  const double passes = bp::netbench::counter_value(metrics, "bp_final_check_passes_total");
  const double checked = bp::netbench::counter_value(metrics, "bp_final_check_proofs_total");
  std::printf("final proof checks: %.0f proofs in %.0f passes (%.2f per batch)\n", checked, passes,
              passes > 0 ? checked / passes : 0.0);
  const auto calls = bp::netbench::record_calls(metrics);
  std::printf("record (%s):", record.empty()                     ? "memory"
                              : record.rfind("postgres", 0) == 0 ? "PostgreSQL"
                                                                 : "SQLite file");
  for (const char* operation : {"claim", "checkpoint", "close"}) {
    const auto it = calls.find(operation);
    if (it == calls.end()) continue;
    std::printf(" %s p50 %.2f ms p99 %.2f ms (%llu);", operation, it->second.p50_ms, it->second.p99_ms,
                static_cast<unsigned long long>(it->second.count));
  }
  std::printf("\n");
  server.stop();
  dealer_thread.join();
  return failed == 0 ? 0 : 1;
}
