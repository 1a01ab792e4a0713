#include "record/sql_record_store.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <stdexcept>

#include "bp/hex.hpp"
#include "record/schema.hpp"

namespace bp::server {
namespace {

using std::chrono::milliseconds;

int64_t ms(milliseconds d) { return static_cast<int64_t>(d.count()); }

RecordError in(const std::string& what, RecordError e) {
  e.reason = what + ": " + e.reason;
  return e;
}

class SqlRecordStore final : public RecordStore {
 public:
  SqlRecordStore(std::unique_ptr<SqlConnection> connection, SqlRecordOptions options)
      : db_(std::move(connection)), options_(std::move(options)) {}

  // Migrates and releases an earlier run's sessions, once per process and connection.
  RecordResult<Ok> ensure_ready() {
    if (ready_) return Ok{};
    if (auto migrated = migrate_schema(*db_); !migrated) return in("preparing the record", migrated.error());
    // An earlier run under this replica name is gone; its sessions are free to take over.
    auto left = db_->run(
        "UPDATE bp_sessions SET released = TRUE, released_at = {now}"
        " WHERE open AND replica = $1 AND instance <> $2 AND NOT released",
        {options_.replica, options_.instance});
    if (!left) return in("releasing the sessions an earlier run left", left.error());
    ready_ = true;
    return Ok{};
  }

  RecordResult<ClaimOutcome> claim(const ClaimRequest& r) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    return claim_row(r);
  }

  RecordResult<ClaimOutcome> claim_row(const ClaimRequest& r) { return claim_answer(r, run(claim_statement(r))); }

  SqlStatement claim_statement(const ClaimRequest& r) const {
    return {
        "INSERT INTO bp_sessions (id, replica, instance, open, owner, bits, parties, json, checkpoint, claimed_at)"
        " SELECT $1, $2, $3, TRUE, $4, $5, $6, $7, $8, {now}"
        " WHERE CAST($9 AS integer) = 0"
        "    OR (SELECT count(*) FROM bp_sessions WHERE open AND owner = $4) < CAST($9 AS integer)"
        " ON CONFLICT (id) DO NOTHING",
        {r.id, options_.replica, options_.instance, r.owner, r.bits, r.parties, r.lost_json, to_hex(r.checkpoint),
         r.owner_cap}};
  }

  // What the claim's INSERT answered means; a claim that inserted nothing asks why.
  RecordResult<ClaimOutcome> claim_answer(const ClaimRequest& r, RecordResult<SqlResult> inserted) {
    const std::string what = "claiming session " + r.id;
    if (!inserted) return in(what, inserted.error());
    if (inserted->affected == 1) return ClaimOutcome::Claimed;
    auto held = db_->run("SELECT 1 FROM bp_sessions WHERE id = $1", {r.id});
    if (!held) return in(what, held.error());
    return held->rows.empty() ? ClaimOutcome::OwnerAtCap : ClaimOutcome::Taken;
  }

  RecordResult<Ok> checkpoint(const Checkpoint& c) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    return write_checkpoint(c);
  }

  RecordResult<std::vector<RecordResult<Ok>>> checkpoints(const std::vector<Checkpoint>& batch) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    if (batch.size() == 1) return std::vector<RecordResult<Ok>>{write_checkpoint(batch[0])};
    SqlTransaction tx(*db_);
    if (auto begun = tx.begin(); !begun) return in("checkpointing sessions", begun.error());
    std::vector<RecordResult<Ok>> answers;
    for (const auto& c : batch) {
      auto answer = write_checkpoint(c);
      if (!answer && answer.error().down()) return answer.error();  // the transaction is gone
      answers.push_back(std::move(answer));
    }
    if (auto committed = tx.commit(); !committed) return in("checkpointing sessions", committed.error());
    return answers;
  }

  RecordResult<Ok> close(const std::string& id, uint64_t epoch, bool ok, const std::string& json) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    return close_row(id, epoch, ok, json);
  }

  // One transaction, its writes in session id order (claim, then checkpoint, then close of
  // one id), so that batches on two PostgreSQL connections take row locks in one order and
  // never wait on each other in a cycle.
  RecordResult<WriteAnswers> write_batch(const WriteBatch& batch) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    struct Step {
      const std::string* id;
      int kind;  // 0 claim, 1 checkpoint, 2 close
      size_t index;
    };
    std::vector<Step> steps;
    steps.reserve(batch.size());
    for (size_t i = 0; i < batch.claims.size(); ++i) steps.push_back({&batch.claims[i].id, 0, i});
    for (size_t i = 0; i < batch.checkpoints.size(); ++i) steps.push_back({&batch.checkpoints[i].id, 1, i});
    for (size_t i = 0; i < batch.closes.size(); ++i) steps.push_back({&batch.closes[i].id, 2, i});
    std::sort(steps.begin(), steps.end(),
              [](const Step& a, const Step& b) { return std::tie(*a.id, a.kind) < std::tie(*b.id, b.kind); });
    WriteAnswers answers;
    answers.claims.assign(batch.claims.size(), RecordError{});
    answers.checkpoints.assign(batch.checkpoints.size(), RecordError{});
    answers.closes.assign(batch.closes.size(), RecordError{});
    std::optional<SqlTransaction> tx;
    if (steps.size() > 1) {
      tx.emplace(*db_);
      if (auto begun = tx->begin(); !begun) return in("writing sessions", begun.error());
    }
    // Every write's statement goes out at once (one round trip on PostgreSQL); the rare
    // write that changed no row then asks why, one by one, within the same transaction.
    std::vector<SqlStatement> statements;
    statements.reserve(steps.size());
    for (const Step& step : steps) {
      if (step.kind == 0)
        statements.push_back(claim_statement(batch.claims[step.index]));
      else if (step.kind == 1)
        statements.push_back(checkpoint_statement(batch.checkpoints[step.index]));
      else {
        const CloseRequest& c = batch.closes[step.index];
        statements.push_back(close_statement(c.id, c.epoch, c.ok, c.json));
      }
    }
    auto results = db_->run_all(statements);
    if (!results) return in("writing sessions", results.error());
    // A failure of the record itself ends the transaction, and answers every write with it.
    const auto down = [](const auto& answer) { return !answer && answer.error().down(); };
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& step = steps[i];
      SqlResult& result = (*results)[i];
      if (step.kind == 0) {
        const ClaimRequest& r = batch.claims[step.index];
        auto& answer = answers.claims[step.index] = claim_answer(r, std::move(result));
        if (down(answer)) return answer.error();
      } else if (step.kind == 1) {
        const Checkpoint& c = batch.checkpoints[step.index];
        auto& answer = answers.checkpoints[step.index] = checkpoint_answer(c, std::move(result));
        if (down(answer)) return answer.error();
      } else {
        const CloseRequest& c = batch.closes[step.index];
        auto& answer = answers.closes[step.index] = close_answer(c.id, c.epoch, c.json, std::move(result));
        if (down(answer)) return answer.error();
      }
    }
    if (tx)
      if (auto committed = tx->commit(); !committed) return in("writing sessions", committed.error());
    return answers;
  }

  RecordResult<Ok> close_row(const std::string& id, uint64_t epoch, bool ok, const std::string& json) {
    return close_answer(id, epoch, json, run(close_statement(id, epoch, ok, json)));
  }

  SqlStatement close_statement(const std::string& id, uint64_t epoch, bool ok, const std::string& json) const {
    // The checkpoint goes with the session's end: only an open session is taken over, and
    // kept it would double each record's size on disk.
    return {
        "UPDATE bp_sessions SET open = FALSE, ok = $4, json = $5, phase = 'done', checkpoint = '', recorded_at = {now}"
        " WHERE id = $1 AND replica = $2 AND epoch = $3 AND open AND NOT released",
        {id, options_.replica, epoch, ok, json}};
  }

  RecordResult<Ok> close_answer(const std::string& id, uint64_t epoch, const std::string& json,
                                RecordResult<SqlResult> updated) {
    const std::string what = "recording session " + id;
    if (!updated) return in(what, updated.error());
    if (updated->affected == 1) return keep_bound();
    // An earlier try may have gone through with its answer lost on the way back.
    auto row = db_->run("SELECT open, replica, epoch, json FROM bp_sessions WHERE id = $1", {id});
    if (!row) return in(what, row.error());
    if (!row->rows.empty()) {
      const SqlRow& r = row->rows[0];
      if (!r.boolean(0) && r.text(1) == options_.replica && static_cast<uint64_t>(r.integer(2)) == epoch &&
          r.text(3) == json)
        return Ok{};
    }
    return fenced(id, epoch);
  }

  RecordResult<Ok> release(const std::string& id, uint64_t epoch) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    auto updated = db_->run(
        "UPDATE bp_sessions SET released = TRUE, released_at = {now}"
        " WHERE id = $1 AND replica = $2 AND epoch = $3 AND open AND NOT released",
        {id, options_.replica, epoch});
    if (!updated) return in("releasing session " + id, updated.error());
    if (updated->affected != 1) return fenced(id, epoch);
    return Ok{};
  }

  RecordResult<Takeover> take_over(const std::string& id, milliseconds silent_for) override {
    const std::string what = "taking session " + id + " over";
    if (auto ready = ensure_ready(); !ready) return ready.error();
    // Released (to anyone, to us, or to a replica that asked but has not come for it), or
    // held by a replica whose last heartbeat is too old, or our own that we no longer run.
    auto taken = db_->run(
        "UPDATE bp_sessions SET replica = $2, instance = $3, epoch = epoch + 1, released = FALSE, released_to = '',"
        "   released_at = NULL, release_requested = FALSE"
        " WHERE id = $1 AND open AND checkpoint <> '' AND ("
        "   (released AND (released_to = '' OR released_to = $2 OR released_at < {ago:4}))"
        "   OR (NOT released AND replica = $2 AND instance = $3)"
        "   OR (NOT released AND NOT EXISTS (SELECT 1 FROM bp_replicas r"
        "         WHERE r.name = bp_sessions.replica AND r.heartbeat_at >= {ago:4})))"
        " RETURNING epoch, checkpoint",
        {id, options_.replica, options_.instance, ms(silent_for)});
    if (!taken) return in(what, taken.error());
    Takeover out;
    if (!taken->rows.empty()) {
      auto bytes = from_hex(taken->rows[0].text(1));
      if (!bytes) return RecordError{what + ": its checkpoint is not hex"};
      out.kind = Takeover::Kind::Taken;
      out.epoch = static_cast<uint64_t>(taken->rows[0].integer(0));
      out.checkpoint = std::move(*bytes);
      return out;
    }
    auto row =
        db_->run("SELECT open, replica, released, released_to, json, checkpoint FROM bp_sessions WHERE id = $1", {id});
    if (!row) return in(what, row.error());
    if (row->rows.empty()) return out;  // Unknown
    const SqlRow& r = row->rows[0];
    if (!r.boolean(0)) {
      out.kind = Takeover::Kind::Ended;
      out.outcome_json = r.text(4);
      return out;
    }
    out.kind = Takeover::Kind::Held;
    out.holder = r.boolean(2) ? r.text(3) : r.text(1);  // released to a replica that asked first
    if (auto bytes = from_hex(r.text(5))) out.checkpoint = std::move(*bytes);
    return out;
  }

  RecordResult<Ok> request_release(const std::string& id) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    auto asked = db_->run(
        "UPDATE bp_sessions SET release_requested = TRUE,"
        "   released_to = CASE WHEN released_to = '' THEN $2 ELSE released_to END"
        " WHERE id = $1 AND open AND NOT released",
        {id, options_.replica});
    if (!asked) return in("asking for session " + id, asked.error());
    return Ok{};
  }

  RecordResult<std::optional<SessionRow>> find(const std::string& id) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    auto found =
        db_->run("SELECT open, json, replica, phase, bits, parties, joined FROM bp_sessions WHERE id = $1", {id});
    if (!found) return in("reading session " + id, found.error());
    if (found->rows.empty()) return std::optional<SessionRow>{};
    const SqlRow& r = found->rows[0];
    SessionRow row;
    row.open = r.boolean(0);
    if (row.open)
      row.live = OpenSessionRow{id, r.text(2), r.text(3), u32(r, 4), u32(r, 5), u32(r, 6)};
    else
      row.json = r.text(1);
    return std::optional<SessionRow>(std::move(row));
  }

  RecordResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    auto found = db_->run(
        "SELECT id, replica, phase, bits, parties, joined FROM bp_sessions WHERE open AND owner = $1"
        " ORDER BY id LIMIT 1000",
        {owner});
    if (!found) return in("listing open sessions", found.error());
    std::vector<OpenSessionRow> rows;
    for (const auto& r : found->rows)
      rows.push_back({r.text(0), r.text(1), r.text(2), u32(r, 3), u32(r, 4), u32(r, 5)});
    return rows;
  }

  RecordResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                        const std::vector<std::string>& ids) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    if (ids.empty()) return std::vector<std::string>{};
    std::string sql = "UPDATE bp_sessions SET cancel_requested = TRUE WHERE open AND owner = $1 AND id IN (";
    SqlParams params{owner};
    for (size_t i = 0; i < ids.size(); ++i) {
      sql += (i ? ", $" : "$") + std::to_string(i + 2);
      params.emplace_back(ids[i]);
    }
    sql += ") RETURNING id";
    auto marked = db_->run(sql, params);
    if (!marked) return in("cancelling sessions", marked.error());
    return first_column(*marked);
  }

  RecordResult<HeartbeatAnswer> heartbeat(std::chrono::seconds ttl, bool after_failure) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    // One transaction: this replica is alive exactly when what it holds is read.
    SqlTransaction tx(*db_);
    if (auto begun = tx.begin(); !begun) return in("heartbeat", begun.error());
    auto answer = heartbeat_in(tx, ttl, after_failure);
    if (!answer) return in("heartbeat", answer.error());
    if (auto committed = tx.commit(); !committed) return in("heartbeat", committed.error());
    if (shared_name_)
      return RecordError{"another dealer process is running as replica " + options_.replica +
                         " (replica names must be unique)"};
    return answer;
  }

  RecordResult<size_t> prune(std::chrono::seconds age) override {
    if (auto ready = ensure_ready(); !ready) return ready.error();
    auto gone = db_->run("DELETE FROM bp_sessions WHERE NOT open AND recorded_at < {ago:1}",
                         {ms(std::chrono::duration_cast<milliseconds>(age))});
    if (!gone) return in("pruning old records", gone.error());
    return static_cast<size_t>(gone->affected);
  }

 private:
  RecordResult<HeartbeatAnswer> heartbeat_in(SqlTransaction&, std::chrono::seconds ttl, bool after_failure) {
    const std::string& me = options_.replica;
    // Which process beat last under this name: after our first beat, only we may have (two
    // live dealers under one name would take each other's sessions for an earlier run's).
    auto before = db_->run("SELECT instance FROM bp_replicas WHERE name = $1", {me});
    if (!before) return before.error();
    const std::string previous = before->rows.empty() ? "" : before->rows[0].text(0);
    const bool first = !beaten_;
    beaten_ = true;
    // Reported after the commit, so that the other process sees this one's beat too.
    shared_name_ = !first && !previous.empty() && previous != options_.instance;
    auto beat = db_->run(
        "INSERT INTO bp_replicas (name, heartbeat_at, instance) VALUES ($1, {now}, $2)"
        " ON CONFLICT (name) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,"
        " instance = excluded.instance",
        {me, options_.instance});
    if (!beat) return beat.error();
    if (after_failure) {
      // As much as a 64-party record: a page freed by a delete would pass a smaller probe.
      auto probe = db_->run(
          "INSERT INTO bp_record_probe (k, filler) VALUES (1, $1)"
          " ON CONFLICT (k) DO UPDATE SET filler = excluded.filler",
          {std::string(65536, 'p')});
      if (!probe) return in("probe write", probe.error());
    }
    HeartbeatAnswer answer;
    // Sessions nobody runs: released and not taken over, or held by a replica gone silent.
    auto expired = db_->run(
        "UPDATE bp_sessions SET open = FALSE, ok = FALSE, phase = 'done', checkpoint = '', recorded_at = {now}"
        " WHERE open AND ((released AND released_at < {ago:2})"
        "   OR (NOT released AND replica <> $1 AND replica IN"
        "       (SELECT name FROM bp_replicas WHERE heartbeat_at < {ago:2})))",
        {me, ms(std::chrono::duration_cast<milliseconds>(ttl))});
    if (!expired) return in("expiring sessions nobody runs", expired.error());
    answer.expired_elsewhere = static_cast<size_t>(expired->affected);
    auto cancels = db_->run(
        "UPDATE bp_sessions SET cancel_requested = FALSE"
        " WHERE open AND replica = $1 AND cancel_requested RETURNING id",
        {me});
    if (!cancels) return in("reading cancellations", cancels.error());
    answer.cancel = first_column(*cancels);
    auto releases = db_->run(
        "UPDATE bp_sessions SET release_requested = FALSE"
        " WHERE open AND replica = $1 AND release_requested AND NOT released RETURNING id",
        {me});
    if (!releases) return in("reading hand-over requests", releases.error());
    answer.release = first_column(*releases);
    auto held =
        db_->run("SELECT id, epoch FROM bp_sessions WHERE open AND replica = $1 AND instance = $2 AND NOT released",
                 {me, options_.instance});
    if (!held) return in("reading held sessions", held.error());
    for (const auto& r : held->rows) answer.held.push_back({r.text(0), static_cast<uint64_t>(r.integer(1))});
    return answer;
  }

  RecordResult<Ok> write_checkpoint(const Checkpoint& c) { return checkpoint_answer(c, run(checkpoint_statement(c))); }

  SqlStatement checkpoint_statement(const Checkpoint& c) const {
    return {
        "UPDATE bp_sessions SET checkpoint = $4, phase = $5, joined = $6"
        " WHERE id = $1 AND replica = $2 AND epoch = $3 AND open AND NOT released",
        {c.id, options_.replica, c.epoch, to_hex(c.bytes), c.phase, c.joined}};
  }

  RecordResult<Ok> checkpoint_answer(const Checkpoint& c, RecordResult<SqlResult> updated) {
    if (!updated) return in("checkpointing session " + c.id, updated.error());
    if (updated->affected != 1) return fenced(c.id, c.epoch);
    return Ok{};
  }

  RecordResult<SqlResult> run(const SqlStatement& statement) { return db_->run(statement.sql, statement.params); }

  // In memory, the oldest closed records give way to the newest `keep_closed`, an eighth
  // of it at a time: every keep_closed / 8 closes, the closed rows are counted and the oldest
  // beyond the bound go in one statement, through the index on recorded_at. (Bounding on
  // every close with "NOT IN (the newest keep_closed)" read every kept row each time: 5.8 ms
  // a close at 4096 kept, the whole of the record thread at 170 sessions a second, which is
  // what held a dealer on eight cores to half of them with the record in memory.)
  RecordResult<Ok> keep_bound() {
    if (options_.keep_closed == 0) return Ok{};
    if (++closes_since_bound_ < std::max<size_t>(1, options_.keep_closed / 8)) return Ok{};
    closes_since_bound_ = 0;
    auto counted = db_->run("SELECT COUNT(*) FROM bp_sessions WHERE NOT open", {});
    if (!counted) return in("counting the records kept in memory", counted.error());
    if (counted->rows.empty()) return Ok{};
    const auto closed = static_cast<size_t>(counted->rows[0].integer(0));
    if (closed <= options_.keep_closed) return Ok{};
    auto bounded = db_->run(
        "DELETE FROM bp_sessions WHERE id IN"
        " (SELECT id FROM bp_sessions WHERE NOT open ORDER BY recorded_at, id LIMIT $1)",
        {static_cast<int64_t>(closed - options_.keep_closed)});
    if (!bounded) return in("bounding the records kept in memory", bounded.error());
    return Ok{};
  }

  // Why a write of a session at `epoch` was refused, for the log and the parties.
  RecordError fenced(const std::string& id, uint64_t epoch) {
    std::string why = "this dealer no longer holds session " + id + " (epoch " + std::to_string(epoch) + ")";
    auto row = db_->run("SELECT open, replica, epoch, released FROM bp_sessions WHERE id = $1", {id});
    if (row && !row->rows.empty()) {
      const SqlRow& r = row->rows[0];
      if (!r.boolean(0))
        why += ": it is closed";
      else if (r.boolean(3))
        why += ": it was handed over";
      else
        why += ": replica " + r.text(1) + " took it over (epoch " + r.text(2) + ")";
    }
    return RecordError{why, RecordErrorKind::Fenced};
  }

  static uint32_t u32(const SqlRow& r, size_t i) { return static_cast<uint32_t>(r.integer(i)); }
  static std::vector<std::string> first_column(const SqlResult& result) {
    std::vector<std::string> out;
    for (const auto& r : result.rows) out.push_back(r.text(0));
    return out;
  }

  std::unique_ptr<SqlConnection> db_;
  SqlRecordOptions options_;
  bool ready_ = false;
  bool beaten_ = false;
  bool shared_name_ = false;
  size_t closes_since_bound_ = 0;  // keep_bound's count (one store per thread: no lock)
};

}  // namespace

std::unique_ptr<RecordStore> make_sql_record_store(std::unique_ptr<SqlConnection> connection, SqlRecordOptions options,
                                                   bool eager) {
  auto store = std::make_unique<SqlRecordStore>(std::move(connection), std::move(options));
  if (eager) {
    if (auto ready = store->ensure_ready(); !ready) throw std::runtime_error(ready.error().reason);
  }
  return store;
}

}  // namespace bp::server
