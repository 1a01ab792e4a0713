#include "in_flight_sweep.hpp"

#include <thread>
#include <cstdio>
#include <vector>

#include "../common/machine.hpp"
#include "bp/backend.hpp"
#include "bp/json.hpp"
#include "sessions.hpp"

namespace bp::netbench {

int run_in_flight_sweep(const client::Endpoint& dealer, const SweepOptions& options) {
  const std::vector<size_t> levels =
      options.quick ? std::vector<size_t>{1, 4} : std::vector<size_t>{1, 2, 4, 8, 16, 32, 64};
  const double seconds = options.quick ? 1.0 : options.seconds;
  const unsigned cores = std::thread::hardware_concurrency();
  if (options.json)
    std::printf("%s\n", JsonObject()
                            .text("op", "machine")
                            .text("cpu", tools::cpu_model_name())
                            .number("cores", cores)
                            .text("backend_choice", backend_choice())
                            .text("note", "dealer and parties share the machine's cores")
                            .str()
                            .c_str());
  else
    std::printf(
        "%sthe dealer (one session thread) and the parties share these cores\n"
        "sessions of n = %zu, m = %zu, %.0f s a row\n\n"
        "| in flight | sessions/s | p50 ms | p99 ms | failed |\n|---:|---:|---:|---:|---:|\n",
        tools::machine_lines().c_str(), options.bits, options.parties, seconds);
  (void)network_session(dealer, options.bits, options.parties);  // warm: the parties' generator tables
  int status = 0;
  for (size_t k : levels) {
    const auto run = keep_in_flight(dealer, options.bits, options.parties, k, seconds);
    const double rate = static_cast<double>(run.latencies_ms.size()) / std::max(run.seconds, 1e-9);
    const double p50 = quantile(run.latencies_ms, 0.5), p99 = quantile(run.latencies_ms, 0.99);
    if (options.json)
      std::printf("%s\n", JsonObject()
                              .text("op", "in_flight")
                              .number("bits", options.bits)
                              .number("parties", options.parties)
                              .number("in_flight", k)
                              .number("sessions_per_s", rate, 2)
                              .number("p50_ms", p50, 2)
                              .number("p99_ms", p99, 2)
                              .number("failed", run.failed)
                              .str()
                              .c_str());
    else
      std::printf("| %zu | %.1f | %.1f | %.1f | %zu |\n", k, rate, p50, p99, run.failed);
    std::fflush(stdout);
    if (run.failed != 0) status = 1;
  }
  return status;
}

}  // namespace bp::netbench
