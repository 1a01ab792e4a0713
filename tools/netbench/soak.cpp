#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "dealer_child.hpp"
#include "hostile.hpp"
#include "modes.hpp"
#include "sessions.hpp"

namespace bp::netbench {

namespace {

struct Sample {
  size_t sessions;
  size_t rss_kib;
  size_t heap_kib;
  size_t fds;
  double seconds;
};

// Least squares: KiB per 1000 sessions over the samples, of RSS or of the heap in use.
// A sample without a reading (0: the dealer did not answer in time) is left out.
double slope_kib_per_1000(const std::vector<Sample>& all, size_t Sample::*kib) {
  std::vector<Sample> samples;
  for (const auto& s : all)
    if (s.*kib != 0) samples.push_back(s);
  if (samples.size() < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const auto n = static_cast<double>(samples.size());
  for (const auto& s : samples) {
    const double x = static_cast<double>(s.sessions) / 1000, y = static_cast<double>(s.*kib);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// Smaller than the default, so the cache is full (and memory at its plateau) within the
// warm-up even of a short run.
constexpr size_t kOutcomeCache = 1000;

}  // namespace

int run_soak(const SoakOptions& options) {
  char dir_template[] = "/tmp/bp-soak-XXXXXX";
  if (!mkdtemp(dir_template)) return 1;
  const std::string dir = dir_template;
  int status = 0;
  {
    // Honest parties all come from 127.0.0.1 here, so its per-address caps are lifted; the
    // garbage comes from other addresses under the default limits.
    DealerChild dealer(options.dealer_path,
                       {"--threads", "1", "--record", dir + "/soak.db", "--max-connects-per-ip-per-s", "1000000",
                        "--max-connections-per-ip", "100000", "--max-anonymous-sessions-per-ip", "100000",
                        "--max-sessions-per-ip", "100000", "--outcome-cache", std::to_string(kOutcomeCache)});
    const client::Endpoint endpoint{"127.0.0.1", dealer.port(), false, ""};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Sample> samples;
    std::mutex mutex;
    auto sample = [&](size_t sessions, const char* note = "") {
      std::lock_guard lock(mutex);
      // Descriptors before the heap: reading the heap opens a connection of our own.
      const size_t fds = dealer.open_fds(), rss = dealer.rss_kib();
      samples.push_back({sessions, rss, dealer.heap_in_use_kib(), fds, ms_since(t0) / 1000});
      const auto& s = samples.back();
      std::printf("| %zu%s | %zu | %zu | %zu | %.1f |\n", s.sessions, note, s.rss_kib, s.heap_kib, s.fds, s.seconds);
      std::fflush(stdout);
    };
    std::printf(
        "soak: %zu sessions (n = %zu, m = %zu), %zu in flight, garbage traffic from 127.0.0.2 and 127.0.0.3;\n"
        "the dealer keeps %zu outcomes in memory (--outcome-cache), the rest in SQLite\n\n",
        options.sessions, options.bits, options.parties, options.parallel, kOutcomeCache);
    std::printf(
        "| sessions | dealer RSS KiB | dealer heap in use KiB | dealer open fds | seconds |\n"
        "|---:|---:|---:|---:|---:|\n");
    sample(0);
    if (!network_session(endpoint, options.bits, options.parties)) {
      std::fprintf(stderr, "error: the first session failed\n");
      return 1;
    }
    // The baseline, with the database's journal files open now. The dealer closes its half of
    // the first session's connections a moment after the parties have the result: a count
    // taken at once could include one, and then the end (all closed) never matched it.
    size_t quiet_fds = dealer.open_fds();
    for (int unchanged = 0, polls = 0; unchanged < 5 && polls < 100; ++polls) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const size_t now = dealer.open_fds();
      unchanged = now == quiet_fds ? unchanged + 1 : 0;
      quiet_fds = now;
    }

    HostileTraffic garbage(dealer.port());
    garbage.start_garbage("127.0.0.2");
    garbage.start_garbage("127.0.0.3");
    std::atomic<size_t> started{0}, completed{0}, failed{0};
    std::vector<std::thread> drivers;
    for (size_t k = 0; k < options.parallel; ++k)
      drivers.emplace_back([&] {
        while (started++ < options.sessions) {
          if (!network_session(endpoint, options.bits, options.parties)) {
            ++failed;
            continue;
          }
          const size_t done = ++completed;
          if (done % 1000 == 0) sample(done);
        }
      });
    for (auto& d : drivers) d.join();
    garbage.stop();
    // Quiet again: every connection closed (the dealer's half too), then the last sample.
    // (A refused peer that never answers the dealer's close frame holds its socket for the
    // close handshake's timeout, up to --handshake-timeout-ms: wait well past that.)
    for (int i = 0; i < 300 && dealer.open_fds() != quiet_fds; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sample(completed, " (end, quiet)");
    const Sample end = samples.back();

    std::vector<Sample> after_warmup;
    const size_t warmup = std::max<size_t>(kOutcomeCache, std::min<size_t>(2000, options.sessions / 5));
    for (const auto& s : samples)
      if (s.sessions >= warmup && s.sessions > 0) after_warmup.push_back(s);
    const double slope = slope_kib_per_1000(after_warmup, &Sample::rss_kib);
    const double heap_slope = slope_kib_per_1000(after_warmup, &Sample::heap_kib);
    std::printf("\n%zu sessions completed, %zu failed, in %.1f s (%.0f sessions/s); %s\n", completed.load(),
                failed.load(), end.seconds, static_cast<double>(completed) / end.seconds, garbage.summary().c_str());
    std::printf(
        "after the first %zu sessions, per 1000 sessions: RSS %+.1f KiB, heap in use %+.1f KiB "
        "(RSS %zu KiB at start, %zu at the end; heap %zu and %zu)\n",
        warmup, slope, heap_slope, samples.front().rss_kib, end.rss_kib, samples.front().heap_kib, end.heap_kib);
    std::printf("open fds: %zu at start, %zu after the first session, %zu at the end\n", samples.front().fds, quiet_fds,
                end.fds);
    std::error_code ec;
    const auto db_bytes =
        std::filesystem::file_size(dir + "/soak.db", ec) + std::filesystem::file_size(dir + "/soak.db-wal", ec);
    std::printf("outcome database: %zu bytes for %zu records (%.0f bytes each, n = %zu, m = %zu)\n",
                static_cast<size_t>(db_bytes), completed.load() + 1,
                static_cast<double>(db_bytes) / static_cast<double>(completed + 1), options.bits, options.parties);
    if (failed != 0) status = 1;
    if (end.fds != quiet_fds) {
      std::printf("FAIL: descriptors did not come back (%zu, was %zu); open now:\n", end.fds, quiet_fds);
      for (const auto& entry : std::filesystem::directory_iterator("/proc/" + std::to_string(dealer.pid()) + "/fd", ec))
        std::printf("  %s -> %s\n", entry.path().filename().c_str(),
                    std::filesystem::read_symlink(entry.path(), ec).c_str());
      status = 1;
    }
    // RSS alone can hide a leak for a long time (the allocator first reuses memory it already
    // holds), so the heap in use is held to the same limit.
    if (options.max_slope_kib > 0 && (slope > options.max_slope_kib || heap_slope > options.max_slope_kib)) {
      std::printf("FAIL: memory grows (RSS %.1f, heap %.1f KiB per 1000 sessions), over the limit of %.1f\n", slope,
                  heap_slope, options.max_slope_kib);
      status = 1;
    }
  }
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace bp::netbench
