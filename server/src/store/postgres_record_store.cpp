#include "postgres_record_store.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>

namespace bp::server {
namespace {

using Clock = std::chrono::steady_clock;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// libpq's messages span lines ("...\n\tThis probably means..."): one line for logs and aborts.
std::string one_line(std::string why) {
  std::string out;
  for (char c : why) {
    const bool space = c == '\n' || c == '\t' || c == '\r' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Ids, phases and owners are checked text ([0-9a-z_:.]); still, quote every element.
std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ",";
    out += "\"";
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += "\"";
  }
  return out + "}";
}

// The schema, created once by whichever replica gets the lock first. `json` of an open row is
// its lost record: what stands in the record if its replica never closes it.
constexpr const char* kSchema = R"sql(
SELECT pg_advisory_xact_lock(7162022);
CREATE TABLE IF NOT EXISTS bp_sessions (
  id text PRIMARY KEY,
  replica text NOT NULL,
  open boolean NOT NULL,
  owner text NOT NULL DEFAULT '',
  bits integer NOT NULL DEFAULT 0,
  parties integer NOT NULL DEFAULT 0,
  phase text NOT NULL DEFAULT 'join',
  joined integer NOT NULL DEFAULT 0,
  cancel_requested boolean NOT NULL DEFAULT false,
  instance text NOT NULL DEFAULT '',
  ok boolean,
  json text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  recorded_at timestamptz);
CREATE INDEX IF NOT EXISTS bp_sessions_recorded_at ON bp_sessions (recorded_at) WHERE NOT open;
CREATE INDEX IF NOT EXISTS bp_sessions_open ON bp_sessions (replica) WHERE open;
CREATE INDEX IF NOT EXISTS bp_sessions_open_owner ON bp_sessions (owner) WHERE open;
CREATE TABLE IF NOT EXISTS bp_replicas (name text PRIMARY KEY, heartbeat_at timestamptz NOT NULL,
  instance text NOT NULL DEFAULT '');
)sql";

class PostgresRecordStore final : public RecordStore {
 public:
  explicit PostgresRecordStore(PostgresOptions options) : options_(std::move(options)) {}
  ~PostgresRecordStore() override { disconnect(); }

  StoreResult<ClaimOutcome> claim(const ClaimRequest& r) override {
    auto res = exec("INSERT INTO bp_sessions (id, replica, instance, open, owner, bits, parties, json)"
                    " SELECT $1, $2, $3, true, $4, $5, $6, $7"
                    " WHERE $8::int = 0 OR (SELECT count(*) FROM bp_sessions WHERE open AND owner = $4) < $8::int"
                    " ON CONFLICT (id) DO NOTHING",
                    {r.id, options_.replica, options_.instance, r.owner, std::to_string(r.bits),
                     std::to_string(r.parties), r.lost_json, std::to_string(r.owner_cap)},
                    "claiming session " + r.id);
    if (!res) return res.error();
    if (affected(*res) == 1) return ClaimOutcome::Claimed;
    auto held = exec("SELECT 1 FROM bp_sessions WHERE id = $1", {r.id}, "claiming session " + r.id);
    if (!held) return held.error();
    return PQntuples(held->get()) != 0 ? ClaimOutcome::Taken : ClaimOutcome::OwnerAtCap;
  }

  StoreResult<Ok> close(const std::string& id, bool ok, const std::string& json) override {
    auto res = exec("UPDATE bp_sessions SET open = false, ok = $3, json = $4, phase = 'done', recorded_at = now()"
                    " WHERE id = $1 AND replica = $2 AND open",
                    {id, options_.replica, ok ? "true" : "false", json}, "recording session " + id);
    if (!res) return res.error();
    if (affected(*res) != 1) return StoreError{"this dealer no longer holds the claim on session " + id, false};
    return Ok{};
  }

  StoreResult<std::optional<SessionRow>> find(const std::string& id) override {
    auto res = exec("SELECT open, json, replica, phase, bits, parties, joined FROM bp_sessions WHERE id = $1", {id},
                    "reading session " + id);
    if (!res) return res.error();
    PGresult* r = res->get();
    if (PQntuples(r) == 0) return std::optional<SessionRow>{};
    SessionRow row;
    row.open = value(r, 0, 0) == "t";
    if (row.open)
      row.live = OpenSessionRow{id, value(r, 0, 2), value(r, 0, 3), number(r, 0, 4), number(r, 0, 5), number(r, 0, 6)};
    else
      row.json = value(r, 0, 1);
    return std::optional<SessionRow>(std::move(row));
  }

  StoreResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) override {
    auto res = exec("SELECT id, replica, phase, bits, parties, joined FROM bp_sessions WHERE open AND owner = $1"
                    " ORDER BY id LIMIT 1000",
                    {owner}, "listing open sessions");
    if (!res) return res.error();
    PGresult* r = res->get();
    std::vector<OpenSessionRow> rows;
    for (int i = 0; i < PQntuples(r); ++i)
      rows.push_back({value(r, i, 0), value(r, i, 1), value(r, i, 2), number(r, i, 3), number(r, i, 4), number(r, i, 5)});
    return rows;
  }

  StoreResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                       const std::vector<std::string>& ids) override {
    auto res = exec("UPDATE bp_sessions SET cancel_requested = true WHERE open AND owner = $1 AND id = ANY($2::text[])"
                    " RETURNING id",
                    {owner, text_array(ids)}, "cancelling sessions");
    if (!res) return res.error();
    return column(res->get());
  }

  StoreResult<HeartbeatAnswer> heartbeat(const std::vector<PhaseUpdate>& phases, std::chrono::seconds ttl,
                                         bool) override {
    // One transaction: the replica is alive exactly when its phases and cancellations are read.
    if (auto begun = exec("BEGIN", {}, "heartbeat"); !begun) return begun.error();
    auto answer = heartbeat_in_transaction(phases, ttl);
    if (!answer) return answer;  // exec dropped the connection, and the transaction with it
    if (auto committed = exec("COMMIT", {}, "heartbeat"); !committed) return committed.error();
    if (shared_name_) return StoreError{*shared_name_};
    return answer;
  }

  StoreResult<size_t> prune(std::chrono::seconds age) override {
    auto res = exec("DELETE FROM bp_sessions WHERE NOT open AND recorded_at < now() - make_interval(secs => $1)",
                    {std::to_string(age.count())}, "pruning old records");
    if (!res) return res.error();
    return static_cast<size_t>(affected(*res));
  }

 private:
  StoreResult<HeartbeatAnswer> heartbeat_in_transaction(const std::vector<PhaseUpdate>& phases,
                                                        std::chrono::seconds ttl) {
    const std::string& me = options_.replica;
    // Which process beat last under this name: after our first beat, only we may have.
    auto beat = exec("WITH before AS (SELECT instance FROM bp_replicas WHERE name = $1)"
                     " INSERT INTO bp_replicas (name, heartbeat_at, instance) VALUES ($1, now(), $2)"
                     " ON CONFLICT (name) DO UPDATE SET heartbeat_at = now(), instance = $2"
                     " RETURNING (SELECT instance FROM before)",
                     {me, options_.instance}, "heartbeat");
    if (!beat) return beat.error();
    // Reported after the commit, so that the other process sees this one's beat too.
    shared_name_ = name_shared(PQntuples(beat->get()) ? value(beat->get(), 0, 0) : "");
    if (!phases.empty()) {
      std::vector<std::string> ids, names, joined;
      for (const auto& p : phases) {
        ids.push_back(p.id);
        names.push_back(p.phase);
        joined.push_back(std::to_string(p.joined));
      }
      if (auto r = exec("UPDATE bp_sessions s SET phase = v.phase, joined = v.joined"
                        " FROM unnest($2::text[], $3::text[], $4::int[]) AS v(id, phase, joined)"
                        " WHERE s.id = v.id AND s.replica = $1 AND s.open",
                        {me, text_array(ids), text_array(names), text_array(joined)}, "storing phases");
          !r)
        return r.error();
    }
    HeartbeatAnswer answer;
    auto expired = exec("UPDATE bp_sessions SET open = false, ok = false, phase = 'done', recorded_at = now()"
                        " WHERE open AND replica <> $1 AND replica IN (SELECT name FROM bp_replicas"
                        " WHERE heartbeat_at < now() - make_interval(secs => $2))",
                        {me, std::to_string(ttl.count())}, "expiring lost replicas' claims");
    if (!expired) return expired.error();
    answer.expired_elsewhere = static_cast<size_t>(affected(*expired));
    auto cancels = exec("UPDATE bp_sessions SET cancel_requested = false"
                        " WHERE open AND replica = $1 AND cancel_requested RETURNING id",
                        {me}, "reading cancellations");
    if (!cancels) return cancels.error();
    answer.cancel = column(cancels->get());
    return answer;
  }

  static std::string value(PGresult* r, int row, int col) { return PQgetvalue(r, row, col); }
  static uint32_t number(PGresult* r, int row, int col) {
    return static_cast<uint32_t>(std::strtoul(PQgetvalue(r, row, col), nullptr, 10));
  }
  static long affected(const PgResult& r) { return std::strtol(PQcmdTuples(r.get()), nullptr, 10); }
  static std::vector<std::string> column(PGresult* r) {
    std::vector<std::string> out;
    for (int i = 0; i < PQntuples(r); ++i) out.push_back(value(r, i, 0));
    return out;
  }

  void disconnect() {
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
  }

  // Blocking connect on this store thread, bounded by connect_timeout per host; the array's
  // defaults come before the operator's string, so its own settings win.
  std::optional<std::string> connect() {
    const std::string timeout_s = std::to_string(std::max<long>(2, (options_.timeout.count() + 999) / 1000));
    const std::string user_timeout_ms = std::to_string(options_.timeout.count());
    const char* keys[] = {"connect_timeout", "application_name", "target_session_attrs", "keepalives_idle",
                          "keepalives_interval", "keepalives_count", "tcp_user_timeout", "dbname", nullptr};
    const char* values[] = {timeout_s.c_str(), "bp-dealer", "read-write", "5", "2", "3", user_timeout_ms.c_str(),
                            options_.conninfo.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = one_line(conn_ ? PQerrorMessage(conn_) : "out of memory");
      disconnect();
      return "cannot connect to the database: " + why;
    }
    PQsetnonblocking(conn_, 1);
    // The schema's "already exists, skipping" notices are expected; libpq would print them.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    if (!schema_ready_) {
      // The schema's statements in one simple query (one implicit transaction).
      PgResult res(PQexec(conn_, (std::string("BEGIN;") + kSchema + "COMMIT;").c_str()));
      if (!res || PQresultStatus(res.get()) != PGRES_COMMAND_OK) {
        const std::string why = one_line(conn_ ? PQerrorMessage(conn_) : "");
        disconnect();
        return "cannot prepare the database schema: " + why;
      }
      schema_ready_ = true;
      // A previous run under this replica's name is gone, and so are its sessions (this
      // process's own claims, made on another of its connections, stay).
      PgResult left(PQexecParams(conn_,
                                 "UPDATE bp_sessions SET open = false, ok = false, phase = 'done', recorded_at = now()"
                                 " WHERE open AND replica = $1 AND instance <> $2",
                                 2, nullptr,
                                 std::array<const char*, 2>{options_.replica.c_str(), options_.instance.c_str()}.data(),
                                 nullptr, nullptr, 0));
      if (!left || PQresultStatus(left.get()) != PGRES_COMMAND_OK) {
        const std::string why = one_line(PQerrorMessage(conn_));
        disconnect();
        schema_ready_ = false;
        return "cannot close the sessions a previous run left: " + why;
      }
    }
    return std::nullopt;
  }

  // Waits until the socket is ready for `events` or the deadline passes.
  bool wait(short events, Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{PQsocket(conn_), events, 0};
    return ::poll(&p, 1, static_cast<int>(left)) > 0;
  }

  // One statement with text parameters, every step bounded by the timeout. A connection that
  // broke or timed out is dropped (the next call reconnects, to whichever host is primary).
  StoreResult<PgResult> exec(const char* sql, const std::vector<std::string>& params, const std::string& what) {
    auto fail = [&](const std::string& why) {
      disconnect();
      return StoreError{what + ": " + why};
    };
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      disconnect();
      if (auto why = connect()) return StoreError{what + ": " + *why};
    }
    const auto deadline = Clock::now() + options_.timeout;
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    if (PQsendQueryParams(conn_, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0) != 1)
      return fail(last_error());
    for (int flushed; (flushed = PQflush(conn_)) != 0;) {
      if (flushed < 0) return fail(last_error());
      if (!wait(POLLOUT | POLLIN, deadline)) return fail(timed_out());
      if (PQconsumeInput(conn_) != 1) return fail(last_error());
    }
    PgResult result;
    for (;;) {
      while (PQisBusy(conn_)) {
        if (!wait(POLLIN, deadline)) return fail(timed_out());
        if (PQconsumeInput(conn_) != 1) return fail(last_error());
      }
      PgResult next(PQgetResult(conn_));
      if (!next) break;
      if (!result) result = std::move(next);  // one statement: one result, then null
    }
    if (!result) return fail("no answer");
    const auto status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const std::string why = one_line(PQresultErrorMessage(result.get()));
      // The server said no (read-only after a failover, disk full, ...): the connection may
      // be fine, but reconnecting finds the new primary if there is one.
      return fail(why);
    }
    return result;
  }

  std::string timed_out() {
    // Ask the server to stop, so the statement does not hold its locks past our give-up.
    if (PGcancel* cancel = PQgetCancel(conn_)) {
      char buf[256];
      PQcancel(cancel, buf, sizeof buf);
      PQfreeCancel(cancel);
    }
    return "no answer within " + std::to_string(options_.timeout.count()) + " ms";
  }

  std::string last_error() const {
    const std::string why = one_line(conn_ ? PQerrorMessage(conn_) : "not connected");
    return why.empty() ? "connection lost" : why;
  }

  // Two live processes under one replica name would take each other's sessions for a dead
  // run's: each sees the other's beats between its own, and both stop being ready.
  std::optional<std::string> name_shared(const std::string& previous) {
    const bool first = !beaten_;
    beaten_ = true;
    if (first || previous.empty() || previous == options_.instance) return std::nullopt;
    return "another dealer process is running as replica " + options_.replica + " (replica names must be unique)";
  }

  PostgresOptions options_;
  PGconn* conn_ = nullptr;
  bool beaten_ = false;
  std::optional<std::string> shared_name_;
  bool schema_ready_ = false;
};

}  // namespace

std::unique_ptr<RecordStore> make_postgres_record_store(const PostgresOptions& options) {
  return std::make_unique<PostgresRecordStore>(options);
}

bool is_postgres_url(const std::string& s) {
  // A file path has no '=': a libpq "host=... dbname=..." string does.
  return s.rfind("postgresql://", 0) == 0 || s.rfind("postgres://", 0) == 0 || s.find('=') != std::string::npos;
}

}  // namespace bp::server
