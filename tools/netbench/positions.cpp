#include "positions.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "sessions.hpp"

namespace bp::netbench {

int run_positions_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick) {
  std::printf(
      "| positions | shape | network session ms | dealer CPU ms per session | bytes up (busiest party) | "
      "bytes down (busiest party) |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  const std::vector<size_t> sizes = quick ? std::vector<size_t>{64} : std::vector<size_t>{64, 128, 256};
  const int runs = quick ? 1 : 3;
  for (size_t m : sizes) {
    const std::vector<std::pair<std::string, std::vector<uint32_t>>> shapes = {
        {std::to_string(m) + " parties x 1", std::vector<uint32_t>(m, 1)},
        {"4 parties x " + std::to_string(m / 4), std::vector<uint32_t>(4, static_cast<uint32_t>(m / 4))},
    };
    for (const auto& [shape, values_per_party] : shapes) {
      double wall = 0, cpu = 0;
      NetRun last{};
      // One session first, unmeasured: the dealer builds the shifted tables of the positions
      // a session reaches on first use (docs/operations.md#sizing), once per process.
      for (int r = -1; r < runs; ++r) {
        const double cpu_before = dealer_cpu_ms();
        auto run = network_session_of(dealer, 64, values_per_party);
        if (!run) {
          std::fprintf(stderr, "error: a session of %zu positions (%s) failed\n", m, shape.c_str());
          return 1;
        }
        if (r < 0) continue;
        cpu += dealer_cpu_ms() - cpu_before;
        wall += run->wall_ms;
        last = *run;
      }
      std::printf("| %zu | %s | %.1f | %.1f | %zu | %zu |\n", m, shape.c_str(), wall / runs, cpu / runs, last.up,
                  last.down);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace bp::netbench
