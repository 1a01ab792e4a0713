// The record's contract, run against every backend: memory, SQLite (two replicas sharing one
// file) and, when BP_TEST_POSTGRES names a database (the cluster tests start one), a real
// PostgreSQL shared by two replicas. Then the record service in front of them: its queue,
// deadlines, health and the closing of what could not be recorded, over a store whose
// answers the test controls.
#include <doctest/doctest.h>
#include <sodium.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>

#include "bp/hex.hpp"
#include "store/memory_record_store.hpp"
#include "store/postgres_record_store.hpp"
#include "store/record_service.hpp"
#include "store/sqlite_record_store.hpp"

using namespace bp::server;
using bp::Ok;
using namespace std::chrono_literals;

namespace {

std::string random_hex(size_t bytes) {
  std::vector<uint8_t> b(bytes);
  randombytes_buf(b.data(), b.size());
  return bp::to_hex(b);
}

ClaimRequest claim_of(const std::string& id, const std::string& owner = "addr:127.0.0.1") {
  return ClaimRequest{id, owner, 8, 2, "{\"session_id\":\"" + id + "\",\"status\":\"aborted\",\"reason\":\"lost\"}"};
}

using Opener = std::function<std::unique_ptr<RecordStore>(const std::string& replica)>;

// What every backend shared by replicas promises; `shared` is false for memory (one replica).
void check_contract(const Opener& open, bool shared) {
  const std::string a_name = "a-" + random_hex(4), b_name = "b-" + random_hex(4);
  auto a = open(a_name);
  auto b = shared ? open(b_name) : nullptr;
  RecordStore& other = shared ? *b : *a;
  const std::string id = random_hex(16), owner = "key:" + random_hex(32);

  // An id is claimed once, whoever asks.
  REQUIRE(a->claim(claim_of(id, owner)).ok());
  CHECK(*a->claim(claim_of(id, owner)) == ClaimOutcome::Taken);
  CHECK(*other.claim(claim_of(id)) == ClaimOutcome::Taken);

  auto row = other.find(id);
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->open);
  CHECK((*row)->live.replica == a_name);
  CHECK((*row)->live.parties == 2);

  // Phases travel with the heartbeat; the owner's listing sees them on any replica.
  REQUIRE(a->heartbeat({{id, "proof_shares", 2}}, 60s, false).ok());
  auto listed = other.open_sessions(owner);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].phase == "proof_shares");
  CHECK((*listed)[0].joined == 2);
  CHECK(other.open_sessions("key:" + random_hex(32))->empty());

  // A cancel asked on any replica reaches the one running the session, once.
  CHECK(other.request_cancel("addr:10.0.0.1", {id})->empty());  // not the owner
  CHECK(*other.request_cancel(owner, {id, random_hex(16)}) == std::vector<std::string>{id});
  auto beat = a->heartbeat({}, 60s, false);
  REQUIRE(beat.ok());
  CHECK(beat->cancel == std::vector<std::string>{id});
  CHECK(a->heartbeat({}, 60s, false)->cancel.empty());

  // Only the claiming replica closes it; then it is a record, still taken.
  if (shared) {
    auto wrong = b->close(id, true, "{}");
    REQUIRE_FALSE(wrong.ok());
    CHECK_FALSE(wrong.error().store_down);
  }
  REQUIRE(a->close(id, true, "{\"status\":\"completed\"}").ok());
  CHECK_FALSE(a->close(id, true, "{}").ok());
  row = other.find(id);
  REQUIRE(row->has_value());
  CHECK_FALSE((*row)->open);
  CHECK((*row)->json == "{\"status\":\"completed\"}");
  CHECK(*other.claim(claim_of(id)) == ClaimOutcome::Taken);
  CHECK(a->open_sessions(owner)->empty());
  CHECK_FALSE(other.find(random_hex(16))->has_value());

  // An owner's cap counts its open sessions on every replica.
  const std::string capped = "key:" + random_hex(32);
  auto with_cap = [&](const std::string& new_id) {
    auto c = claim_of(new_id, capped);
    c.owner_cap = 2;
    return c;
  };
  const std::string first = random_hex(16), second = random_hex(16), third = random_hex(16);
  CHECK(*a->claim(with_cap(first)) == ClaimOutcome::Claimed);
  CHECK(*other.claim(with_cap(second)) == ClaimOutcome::Claimed);
  CHECK(*a->claim(with_cap(third)) == ClaimOutcome::OwnerAtCap);
  CHECK(*other.claim(with_cap(first)) == ClaimOutcome::Taken);  // a held id is "taken", not "at cap"
  REQUIRE(a->close(first, true, "{}").ok());
  CHECK(*a->claim(with_cap(third)) == ClaimOutcome::Claimed);
}

// A replica that falls silent loses its open sessions to its lost records, and a replica
// that restarts under its name closes what its previous run left.
void check_expiry(const Opener& open) {
  const std::string a_name = "a-" + random_hex(4), b_name = "b-" + random_hex(4);
  auto a = open(a_name);
  auto b = open(b_name);
  const std::string id = random_hex(16), left = random_hex(16);
  REQUIRE(a->claim(claim_of(id)).ok());
  REQUIRE(a->heartbeat({}, 60s, false).ok());
  std::this_thread::sleep_for(1100ms);  // SQLite's timestamps have whole seconds
  auto beat = b->heartbeat({}, 1s, false);
  REQUIRE(beat.ok());
  CHECK(beat->expired_elsewhere >= 1);
  auto row = b->find(id);
  REQUIRE(row->has_value());
  CHECK_FALSE((*row)->open);
  CHECK((*row)->json.find("lost") != std::string::npos);
  auto late = a->close(id, true, "{}");  // the presumed-dead replica comes back: refused
  REQUIRE_FALSE(late.ok());
  CHECK_FALSE(late.error().store_down);

  REQUIRE(b->claim(claim_of(left)).ok());
  b.reset();
  auto b_again = open(b_name);
  auto again = b_again->find(left);
  if (!again.ok() || !again->has_value() || (*again)->open) {
    // PostgreSQL connects (and closes its leftovers) on first use.
    REQUIRE(b_again->heartbeat({}, 60s, false).ok());
    again = b_again->find(left);
  }
  REQUIRE(again->has_value());
  CHECK_FALSE((*again)->open);
}

// One dealer process holds several connections: the second one's first use must not take
// the first one's claims for a previous run's leftovers (it did: sessions under load ended
// "no longer holds the claim" when a replica's second connection opened).
using InstanceOpener = std::function<std::unique_ptr<RecordStore>(const std::string& replica, const std::string& instance)>;
void check_connections_of_one_process(const InstanceOpener& open) {
  const std::string replica = "r-" + random_hex(4), instance = random_hex(8), id = random_hex(16);
  auto first = open(replica, instance);
  REQUIRE(first->claim(claim_of(id)).ok());
  auto second = open(replica, instance);
  REQUIRE(second->heartbeat({}, 60s, false).ok());  // its first use (PostgreSQL connects here)
  auto row = second->find(id);
  REQUIRE(row->has_value());
  CHECK((*row)->open);
  CHECK(first->close(id, true, "{}").ok());
}

// Two live processes under one name: the one that beats after the other notices.
void check_name_shared(const InstanceOpener& open) {
  const std::string replica = "dup-" + random_hex(4);
  auto one = open(replica, random_hex(8));
  auto two = open(replica, random_hex(8));
  REQUIRE(one->heartbeat({}, 60s, false).ok());
  REQUIRE(two->heartbeat({}, 60s, false).ok());  // its first beat: a restart looks the same
  auto again = one->heartbeat({}, 60s, false);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().reason.find("replica names must be unique") != std::string::npos);
  CHECK(two->heartbeat({}, 60s, false).ok() == false);
}

}  // namespace

TEST_CASE("memory record: the contract for one replica, bounded") {
  check_contract([](const std::string& replica) { return make_memory_record_store(replica, 16); }, false);
  auto store = make_memory_record_store("m", 2);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(random_hex(16));
    REQUIRE(store->claim(claim_of(ids.back())).ok());
    REQUIRE(store->close(ids.back(), true, "{}").ok());
  }
  CHECK_FALSE(store->find(ids[0])->has_value());  // the oldest closed record gave way
  CHECK(store->find(ids[2])->has_value());
}

TEST_CASE("SQLite record: the contract for two replicas sharing one file, expiry, restart, prune") {
  const auto dir = std::filesystem::temp_directory_path() / ("bp-store-" + random_hex(6));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "outcomes.db").string();
  const Opener open = [&](const std::string& replica) {
    return open_sqlite_record_store(path, replica, random_hex(8), 2000ms);  // each open: a new process
  };
  check_contract(open, true);
  check_expiry(open);
  check_connections_of_one_process([&](const std::string& replica, const std::string& instance) {
    return open_sqlite_record_store(path, replica, instance, 2000ms);
  });
  check_name_shared([&](const std::string& replica, const std::string& instance) {
    return open_sqlite_record_store(path, replica, instance, 2000ms);
  });

  auto store = open("p");
  const std::string id = random_hex(16);
  REQUIRE(store->claim(claim_of(id)).ok());
  REQUIRE(store->close(id, false, "{}").ok());
  std::this_thread::sleep_for(1100ms);
  CHECK(*store->prune(0s) >= 1);
  CHECK_FALSE(store->find(id)->has_value());
  std::filesystem::remove_all(dir);
}

TEST_CASE("SQLite record: records of the previous release move to the new table") {
  const auto dir = std::filesystem::temp_directory_path() / ("bp-store-" + random_hex(6));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "old.db").string();
  {
    auto store = open_sqlite_record_store(path, "x", random_hex(8), 1000ms);
  }
  // As if an earlier release had written it: its table session_outcomes holds the record.
  const std::string id = random_hex(16);
  const std::string sql = "sqlite3 '" + path + "' \"CREATE TABLE session_outcomes (id TEXT PRIMARY KEY, ok INTEGER NOT NULL,"
                          " json TEXT NOT NULL, recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);"
                          " INSERT INTO session_outcomes (id, ok, json)"
                          " VALUES ('" + id + "', 1, '{\\\"old\\\":true}')\"";
  if (std::system(sql.c_str()) != 0) {
    MESSAGE("sqlite3 command not installed: migration check skipped");
    return;
  }
  auto store = open_sqlite_record_store(path, "x", random_hex(8), 1000ms);
  auto row = store->find(id);
  REQUIRE(row->has_value());
  CHECK((*row)->json == "{\"old\":true}");
  CHECK(*store->claim(claim_of(id)) == ClaimOutcome::Taken);
  std::filesystem::remove_all(dir);
}

TEST_CASE("PostgreSQL record: the contract for two replicas sharing one database") {
  const char* url = std::getenv("BP_TEST_POSTGRES");
  if (!url || !*url) {
    MESSAGE("BP_TEST_POSTGRES not set: run by tests/cluster/test_cluster.sh against a real server");
    return;
  }
  const Opener open = [&](const std::string& replica) {
    return make_postgres_record_store(PostgresOptions{url, replica, random_hex(8), 3000ms});
  };
  check_contract(open, true);
  check_expiry(open);
  check_connections_of_one_process([&](const std::string& replica, const std::string& instance) {
    return make_postgres_record_store(PostgresOptions{url, replica, instance, 3000ms});
  });
  check_name_shared([&](const std::string& replica, const std::string& instance) {
    return make_postgres_record_store(PostgresOptions{url, replica, instance, 3000ms});
  });
}

TEST_CASE("PostgreSQL record: a database that does not answer is an error within the timeout") {
  auto store = make_postgres_record_store(PostgresOptions{"postgresql://nobody@127.0.0.1:1/none", "r", "i", 2000ms});
  const auto started = std::chrono::steady_clock::now();
  auto claim = store->claim(claim_of(random_hex(16)));
  REQUIRE_FALSE(claim.ok());
  CHECK(claim.error().store_down);
  CHECK(claim.error().reason.find("cannot connect") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  CHECK(is_postgres_url("postgresql://h/db"));
  CHECK(is_postgres_url("postgres://h/db"));
  CHECK_FALSE(is_postgres_url("/var/lib/bp/outcomes.db"));
}

namespace {

// A backend whose calls the test holds, fails or lets through.
class ControlledStore final : public RecordStore {
 public:
  std::atomic<bool> fail{false};
  std::atomic<int> delay_ms{0};
  std::atomic<int> closes{0};

  StoreResult<ClaimOutcome> claim(const ClaimRequest&) override {
    if (auto e = gate()) return *e;
    return ClaimOutcome::Claimed;
  }
  StoreResult<Ok> close(const std::string&, bool, const std::string&) override {
    if (auto e = gate()) return *e;
    ++closes;
    return Ok{};
  }
  StoreResult<std::optional<SessionRow>> find(const std::string&) override {
    if (auto e = gate()) return *e;
    return std::optional<SessionRow>{};
  }
  StoreResult<std::vector<OpenSessionRow>> open_sessions(const std::string&) override {
    return std::vector<OpenSessionRow>{};
  }
  StoreResult<std::vector<std::string>> request_cancel(const std::string&, const std::vector<std::string>&) override {
    return std::vector<std::string>{};
  }
  StoreResult<HeartbeatAnswer> heartbeat(const std::vector<PhaseUpdate>&, std::chrono::seconds, bool) override {
    if (auto e = gate()) return *e;
    return HeartbeatAnswer{};
  }
  StoreResult<size_t> prune(std::chrono::seconds) override { return size_t{0}; }

 private:
  std::optional<StoreError> gate() {
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    if (fail) return StoreError{"disk full"};
    return std::nullopt;
  }
};

struct Harness {
  ControlledStore* store = nullptr;
  Metrics metrics;
  std::unique_ptr<RecordService> service;
  explicit Harness(RecordServiceOptions options) {
    service = std::make_unique<RecordService>(
        [this]() -> std::unique_ptr<RecordStore> {
          auto s = std::make_unique<ControlledStore>();
          store = s.get();
          return s;
        },
        options, metrics);
  }
};

template <class T>
T await(std::function<void(std::function<void(T)>)> call) {
  std::promise<T> promise;
  auto future = promise.get_future();
  call([&promise](T value) { promise.set_value(std::move(value)); });
  REQUIRE(future.wait_for(10s) == std::future_status::ready);
  return future.get();
}

}  // namespace

TEST_CASE("record service: a full queue answers busy at once; closes are always taken") {
  Harness h(RecordServiceOptions{"r", 1, 2, 5000ms, 60000ms, 180s, 0s});
  h.store->delay_ms = 300;
  std::atomic<int> answered{0};
  auto count = [&answered](auto) { ++answered; };
  int admitted = 0;
  for (int i = 0; i < 6; ++i) admitted += h.service->claim(claim_of(random_hex(16)), count);
  CHECK(admitted <= 3);  // one running, two waiting
  CHECK(admitted >= 2);
  h.service->close("x", true, "{}", count);  // past the cap: still queued
  for (int i = 0; i < 100 && answered < admitted + 1; ++i) std::this_thread::sleep_for(50ms);
  CHECK(answered == admitted + 1);
}

TEST_CASE("record service: a call that waits past its deadline ends with a timeout, not a hang") {
  Harness h(RecordServiceOptions{"r", 1, 16, 200ms, 60000ms, 180s, 0s});
  h.store->delay_ms = 400;
  h.service->claim(claim_of(random_hex(16)), [](auto) {});  // occupies the one thread
  const auto started = std::chrono::steady_clock::now();
  auto result = await<StoreResult<std::optional<SessionRow>>>(
      [&](auto done) { REQUIRE(h.service->find(random_hex(16), done)); });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().reason.find("did not answer within 200 ms") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("record service: down while calls fail, back by itself, and what was unrecorded gets closed") {
  Harness h(RecordServiceOptions{"r", 1, 16, 2000ms, 100ms, 180s, 0s});
  CHECK(h.service->healthy());
  h.store->fail = true;
  auto closed = await<StoreResult<Ok>>([&](auto done) { h.service->close("s1", true, "{}", done); });
  REQUIRE_FALSE(closed.ok());
  CHECK_FALSE(h.service->healthy());
  CHECK(h.service->failure() == "disk full");
  CHECK(h.metrics.prometheus_text().find("bp_store_up 0") != std::string::npos);
  CHECK(h.metrics.prometheus_text().find("bp_store_failures_total{operation=\"close\"} 1") != std::string::npos);
  h.service->close_when_back("s1", "{\"reason\":\"outcome could not be recorded\"}");
  std::this_thread::sleep_for(300ms);
  CHECK(h.store->closes == 0);
  h.store->fail = false;  // space is back: the next heartbeat finds it
  for (int i = 0; i < 100 && !h.service->healthy(); ++i) std::this_thread::sleep_for(20ms);
  CHECK(h.service->healthy());
  for (int i = 0; i < 100 && h.store->closes == 0; ++i) std::this_thread::sleep_for(20ms);
  CHECK(h.store->closes == 1);
  CHECK(h.metrics.prometheus_text().find("bp_store_up 1") != std::string::npos);
}

TEST_CASE("record service: stopping answers every call still queued") {
  auto h = std::make_unique<Harness>(RecordServiceOptions{"r", 1, 16, 5000ms, 60000ms, 180s, 0s});
  h->store->delay_ms = 200;
  std::atomic<int> errors{0};
  for (int i = 0; i < 5; ++i)
    h->service->claim(claim_of(random_hex(16)), [&errors](StoreResult<ClaimOutcome> r) { errors += !r.ok(); });
  h->service->stop();
  CHECK(errors >= 4);  // all but the one running
  bool answered = false;
  h->service->close("late", true, "{}", [&answered](StoreResult<Ok> r) { answered = !r.ok(); });
  CHECK(answered);
}
