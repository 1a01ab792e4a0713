#include <atomic>
#include <mutex>
#include <string>
#include <cstdio>
#include <thread>
#include <vector>

#include "../common/in_process.hpp"
#include "bp/json.hpp"
#include "bp/random.hpp"
#include "bp/wire/json.hpp"
#include "dealer_child.hpp"
#include "hostile.hpp"
#include "modes.hpp"
#include "sessions.hpp"

namespace bp::netbench {

namespace {

// 256 proofs of 16 parties under a label they were not made for: every one fails, and the
// batch verifier has to find each failure (the costliest body a client can send).
std::string bad_proofs_body() {
  const BulletproofGens gens(64, 16);
  const PedersenGens pc;
  SystemRandom rng;
  const mpc::SessionParams params{64, 16, mpc::session_label("flood", 64, 16, "netbench")};
  std::vector<uint64_t> values(16, 7);
  std::vector<Scalar> blindings(16);
  for (auto& b : blindings) b = Scalar::random(rng);
  const auto run = cli::aggregate_in_process(gens, pc, params, values, blindings);
  const std::string line = wire::proof_json(64, "not the label", run.result.commitments, run.result.proof.to_bytes());
  std::string body;
  for (int i = 0; i < 256; ++i) body += line + "\n";
  return body;
}

std::vector<std::string> addresses(int first, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back("127.0.0." + std::to_string(first + i));
  return out;
}

}  // namespace

int run_load_table(const std::string& dealer_path, double seconds_per_row) {
  const std::string flood_body = bad_proofs_body();
  std::printf(
      "load: sessions of m = 4 (n = 64) for %.0f s per row; the dealer is a bp-dealer process with one\n"
      "session thread and one verification thread; parties, flood and slowloris share the machine\n"
      "verify flood: 4 addresses, each POSTing 256 bad 16-party proofs (%zu KiB) back to back\n"
      "slowloris: 300 connections from 10 addresses, half dribbling a header, half upgraded and silent\n\n",
      seconds_per_row, flood_body.size() / 1024);
  std::printf(
      "| in flight | hostile traffic | sessions/s | p50 ms | p99 ms | p50 / idle p50 | failed | dealer CPU "
      "ms/session | hostile requests |\n|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
  int status = 0;
  for (size_t in_flight : {1, 8, 64}) {
    double idle_p50 = 0;
    for (int traffic = 0; traffic < 4; ++traffic) {
      const bool flood = traffic & 1, slowloris = traffic & 2;
      DealerChild dealer(
          dealer_path, {"--threads", "1", "--max-connects-per-ip-per-s", "1000000", "--max-connections-per-ip", "1000",
                        "--max-anonymous-sessions-per-ip", "1000", "--max-sessions-per-ip", "1000"});
      const client::Endpoint endpoint{"127.0.0.1", dealer.port(), false, ""};
      (void)network_session(endpoint, 64, 4);  // warm: the parties' generator tables
      HostileTraffic hostile(dealer.port());
      if (flood) hostile.start_verify_flood(addresses(20, 4), flood_body);
      if (slowloris) hostile.start_slowloris(300, addresses(40, 10));
      if (flood || slowloris) std::this_thread::sleep_for(std::chrono::seconds(1));  // let it build up
      const double cpu_before = dealer.cpu_seconds();
      const auto load = keep_in_flight(endpoint, 64, 4, in_flight, seconds_per_row);
      const auto& latencies = load.latencies_ms;
      const size_t failed = load.failed;
      const double seconds = load.seconds;
      const double cpu_ms =
          (dealer.cpu_seconds() - cpu_before) * 1000 / static_cast<double>(std::max<size_t>(1, latencies.size()));
      hostile.stop();
      const char* names[] = {"none", "verify flood", "slowloris 300", "verify flood + slowloris 300"};
      const double p50 = quantile(latencies, 0.5);
      if (traffic == 0) idle_p50 = p50;
      const std::string cpu = flood ? "-" : std::to_string(cpu_ms).substr(0, std::to_string(cpu_ms).find('.') + 2);
      std::printf("| %zu | %s | %.1f | %.0f | %.0f | %.2f | %zu | %s | %s |\n", in_flight, names[traffic],
                  static_cast<double>(latencies.size()) / seconds, p50, quantile(latencies, 0.99),
                  idle_p50 > 0 ? p50 / idle_p50 : 0.0, failed, cpu.c_str(),
                  (flood || slowloris) ? hostile.summary().c_str() : "");
      std::fflush(stdout);
      if (failed != 0) status = 1;
    }
  }
  std::printf("\n'-': under a verify flood the dealer's CPU is mostly its verification thread's.\n");
  return status;
}

int run_target_load(const std::string& url, size_t bits, size_t parties, size_t in_flight, double seconds, bool json) {
  const auto dealer = client::parse_endpoint(url);
  if (!dealer) {
    std::fprintf(stderr, "error: --target %s is not a ws:// or wss:// URL\n", url.c_str());
    return 64;
  }
  const auto run = keep_in_flight(*dealer, bits, parties, in_flight, seconds);
  const double rate = static_cast<double>(run.latencies_ms.size()) / std::max(run.seconds, 1e-9);
  if (json) {
    std::printf("%s\n", JsonObject()
                            .text("op", "target")
                            .text("target", url)
                            .number("bits", bits)
                            .number("parties", parties)
                            .number("in_flight", in_flight)
                            .number("sessions_per_s", rate, 2)
                            .number("p50_ms", quantile(run.latencies_ms, 0.5), 2)
                            .number("p99_ms", quantile(run.latencies_ms, 0.99), 2)
                            .number("failed", run.failed)
                            .str()
                            .c_str());
    return run.failed == 0 ? 0 : 1;
  }
  std::printf("| %s | %zu | %zu | %zu | %.1f | %.1f | %.1f | %zu |\n", url.c_str(), bits, parties, in_flight, rate,
              quantile(run.latencies_ms, 0.5), quantile(run.latencies_ms, 0.99), run.failed);
  return run.failed == 0 ? 0 : 1;
}

}  // namespace bp::netbench
