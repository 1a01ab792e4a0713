#include "record_capacity.hpp"

#include <sodium.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>

#include "bp/hex.hpp"
#include "observability/metrics.hpp"
#include "record/postgres_connection.hpp"
#include "record/record_service.hpp"
#include "record/sql_record_store.hpp"
#include "record/sqlite_connection.hpp"

namespace bp::netbench {

namespace {

using Clock = std::chrono::steady_clock;
using namespace bp::server;

// One synthetic session's writes, each after the last one's answer, as a session makes them.
class SyntheticSession : public std::enable_shared_from_this<SyntheticSession> {
 public:
  SyntheticSession(RecordService& record, std::function<void(bool)> ended) : record_(record), ended_(std::move(ended)) {
    std::array<uint8_t, 16> id{};
    randombytes_buf(id.data(), id.size());
    id_ = to_hex(id);
  }
  void start() {
    ClaimRequest claim{id_, "addr:127.0.0.1", 64, 4, "{\"status\":\"aborted\"}", 0, std::vector<uint8_t>(300, 7)};
    const bool queued = record_.claim(claim, [self = shared_from_this()](RecordResult<ClaimOutcome> r) {
      if (!r || *r != ClaimOutcome::Claimed) return self->ended_(false);
      self->next_checkpoint(0);
    });
    if (!queued) ended_(false);
  }

 private:
  void next_checkpoint(int k) {
    if (k == 3) return finish();
    Checkpoint c{id_, kFirstEpoch, std::vector<uint8_t>(800 + 300 * k, 9), "bit_commitments", 4};
    record_.checkpoint(std::move(c), [self = shared_from_this(), k](RecordResult<Ok> r) {
      if (!r) return self->ended_(false);
      self->next_checkpoint(k + 1);
    });
  }
  void finish() {
    record_.close(id_, kFirstEpoch, true, std::string(3000, 'x'),
                  [self = shared_from_this()](RecordResult<Ok> r) { self->ended_(r.ok()); });
  }
  RecordService& record_;
  std::function<void(bool)> ended_;
  std::string id_;
};

}  // namespace

int run_record_capacity(const std::string& record, size_t in_flight, double seconds) {
  const bool shared = record.rfind("postgres", 0) == 0 || record.find("host=") != std::string::npos;
  // In memory, as the dealer without --record keeps it: its last 4096 outcomes.
  const SqlRecordOptions options{"capacity", "bench", record == ":memory:" ? size_t{4096} : 0};
  const auto timeout = std::chrono::milliseconds(10000);
  RecordService::Factory factory = [&] {
    if (shared)
      return make_sql_record_store(make_postgres_connection(PostgresOptions{record, timeout}), options, false);
    return make_sql_record_store(open_sqlite_connection(record, timeout), options, true);
  };
  Metrics metrics;
  RecordService service(
      factory,
      RecordServiceOptions{"capacity", shared ? 2u : 1u, 100000, timeout, std::chrono::milliseconds(1000),
                           std::chrono::milliseconds(6000), std::chrono::seconds(60), std::chrono::seconds(0)},
      metrics);
  std::mutex mutex;
  std::condition_variable changed;
  size_t running = 0, completed = 0, failed = 0;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  const auto started = Clock::now();
  // `running` counts the slots still going: a slot starts its next session as its last one
  // ends, until the deadline (outside the lock: a refused call answers at once).
  std::function<void()> launch;
  launch = [&] {
    auto session = std::make_shared<SyntheticSession>(service, [&](bool ok) {
      bool again;
      {
        std::lock_guard lock(mutex);
        ++(ok ? completed : failed);
        again = Clock::now() < deadline;
        if (!again) --running;
      }
      if (again) return launch();
      changed.notify_all();
    });
    session->start();
  };
  {
    std::lock_guard lock(mutex);
    running = in_flight;
  }
  for (size_t i = 0; i < in_flight; ++i) launch();
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return running == 0; });
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  std::printf("| record | sessions in flight | sessions/s | failed |\n|---|---:|---:|---:|\n");
  std::printf("| %s | %zu | %.0f | %zu |\n", shared ? "PostgreSQL" : record.c_str(), in_flight,
              static_cast<double>(completed) / elapsed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace bp::netbench
