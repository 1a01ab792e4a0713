#include "sqlite_record_store.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace bp::server {
namespace {

// One prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool prepared() const { return stmt_ != nullptr; }
  Statement& text(int i, const std::string& v) {
    if (stmt_) sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& integer(int i, int64_t v) {
    if (stmt_) sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE, or an error code.
  int step() { return stmt_ ? sqlite3_step(stmt_) : SQLITE_ERROR; }
  std::string column_text(int i) const {
    const auto* t = sqlite3_column_text(stmt_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  uint32_t column_u32(int i) const { return static_cast<uint32_t>(sqlite3_column_int64(stmt_, i)); }
  std::string error() const { return sqlite3_errmsg(db_); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Heartbeats in milliseconds (CURRENT_TIMESTAMP has whole seconds: too coarse for a TTL of a
// few seconds); the same text format, so the two compare.
#define BP_SQLITE_NOW_MS "strftime('%Y-%m-%d %H:%M:%f', 'now')"

std::string seconds_ago(std::chrono::seconds age) { return "-" + std::to_string(age.count()) + " seconds"; }

class SqliteRecordStore final : public RecordStore {
 public:
  SqliteRecordStore(sqlite3* db, std::string replica, std::string instance)
      : db_(db), replica_(std::move(replica)), instance_(std::move(instance)) {}
  ~SqliteRecordStore() override { sqlite3_close(db_); }

  StoreResult<ClaimOutcome> claim(const ClaimRequest& r) override {
    Statement s(db_,
                "INSERT INTO sessions (id, replica, instance, open, owner, bits, parties, json)"
                " SELECT ?1, ?2, ?3, 1, ?4, ?5, ?6, ?7"
                " WHERE ?8 = 0 OR (SELECT count(*) FROM sessions WHERE open = 1 AND owner = ?4) < ?8"
                " ON CONFLICT (id) DO NOTHING");
    s.text(1, r.id).text(2, replica_).text(3, instance_).text(4, r.owner).integer(5, r.bits).integer(6, r.parties)
        .text(7, r.lost_json).integer(8, r.owner_cap);
    if (s.step() != SQLITE_DONE) return failed("claiming session " + r.id, s);
    if (sqlite3_changes(db_) == 1) return ClaimOutcome::Claimed;
    Statement held(db_, "SELECT 1 FROM sessions WHERE id = ?");
    held.text(1, r.id);
    const int rc = held.step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("claiming session " + r.id, held);
    return rc == SQLITE_ROW ? ClaimOutcome::Taken : ClaimOutcome::OwnerAtCap;
  }

  StoreResult<Ok> close(const std::string& id, bool ok, const std::string& json) override {
    Statement s(db_,
                "UPDATE sessions SET open = 0, ok = ?, json = ?, phase = 'done', recorded_at = CURRENT_TIMESTAMP"
                " WHERE id = ? AND replica = ? AND open = 1");
    s.integer(1, ok ? 1 : 0).text(2, json).text(3, id).text(4, replica_);
    if (s.step() != SQLITE_DONE) return failed("recording session " + id, s);
    if (sqlite3_changes(db_) != 1) return StoreError{"this dealer no longer holds the claim on session " + id, false};
    return Ok{};
  }

  StoreResult<std::optional<SessionRow>> find(const std::string& id) override {
    Statement s(db_, "SELECT open, json, replica, phase, bits, parties, joined FROM sessions WHERE id = ?");
    s.text(1, id);
    const int rc = s.step();
    if (rc == SQLITE_DONE) return std::optional<SessionRow>{};
    if (rc != SQLITE_ROW) return failed("reading session " + id, s);
    SessionRow row;
    row.open = s.column_u32(0) != 0;
    if (row.open)
      row.live = OpenSessionRow{id, s.column_text(2), s.column_text(3), s.column_u32(4), s.column_u32(5), s.column_u32(6)};
    else
      row.json = s.column_text(1);
    return std::optional<SessionRow>(std::move(row));
  }

  StoreResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) override {
    Statement s(db_,
                "SELECT id, replica, phase, bits, parties, joined FROM sessions WHERE open = 1 AND owner = ?"
                " ORDER BY id LIMIT 1000");
    s.text(1, owner);
    std::vector<OpenSessionRow> rows;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW)
      rows.push_back({s.column_text(0), s.column_text(1), s.column_text(2), s.column_u32(3), s.column_u32(4),
                      s.column_u32(5)});
    if (rc != SQLITE_DONE) return failed("listing open sessions", s);
    return rows;
  }

  StoreResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                       const std::vector<std::string>& ids) override {
    std::vector<std::string> marked;
    for (const auto& id : ids) {
      Statement s(db_, "UPDATE sessions SET cancel_requested = 1 WHERE id = ? AND owner = ? AND open = 1");
      s.text(1, id).text(2, owner);
      if (s.step() != SQLITE_DONE) return failed("cancelling session " + id, s);
      if (sqlite3_changes(db_) == 1) marked.push_back(id);
    }
    return marked;
  }

  StoreResult<HeartbeatAnswer> heartbeat(const std::vector<PhaseUpdate>& phases, std::chrono::seconds ttl,
                                         bool after_failure) override {
    if (!exec("BEGIN IMMEDIATE")) return StoreError{"heartbeat: " + std::string(sqlite3_errmsg(db_))};
    auto answer = heartbeat_in_transaction(phases, ttl, after_failure);
    if (!answer) {
      exec("ROLLBACK");
      return answer;
    }
    if (!exec("COMMIT")) {
      const std::string why = sqlite3_errmsg(db_);
      exec("ROLLBACK");
      return StoreError{"heartbeat: " + why};
    }
    if (shared_name_)
      return StoreError{"another dealer process is running as replica " + replica_ + " (replica names must be unique)"};
    return answer;
  }

  StoreResult<size_t> prune(std::chrono::seconds age) override {
    Statement s(db_, "DELETE FROM sessions WHERE open = 0 AND recorded_at < datetime('now', ?)");
    s.text(1, seconds_ago(age));
    if (s.step() != SQLITE_DONE) return failed("pruning old records", s);
    return static_cast<size_t>(sqlite3_changes(db_));
  }

  // A previous run's open claims: that run is gone, so are their sessions.
  void close_own_leftovers() {
    Statement s(db_,
                "UPDATE sessions SET open = 0, ok = 0, phase = 'done', recorded_at = CURRENT_TIMESTAMP"
                " WHERE open = 1 AND replica = ? AND instance <> ?");
    s.text(1, replica_).text(2, instance_);
    if (s.step() != SQLITE_DONE) throw std::runtime_error("cannot close the sessions a previous run left: " + s.error());
  }

 private:
  StoreResult<HeartbeatAnswer> heartbeat_in_transaction(const std::vector<PhaseUpdate>& phases,
                                                        std::chrono::seconds ttl, bool after_failure) {
    {
      // Which process beat last under this name: after our first beat, only we may have (two
      // dealers on one file under one name would take each other's sessions for leftovers).
      Statement before(db_, "SELECT instance FROM replicas WHERE name = ?");
      before.text(1, replica_);
      const int rc = before.step();
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed("heartbeat", before);
      const std::string previous = rc == SQLITE_ROW ? before.column_text(0) : "";
      const bool first = !beaten_;
      beaten_ = true;
      // Reported after the commit, so that the other process sees this one's beat too.
      shared_name_ = !first && !previous.empty() && previous != instance_;
      Statement s(db_,
                  "INSERT INTO replicas (name, heartbeat_at, instance) VALUES (?, " BP_SQLITE_NOW_MS ", ?)"
                  " ON CONFLICT (name) DO UPDATE SET heartbeat_at = " BP_SQLITE_NOW_MS ", instance = excluded.instance");
      s.text(1, replica_).text(2, instance_);
      if (s.step() != SQLITE_DONE) return failed("heartbeat", s);
    }
    if (after_failure) {
      // As much as a 64-party record: a page freed by a delete would pass a smaller probe.
      Statement s(db_, "INSERT OR REPLACE INTO store_probe (k, filler) VALUES (1, zeroblob(65536))");
      if (s.step() != SQLITE_DONE) return failed("probe write", s);
    }
    for (const auto& p : phases) {
      Statement s(db_, "UPDATE sessions SET phase = ?, joined = ? WHERE id = ? AND replica = ? AND open = 1");
      s.text(1, p.phase).integer(2, p.joined).text(3, p.id).text(4, replica_);
      if (s.step() != SQLITE_DONE) return failed("storing phases", s);
    }
    HeartbeatAnswer answer;
    {
      Statement s(db_,
                  "UPDATE sessions SET open = 0, ok = 0, phase = 'done', recorded_at = CURRENT_TIMESTAMP"
                  " WHERE open = 1 AND replica <> ? AND replica IN"
                  " (SELECT name FROM replicas WHERE heartbeat_at < strftime('%Y-%m-%d %H:%M:%f', 'now', ?))");
      s.text(1, replica_).text(2, seconds_ago(ttl));
      if (s.step() != SQLITE_DONE) return failed("expiring lost replicas' claims", s);
      answer.expired_elsewhere = static_cast<size_t>(sqlite3_changes(db_));
    }
    Statement s(db_,
                "UPDATE sessions SET cancel_requested = 0 WHERE open = 1 AND replica = ? AND cancel_requested = 1"
                " RETURNING id");
    s.text(1, replica_);
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) answer.cancel.push_back(s.column_text(0));
    if (rc != SQLITE_DONE) return failed("reading cancellations", s);
    return answer;
  }

  bool exec(const char* sql) { return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

  StoreError failed(const std::string& what, const Statement& s) const { return StoreError{what + ": " + s.error()}; }

  sqlite3* db_;
  std::string replica_;
  std::string instance_;
  bool beaten_ = false;
  bool shared_name_ = false;
};

}  // namespace

std::unique_ptr<RecordStore> open_sqlite_record_store(const std::string& path, const std::string& replica,
                                                      const std::string& instance,
                                                      std::chrono::milliseconds busy_timeout) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open database " + path + ": " + why);
  }
  auto store = std::make_unique<SqliteRecordStore>(db, replica, instance);
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  // `json` of an open row is its lost record (what is kept if its replica never closes it).
  // Records of earlier releases (table session_outcomes) move over once.
  const char* schema =
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
      "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, replica TEXT NOT NULL, open INTEGER NOT NULL,"
      " owner TEXT NOT NULL DEFAULT '', bits INTEGER NOT NULL DEFAULT 0, parties INTEGER NOT NULL DEFAULT 0,"
      " phase TEXT NOT NULL DEFAULT 'join', joined INTEGER NOT NULL DEFAULT 0,"
      " cancel_requested INTEGER NOT NULL DEFAULT 0, instance TEXT NOT NULL DEFAULT '', ok INTEGER, json TEXT NOT NULL,"
      " claimed_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, recorded_at TEXT);"
      "CREATE INDEX IF NOT EXISTS sessions_recorded_at ON sessions (recorded_at) WHERE open = 0;"
      "CREATE INDEX IF NOT EXISTS sessions_open ON sessions (replica) WHERE open = 1;"
      "CREATE INDEX IF NOT EXISTS sessions_open_owner ON sessions (owner) WHERE open = 1;"
      "CREATE TABLE IF NOT EXISTS replicas (name TEXT PRIMARY KEY, heartbeat_at TEXT NOT NULL,"
      " instance TEXT NOT NULL DEFAULT '');"
      "CREATE TABLE IF NOT EXISTS store_probe (k INTEGER PRIMARY KEY, filler BLOB);";
  const char* migration =
      "BEGIN IMMEDIATE;"
      "INSERT INTO sessions (id, replica, open, ok, json, recorded_at, phase)"
      " SELECT id, '', 0, ok, json, recorded_at, 'done' FROM session_outcomes WHERE true ON CONFLICT (id) DO NOTHING;"
      "DROP TABLE session_outcomes;"
      "COMMIT;";
  auto run = [&](const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string why = err ? err : "unknown";
      sqlite3_free(err);
      throw std::runtime_error("cannot prepare database " + path + ": " + why);
    }
  };
  run(schema);
  bool old_table = false;
  sqlite3_exec(
      db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_outcomes'",
      [](void* found, int, char**, char**) {
        *static_cast<bool*>(found) = true;
        return 0;
      },
      &old_table, nullptr);
  if (old_table) run(migration);
  store->close_own_leftovers();
  return store;
}

}  // namespace bp::server
