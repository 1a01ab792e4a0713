// The record's contract, run against every engine: SQLite in memory (a dealer without
// --record), a SQLite file shared by two replicas, and, when BP_TEST_POSTGRES names a
// database (the cluster tests start one), a real PostgreSQL shared by two replicas: claims,
// checkpoints, epochs that fence a replica that was taken over, takeovers that exactly one
// racing replica wins, hand-over, expiry, and a record written by the previous schema opened
// by this one. Then the record service in front of them: its queue, deadlines, health, lease
// and the closing of what could not be recorded, over a store whose answers the test controls.
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
#include "record/postgres_connection.hpp"
#include "record/record_service.hpp"
#include "record/schema.hpp"
#include "record/sql_record_store.hpp"
#include "record/sqlite_connection.hpp"

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
  return ClaimRequest{id, owner,    8, 2, "{\"session_id\":\"" + id + "\",\"status\":\"aborted\",\"reason\":\"lost\"}",
                      0,  {1, 2, 3}};
}

Checkpoint checkpoint_of(const std::string& id, uint64_t epoch, std::vector<uint8_t> bytes, const char* phase = "join",
                         uint32_t joined = 1) {
  return Checkpoint{id, epoch, std::move(bytes), phase, joined};
}

// Each call opens the record as a new process would (its own instance); `instance` pins it.
using Opener = std::function<std::unique_ptr<RecordStore>(const std::string& replica, const std::string& instance)>;
std::unique_ptr<RecordStore> open_new(const Opener& open, const std::string& replica) {
  return open(replica, random_hex(8));
}

bool fenced(const RecordResult<Ok>& r) { return !r.ok() && !r.error().down(); }

// What every engine promises; `shared` is false for memory (one replica).
void check_contract(const Opener& open, bool shared) {
  const std::string a_name = "a-" + random_hex(4), b_name = "b-" + random_hex(4);
  auto a = open_new(open, a_name);
  auto b = shared ? open_new(open, b_name) : nullptr;
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

  // Checkpoints carry the phase and seats that listings show, on any replica.
  REQUIRE(a->checkpoint(checkpoint_of(id, kFirstEpoch, {4, 5}, "proof_shares", 2)).ok());
  auto listed = other.open_sessions(owner);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].phase == "proof_shares");
  CHECK((*listed)[0].joined == 2);
  CHECK(other.open_sessions("key:" + random_hex(32))->empty());
  CHECK(fenced(a->checkpoint(checkpoint_of(id, kFirstEpoch + 1, {6}))));  // an epoch it does not hold
  // Several at once, in one transaction, each with its own answer.
  auto batch = a->checkpoints(
      {checkpoint_of(id, kFirstEpoch, {4, 5}, "proof_shares", 2), checkpoint_of(random_hex(16), kFirstEpoch, {1})});
  REQUIRE(batch.ok());
  REQUIRE(batch->size() == 2);
  CHECK((*batch)[0].ok());
  CHECK(fenced((*batch)[1]));
  if (shared) CHECK(fenced(b->checkpoint(checkpoint_of(id, kFirstEpoch, {6}))));  // a replica that does not hold it
  // Claims, checkpoints and closes of several sessions in one transaction, each answered as
  // alone: a new id claimed, a held one taken, a checkpoint and a close of sessions it holds,
  // a close at an epoch it does not hold refused.
  {
    const std::string fresh = random_hex(16), ending = random_hex(16);
    REQUIRE(a->claim(claim_of(ending, owner)).ok());
    WriteBatch writes;
    writes.claims = {claim_of(fresh, owner), claim_of(id, owner)};
    writes.checkpoints = {checkpoint_of(id, kFirstEpoch, {4, 5}, "proof_shares", 2)};
    writes.closes = {CloseRequest{ending, kFirstEpoch, true, "{\"status\":\"completed\"}"},
                     CloseRequest{fresh, kFirstEpoch + 1, true, "{}"}};
    auto answers = a->write_batch(writes);
    REQUIRE(answers.ok());
    CHECK(*answers->claims[0] == ClaimOutcome::Claimed);
    CHECK(*answers->claims[1] == ClaimOutcome::Taken);
    CHECK(answers->checkpoints[0].ok());
    CHECK(answers->closes[0].ok());
    CHECK(fenced(answers->closes[1]));  // claimed in this batch at epoch 1, so not at 2
    CHECK((*other.find(ending))->json == "{\"status\":\"completed\"}");
    REQUIRE(a->close(fresh, kFirstEpoch, false, "{}").ok());
  }

  // A cancel asked on any replica reaches the one running the session, once.
  CHECK(other.request_cancel("addr:10.0.0.1", {id})->empty());  // not the owner
  CHECK(*other.request_cancel(owner, {id, random_hex(16)}) == std::vector<std::string>{id});
  auto beat = a->heartbeat(60s, false);
  REQUIRE(beat.ok());
  CHECK(beat->cancel == std::vector<std::string>{id});
  REQUIRE(beat->held.size() == 1);
  CHECK(beat->held[0].id == id);
  CHECK(beat->held[0].epoch == kFirstEpoch);
  CHECK(a->heartbeat(60s, false)->cancel.empty());

  // Only the holder closes it, at its epoch; then it is a record, still taken. Closing again
  // with the same outcome is the same write (an answer lost on the way); another is refused.
  if (shared) CHECK(fenced(b->close(id, kFirstEpoch, true, "{}")));
  CHECK(fenced(a->close(id, kFirstEpoch + 1, true, "{}")));
  REQUIRE(a->close(id, kFirstEpoch, true, "{\"status\":\"completed\"}").ok());
  CHECK(a->close(id, kFirstEpoch, true, "{\"status\":\"completed\"}").ok());
  CHECK(fenced(a->close(id, kFirstEpoch, false, "{}")));
  row = other.find(id);
  REQUIRE(row->has_value());
  CHECK_FALSE((*row)->open);
  CHECK((*row)->json == "{\"status\":\"completed\"}");
  CHECK(*other.claim(claim_of(id)) == ClaimOutcome::Taken);
  CHECK(a->open_sessions(owner)->empty());
  CHECK(a->heartbeat(60s, false)->held.empty());
  CHECK_FALSE(other.find(random_hex(16))->has_value());
  auto ended = other.take_over(id, 60000ms);
  REQUIRE(ended.ok());
  CHECK(ended->kind == Takeover::Kind::Ended);
  CHECK(ended->outcome_json == "{\"status\":\"completed\"}");
  CHECK(other.take_over(random_hex(16), 60000ms)->kind == Takeover::Kind::Unknown);

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
  REQUIRE(a->close(first, kFirstEpoch, true, "{}").ok());
  CHECK(*a->claim(with_cap(third)) == ClaimOutcome::Claimed);
}

// Takeover between two replicas: a live holder is asked and hands over; a silent one is
// taken from; the old holder's every later write is refused; a hand-over is the asker's first.
void check_takeover(const Opener& open) {
  const std::string a_name = "a-" + random_hex(4), b_name = "b-" + random_hex(4), c_name = "c-" + random_hex(4);
  auto a = open_new(open, a_name);
  auto b = open_new(open, b_name);
  auto c = open_new(open, c_name);
  const std::string id = random_hex(16);
  REQUIRE(a->claim(claim_of(id)).ok());
  REQUIRE(a->checkpoint(checkpoint_of(id, kFirstEpoch, {7, 7, 7})).ok());
  REQUIRE(a->heartbeat(60s, false).ok());

  // A live holder: b may not take it, and asks for it.
  auto held = b->take_over(id, 60000ms);
  REQUIRE(held.ok());
  REQUIRE(held->kind == Takeover::Kind::Held);
  CHECK(held->holder == a_name);
  CHECK(held->checkpoint == std::vector<uint8_t>{7, 7, 7});
  REQUIRE(b->request_release(id).ok());
  auto beat = a->heartbeat(60s, false);
  REQUIRE(beat.ok());
  CHECK(beat->release == std::vector<std::string>{id});
  REQUIRE(a->release(id, kFirstEpoch).ok());
  // Released to b, which asked: c may not have it first.
  auto not_yet = c->take_over(id, 60000ms);
  REQUIRE(not_yet.ok());
  CHECK(not_yet->kind == Takeover::Kind::Held);
  CHECK(not_yet->holder == b_name);
  auto taken = b->take_over(id, 60000ms);
  REQUIRE(taken.ok());
  REQUIRE(taken->kind == Takeover::Kind::Taken);
  CHECK(taken->epoch == kFirstEpoch + 1);
  CHECK(taken->checkpoint == std::vector<uint8_t>{7, 7, 7});
  // The old holder is fenced: no checkpoint, no outcome, no release.
  CHECK(fenced(a->checkpoint(checkpoint_of(id, kFirstEpoch, {8}))));
  CHECK(fenced(a->close(id, kFirstEpoch, true, "{\"from\":\"a\"}")));
  CHECK(fenced(a->release(id, kFirstEpoch)));
  CHECK(a->heartbeat(60s, false)->held.empty());  // what a paused replica learns when it wakes
  auto b_beat = b->heartbeat(60s, false);
  REQUIRE(b_beat->held.size() == 1);
  CHECK(b_beat->held[0].epoch == kFirstEpoch + 1);

  // A silent holder (b: no beat for longer than the bound) is taken from, and exactly one of
  // two replicas racing for it wins.
  REQUIRE(b->checkpoint(checkpoint_of(id, kFirstEpoch + 1, {9})).ok());
  std::this_thread::sleep_for(1200ms);
  REQUIRE(a->heartbeat(60s, false).ok());
  REQUIRE(c->heartbeat(60s, false).ok());
  std::atomic<int> winners{0};
  std::thread t1([&] { winners += a->take_over(id, 1000ms)->kind == Takeover::Kind::Taken; });
  std::thread t2([&] { winners += c->take_over(id, 1000ms)->kind == Takeover::Kind::Taken; });
  t1.join();
  t2.join();
  CHECK(winners == 1);
  CHECK(fenced(b->close(id, kFirstEpoch + 1, true, "{}")));
  auto row = c->find(id);
  REQUIRE(row->has_value());
  const std::string holder = (*row)->live.replica;
  CHECK((holder == a_name || holder == c_name));
  RecordStore& winner = holder == a_name ? *a : *c;
  REQUIRE(winner.close(id, kFirstEpoch + 2, true, "{\"won\":true}").ok());

  // A session without a checkpoint (claimed by a dealer of the previous schema) never moves.
  const std::string legacy = random_hex(16);
  auto bare = claim_of(legacy);
  bare.checkpoint.clear();
  REQUIRE(a->claim(bare).ok());
  REQUIRE(a->release(legacy, kFirstEpoch).ok());
  CHECK(c->take_over(legacy, 1000ms)->kind == Takeover::Kind::Held);
}

// Sessions nobody runs are closed with their lost records: those of a replica gone silent,
// and those released and not taken over; a replica that restarts under its name releases
// what its previous run left, and takes it over when its parties come back.
void check_expiry(const Opener& open) {
  const std::string a_name = "a-" + random_hex(4), b_name = "b-" + random_hex(4);
  auto a = open_new(open, a_name);
  auto b = open_new(open, b_name);
  const std::string silent = random_hex(16), released = random_hex(16), left = random_hex(16);
  REQUIRE(a->claim(claim_of(silent)).ok());
  REQUIRE(a->claim(claim_of(released)).ok());
  REQUIRE(a->release(released, kFirstEpoch).ok());
  REQUIRE(a->heartbeat(60s, false).ok());
  std::this_thread::sleep_for(1200ms);
  auto beat = b->heartbeat(1s, false);
  REQUIRE(beat.ok());
  CHECK(beat->expired_elsewhere >= 2);
  for (const auto& id : {silent, released}) {
    auto row = b->find(id);
    REQUIRE(row->has_value());
    CHECK_FALSE((*row)->open);
    CHECK((*row)->json.find("lost") != std::string::npos);
  }
  CHECK(fenced(a->close(silent, kFirstEpoch, true, "{}")));  // the presumed-dead replica comes back: refused

  const std::string instance = random_hex(8);
  auto b_first = open(b_name, instance);
  REQUIRE(b_first->claim(claim_of(left)).ok());
  b_first.reset();
  auto b_again = open_new(open, b_name);  // a restart: another process under the same name
  auto again = b_again->take_over(left, 60000ms);
  REQUIRE(again.ok());
  CHECK(again->kind == Takeover::Kind::Taken);
  CHECK(again->epoch == kFirstEpoch + 1);
}

// One dealer process holds several connections: the second one's first use must not take
// the first one's claims for a previous run's leftovers.
void check_connections_of_one_process(const Opener& open) {
  const std::string replica = "r-" + random_hex(4), instance = random_hex(8), id = random_hex(16);
  auto first = open(replica, instance);
  REQUIRE(first->claim(claim_of(id)).ok());
  auto second = open(replica, instance);
  REQUIRE(second->heartbeat(60s, false).ok());  // its first use (PostgreSQL connects here)
  CHECK(second->heartbeat(60s, false)->held.size() == 1);
  CHECK(first->close(id, kFirstEpoch, true, "{}").ok());
}

// Two live processes under one name: the one that beats after the other notices.
void check_name_shared(const Opener& open) {
  const std::string replica = "dup-" + random_hex(4);
  auto one = open_new(open, replica);
  auto two = open_new(open, replica);
  REQUIRE(one->heartbeat(60s, false).ok());
  REQUIRE(two->heartbeat(60s, false).ok());  // its first beat: a restart looks the same
  auto again = one->heartbeat(60s, false);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().reason.find("replica names must be unique") != std::string::npos);
  CHECK(two->heartbeat(60s, false).ok() == false);
}

void check_all(const Opener& open) {
  check_contract(open, true);
  check_takeover(open);
  check_expiry(open);
  check_connections_of_one_process(open);
  check_name_shared(open);
}

// A record as the previous schema's dealer left it: an open claim, a closed record and a
// replica's heartbeat, written with that dealer's own statements.
void write_version_1(SqlConnection& db, const std::string& open_id, const std::string& closed_id) {
  REQUIRE(migrate_schema_to(db, 1).ok());
  REQUIRE(*schema_version(db) == 1);
  const bool pg = db.dialect() == SqlDialect::Postgres;
  const std::string sessions = pg ? "bp_sessions" : "sessions", replicas = pg ? "bp_replicas" : "replicas";
  const std::string t = pg ? "true" : "1", f = pg ? "false" : "0";
  REQUIRE(db.run("INSERT INTO " + sessions +
                     " (id, replica, instance, open, owner, bits, parties, json)"
                     " VALUES ($1, 'old-replica', 'i0', " +
                     t + ", 'addr:127.0.0.1', 8, 2, '{\"status\":\"aborted\"}')",
                 {open_id})
              .ok());
  REQUIRE(db.run("INSERT INTO " + sessions +
                     " (id, replica, open, ok, json, phase, recorded_at)"
                     " VALUES ($1, 'old-replica', " +
                     f + ", " + t + ", '{\"old\":true}', 'done', " + (pg ? "now()" : "CURRENT_TIMESTAMP") + ")",
                 {closed_id})
              .ok());
  REQUIRE(db.run("INSERT INTO " + replicas + " (name, heartbeat_at, instance) VALUES ('old-replica', " +
                 (pg ? "now()" : "strftime('%Y-%m-%d %H:%M:%f', 'now')") + ", 'i0')")
              .ok());
}

void check_upgrade(std::unique_ptr<SqlConnection> old_db,
                   const std::function<std::unique_ptr<SqlConnection>()>& reopen) {
  const std::string open_id = random_hex(16), closed_id = random_hex(16);
  write_version_1(*old_db, open_id, closed_id);
  old_db.reset();
  auto store = make_sql_record_store(reopen(), SqlRecordOptions{"new", random_hex(8), 0}, true);
  auto closed = store->find(closed_id);
  REQUIRE(closed.ok());
  REQUIRE(closed->has_value());
  CHECK((*closed)->json == "{\"old\":true}");
  CHECK(*store->claim(claim_of(closed_id)) == ClaimOutcome::Taken);
  auto open_row = store->find(open_id);
  REQUIRE(open_row->has_value());
  CHECK((*open_row)->open);
  CHECK((*open_row)->live.replica == "old-replica");
  // Held by a live dealer of the old schema, with no checkpoint: it stays where it is.
  CHECK(store->take_over(open_id, 60000ms)->kind == Takeover::Kind::Held);
  const std::string fresh = random_hex(16);
  REQUIRE(store->claim(claim_of(fresh)).ok());
  // Ours in the record but (as far as the record knows) not running: taken back at once.
  CHECK(store->take_over(fresh, 60000ms)->kind == Takeover::Kind::Taken);
  auto version_check = reopen();
  CHECK(*schema_version(*version_check) == kSchemaVersion);
}

// Several statements at once (the batched writes' run_all): answered in order, each as
// run() answers it; one that fails fails the call with its reason, and the connection
// serves the next call. On PostgreSQL this is pipeline mode, a failure in the middle
// included (the server skips the rest up to the sync).
void check_run_all(SqlConnection& db) {
  const std::string table = "t_" + random_hex(6);
  REQUIRE(db.run("CREATE TABLE " + table + " (k INTEGER PRIMARY KEY, v TEXT)").ok());
  auto answers = db.run_all({{"INSERT INTO " + table + " (k, v) VALUES ($1, $2)", {1, "one"}},
                             {"INSERT INTO " + table + " (k, v) VALUES ($1, $2)", {2, "two"}},
                             {"UPDATE " + table + " SET v = $2 WHERE k > $1", {5, "none"}},
                             {"SELECT v FROM " + table + " WHERE k = $1", {2}},
                             {"SELECT k FROM " + table + " ORDER BY k", {}}});
  REQUIRE(answers.ok());
  REQUIRE(answers->size() == 5);
  CHECK((*answers)[0].affected == 1);
  CHECK((*answers)[2].affected == 0);
  REQUIRE((*answers)[3].rows.size() == 1);
  CHECK((*answers)[3].rows[0].text(0) == "two");
  REQUIRE((*answers)[4].rows.size() == 2);
  CHECK((*answers)[4].rows[1].integer(0) == 2);
  CHECK(db.run_all({})->empty());

  {
    SqlTransaction tx(db);
    REQUIRE(tx.begin().ok());
    auto failed = db.run_all({{"INSERT INTO " + table + " (k, v) VALUES ($1, $2)", {3, "three"}},
                              {"INSERT INTO " + table + " (k, v) VALUES ($1, $2)", {1, "again"}},
                              {"INSERT INTO " + table + " (k, v) VALUES ($1, $2)", {4, "four"}}});
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.error().down());
    const std::string& why = failed.error().reason;
    CAPTURE(why);
    CHECK((why.find("unique") != std::string::npos || why.find("UNIQUE") != std::string::npos));
  }  // rolled back: nothing of the failed batch stays
  auto after = db.run("SELECT k FROM " + table + " ORDER BY k");
  REQUIRE(after.ok());
  REQUIRE(after->rows.size() == 2);
  CHECK(after->rows[1].integer(0) == 2);
  REQUIRE(db.run("DROP TABLE " + table).ok());
}

std::unique_ptr<RecordStore> sqlite_store(const std::string& path, const std::string& replica,
                                          const std::string& instance, size_t keep_closed = 0) {
  return make_sql_record_store(open_sqlite_connection(path, 2000ms), SqlRecordOptions{replica, instance, keep_closed},
                               true);
}

}  // namespace

TEST_CASE("SQL statements are written once and rendered for each engine") {
  CHECK(render_sql("SELECT $1, $12 WHERE t < {ago:2}", SqlDialect::Postgres) ==
        "SELECT $1, $12 WHERE t < (now() - make_interval(secs => CAST($2 AS double precision) / 1000))");
  CHECK(render_sql("UPDATE x SET at = {now} WHERE id = $1", SqlDialect::Sqlite) ==
        "UPDATE x SET at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE id = ?1");
}

TEST_CASE("several statements at once: in order, and one failure fails them all (SQLite)") {
  check_run_all(*open_sqlite_connection(":memory:", 1000ms));
}

TEST_CASE("the record in memory: the contract for one replica, bounded") {
  check_contract([](const std::string& replica,
                    const std::string& instance) { return sqlite_store(":memory:", replica, instance); },
                 false);
  auto store = sqlite_store(":memory:", "m", random_hex(8), 2);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(random_hex(16));
    REQUIRE(store->claim(claim_of(ids.back())).ok());
    REQUIRE(store->close(ids.back(), kFirstEpoch, true, "{}").ok());
    std::this_thread::sleep_for(5ms);  // distinct record times
  }
  CHECK_FALSE(store->find(ids[0])->has_value());  // the oldest closed record gave way
  CHECK(store->find(ids[2])->has_value());
  // A bound of 16 is kept an eighth at a time: never more than 18 closed records, and the
  // newest 16 always there.
  auto bounded = sqlite_store(":memory:", "m", random_hex(8), 16);
  ids.clear();
  for (int i = 0; i < 60; ++i) {
    ids.push_back(random_hex(16));
    REQUIRE(bounded->claim(claim_of(ids.back())).ok());
    REQUIRE(bounded->close(ids.back(), kFirstEpoch, true, "{}").ok());
    std::this_thread::sleep_for(2ms);
    size_t kept = 0;
    for (const auto& id : ids) kept += bounded->find(id)->has_value();
    CHECK(kept <= 18);
    for (size_t k = ids.size() >= 16 ? ids.size() - 16 : 0; k < ids.size(); ++k)
      CHECK(bounded->find(ids[k])->has_value());
  }
}

TEST_CASE("SQLite record: two replicas sharing one file; takeover, expiry, restart, prune") {
  const auto dir = std::filesystem::temp_directory_path() / ("bp-store-" + random_hex(6));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "outcomes.db").string();
  check_all(
      [&](const std::string& replica, const std::string& instance) { return sqlite_store(path, replica, instance); });

  auto store = sqlite_store(path, "p", random_hex(8));
  const std::string id = random_hex(16);
  REQUIRE(store->claim(claim_of(id)).ok());
  REQUIRE(store->close(id, kFirstEpoch, false, "{}").ok());
  // A closed session keeps its outcome, not its checkpoint (only an open one is taken over).
  auto raw = open_sqlite_connection(path, 1000ms)->run("SELECT checkpoint FROM bp_sessions WHERE id = $1", {id});
  REQUIRE(raw.ok());
  REQUIRE(raw->rows.size() == 1);
  CHECK(raw->rows[0].text(0).empty());
  std::this_thread::sleep_for(50ms);
  CHECK(*store->prune(0s) >= 1);
  CHECK_FALSE(store->find(id)->has_value());
  std::filesystem::remove_all(dir);
}

TEST_CASE("SQLite record: a record of the previous schema opens, keeps its records, and is migrated once") {
  const auto dir = std::filesystem::temp_directory_path() / ("bp-store-" + random_hex(6));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "v1.db").string();
  check_upgrade(open_sqlite_connection(path, 1000ms), [&] { return open_sqlite_connection(path, 1000ms); });
  // A schema newer than this dealer's is refused with the reason, and nothing is changed.
  auto db = open_sqlite_connection(path, 1000ms);
  REQUIRE(db->run("UPDATE bp_schema SET version = 99").ok());
  CHECK_THROWS_WITH_AS(sqlite_store(path, "x", random_hex(8)), doctest::Contains("newer than this dealer's"),
                       std::runtime_error);
  // The first releases' table is named, not silently dropped.
  const std::string older = (dir / "v0.db").string();
  REQUIRE(open_sqlite_connection(older, 1000ms)->run_script("CREATE TABLE session_outcomes (id TEXT)").ok());
  CHECK_THROWS_WITH_AS(sqlite_store(older, "x", random_hex(8)), doctest::Contains("session_outcomes"),
                       std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("PostgreSQL record: two replicas sharing one database; takeover, expiry, and the previous schema") {
  const char* url = std::getenv("BP_TEST_POSTGRES");
  if (!url || !*url) {
    MESSAGE("BP_TEST_POSTGRES not set: run by tests/cluster/test_cluster.sh against a real server");
    return;
  }
  auto connect = [&](const std::string& conninfo) {
    return make_postgres_connection(PostgresOptions{conninfo, 3000ms});
  };
  check_all([&](const std::string& replica, const std::string& instance) {
    return make_sql_record_store(connect(url), SqlRecordOptions{replica, instance, 0}, false);
  });
  check_run_all(*connect(url));
  // The previous schema in a schema of its own, so the shared tables stay as they are.
  const std::string schema = "v1_" + random_hex(6);
  REQUIRE(connect(url)->run("CREATE SCHEMA " + schema).ok());
  const std::string in_schema = std::string(url) + (std::string(url).find('?') == std::string::npos ? "?" : "&") +
                                "options=-csearch_path%3D" + schema;
  check_upgrade(connect(in_schema), [&] { return connect(in_schema); });
  REQUIRE(connect(url)->run("DROP SCHEMA " + schema + " CASCADE").ok());
}

TEST_CASE("PostgreSQL record: a database that does not answer is an error within the timeout") {
  auto store =
      make_sql_record_store(make_postgres_connection(PostgresOptions{"postgresql://nobody@127.0.0.1:1/none", 2000ms}),
                            SqlRecordOptions{"r", "i", 0}, false);
  const auto started = std::chrono::steady_clock::now();
  auto claim = store->claim(claim_of(random_hex(16)));
  REQUIRE_FALSE(claim.ok());
  CHECK(claim.error().down());
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
  std::atomic<bool> fenced{false};  // closes refused: another replica holds the session
  std::atomic<int> delay_ms{0};
  std::atomic<int> closes{0};

  RecordResult<ClaimOutcome> claim(const ClaimRequest&) override {
    if (auto e = gate()) return *e;
    return ClaimOutcome::Claimed;
  }
  RecordResult<Ok> checkpoint(const Checkpoint&) override {
    if (auto e = gate()) return *e;
    return Ok{};
  }
  RecordResult<std::vector<RecordResult<Ok>>> checkpoints(const std::vector<Checkpoint>& batch) override {
    if (auto e = gate()) return *e;
    return std::vector<RecordResult<Ok>>(batch.size(), Ok{});
  }
  RecordResult<Ok> close(const std::string& id, uint64_t, bool, const std::string&) override {
    if (auto e = gate()) return *e;
    if (fenced) return RecordError{"this dealer no longer holds session " + id, RecordErrorKind::Fenced};
    ++closes;
    return Ok{};
  }
  RecordResult<Ok> release(const std::string&, uint64_t) override { return Ok{}; }
  RecordResult<Takeover> take_over(const std::string&, std::chrono::milliseconds) override { return Takeover{}; }
  RecordResult<Ok> request_release(const std::string&) override { return Ok{}; }
  RecordResult<std::optional<SessionRow>> find(const std::string&) override {
    if (auto e = gate()) return *e;
    return std::optional<SessionRow>{};
  }
  RecordResult<std::vector<OpenSessionRow>> open_sessions(const std::string&) override {
    return std::vector<OpenSessionRow>{};
  }
  RecordResult<std::vector<std::string>> request_cancel(const std::string&, const std::vector<std::string>&) override {
    return std::vector<std::string>{};
  }
  RecordResult<HeartbeatAnswer> heartbeat(std::chrono::seconds, bool) override {
    if (auto e = gate()) return *e;
    return HeartbeatAnswer{};
  }
  RecordResult<size_t> prune(std::chrono::seconds) override { return size_t{0}; }

 private:
  std::optional<RecordError> gate() {
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    if (fail) return RecordError{"disk full"};
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
  Harness h(RecordServiceOptions{"r", 1, 2, 5000ms, 60000ms, 120000ms, 180s, 0s});
  h.store->delay_ms = 300;
  std::atomic<int> answered{0};
  auto count = [&answered](auto) { ++answered; };
  int admitted = 0;
  for (int i = 0; i < 6; ++i) admitted += h.service->claim(claim_of(random_hex(16)), count);
  CHECK(admitted <= 3);  // one running, two waiting
  CHECK(admitted >= 2);
  h.service->close("x", kFirstEpoch, true, "{}", count);  // past the cap: still queued
  for (int i = 0; i < 100 && answered < admitted + 1; ++i) std::this_thread::sleep_for(50ms);
  CHECK(answered == admitted + 1);
}

TEST_CASE("record service: a call that waits past its deadline ends with a timeout, not a hang") {
  Harness h(RecordServiceOptions{"r", 1, 16, 200ms, 60000ms, 120000ms, 180s, 0s});
  h.store->delay_ms = 400;
  h.service->claim(claim_of(random_hex(16)), [](auto) {});  // occupies the one thread
  const auto started = std::chrono::steady_clock::now();
  auto result = await<RecordResult<std::optional<SessionRow>>>(
      [&](auto done) { REQUIRE(h.service->find(random_hex(16), done)); });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().reason.find("did not answer within 200 ms") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("record service: down while calls fail, and back by itself once a write goes through") {
  Harness h(RecordServiceOptions{"r", 1, 16, 2000ms, 100ms, 60000ms, 180s, 0s});
  CHECK(h.service->healthy());
  h.store->fail = true;
  auto closed = await<RecordResult<Ok>>([&](auto done) { h.service->close("s1", kFirstEpoch, true, "{}", done); });
  REQUIRE_FALSE(closed.ok());
  CHECK_FALSE(h.service->healthy());
  CHECK(h.service->failure() == "disk full");
  CHECK(h.metrics.prometheus_text().find("bp_record_up 0") != std::string::npos);
  CHECK(h.metrics.prometheus_text().find("bp_record_failures_total{operation=\"close\"} 1") != std::string::npos);
  std::this_thread::sleep_for(300ms);
  CHECK_FALSE(h.service->healthy());
  h.store->fail = false;  // space is back: the next heartbeat finds it
  for (int i = 0; i < 100 && !h.service->healthy(); ++i) std::this_thread::sleep_for(20ms);
  CHECK(h.service->healthy());
  CHECK(h.metrics.prometheus_text().find("bp_record_up 1") != std::string::npos);
}

TEST_CASE("record service: a fenced write is counted, and the record stays up") {
  Harness h(RecordServiceOptions{"r", 1, 16, 2000ms, 100ms, 60000ms, 180s, 0s});
  h.store->fenced = true;
  auto closed = await<RecordResult<Ok>>([&](auto done) { h.service->close("s1", kFirstEpoch, true, "{}", done); });
  REQUIRE_FALSE(closed.ok());
  CHECK_FALSE(closed.error().down());
  CHECK(h.service->healthy());
  const std::string text = h.metrics.prometheus_text();
  CHECK(text.find("bp_record_fenced_writes_total 1\n") != std::string::npos);
  CHECK(text.find("bp_record_up 1") != std::string::npos);
}

TEST_CASE("record service: stopping answers every call still queued") {
  auto h = std::make_unique<Harness>(RecordServiceOptions{"r", 1, 16, 5000ms, 60000ms, 120000ms, 180s, 0s});
  h->store->delay_ms = 200;
  std::atomic<int> errors{0};
  for (int i = 0; i < 5; ++i)
    h->service->claim(claim_of(random_hex(16)), [&errors](RecordResult<ClaimOutcome> r) { errors += !r.ok(); });
  h->service->stop();
  CHECK(errors >= 4);  // all but the one running
  bool answered = false;
  h->service->close("late", kFirstEpoch, true, "{}", [&answered](RecordResult<Ok> r) { answered = !r.ok(); });
  CHECK(answered);
}

TEST_CASE("record service: a lease not renewed for its length is reported once, and renewed when beats pass") {
  Harness h(RecordServiceOptions{"r", 1, 16, 300ms, 100ms, 400ms, 180s, 0s});
  std::atomic<int> lost{0}, beats{0};
  h.service->on_lease_lost([&lost] { ++lost; });
  h.service->on_heartbeat([&beats](HeartbeatNews) { ++beats; });
  for (int i = 0; i < 100 && beats == 0; ++i) std::this_thread::sleep_for(20ms);
  CHECK(beats > 0);
  h.store->fail = true;  // the record goes away (a partition, a failover)
  for (int i = 0; i < 100 && lost == 0; ++i) std::this_thread::sleep_for(20ms);
  CHECK(lost == 1);
  std::this_thread::sleep_for(500ms);
  CHECK(lost == 1);  // once per outage
  h.store->fail = false;
  const int before = beats;
  for (int i = 0; i < 100 && beats == before; ++i) std::this_thread::sleep_for(20ms);
  h.store->fail = true;
  for (int i = 0; i < 100 && lost == 1; ++i) std::this_thread::sleep_for(20ms);
  CHECK(lost == 2);  // renewed, then lost again
}
