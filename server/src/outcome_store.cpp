#include "outcome_store.hpp"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <stdexcept>

#include "bp/hex.hpp"
#include "bp/json.hpp"

namespace bp::server {
namespace {

template <class T, class F>
std::string json_array(const std::vector<T>& items, F&& each) {
  std::string out = "[";
  out += comma_separated(items, each);
  out += "]";
  return out;
}

}  // namespace

OutcomeStore::OutcomeStore(const std::string& db_path, size_t cache_entries) : cache_entries_(cache_entries) {
  if (db_path.empty()) return;
  if (sqlite3_open(db_path.c_str(), &db_) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot open database " + db_path + ": " + why);
  }
  char* err = nullptr;
  const char* schema =
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
      "CREATE TABLE IF NOT EXISTS session_outcomes (id TEXT PRIMARY KEY, ok INTEGER NOT NULL, json TEXT NOT NULL,"
      " recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);"
      "CREATE INDEX IF NOT EXISTS session_outcomes_recorded_at ON session_outcomes (recorded_at);";
  if (sqlite3_exec(db_, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown";
    sqlite3_free(err);
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("cannot prepare database " + db_path + ": " + why);
  }
}

OutcomeStore::~OutcomeStore() {
  if (db_) sqlite3_close(db_);
}

std::string OutcomeStore::to_json(const SessionOutcome& o) {
  std::string out = "{\"session_id\":" + json_string(o.id) + ",\"status\":\"" + (o.ok ? "completed" : "aborted") +
                    "\",\"bits\":" + std::to_string(o.params.n) + ",\"parties\":" + std::to_string(o.params.parties) +
                    ",\"label\":" + json_string(o.params.label);
  if (o.result) {
    const auto& r = o.result->result;
    out += ",\"commitments\":" +
           json_array(r.commitments, [](const CompressedRistretto& c) { return "\"" + to_hex(c.bytes) + "\""; });
    out += ",\"padding\":" + json_array(r.padding_positions, [](size_t j) { return std::to_string(j); });
    out += ",\"proof\":\"" + to_hex(r.proof.to_bytes()) + "\"";
    if (const auto& a = o.result->attestation)
      out += ",\"dealer_key\":\"" + to_hex(a->dealer_key) + "\",\"dealer_signature\":\"" + to_hex(a->signature) + "\"";
  } else {
    out += ",\"reason\":" + json_string(o.reason) +
           ",\"blamed\":" + json_array(o.blamed, [](size_t j) { return std::to_string(j); });
  }
  return out + "}";
}

void OutcomeStore::remember_locked(const std::string& id, std::string json,
                                   std::chrono::system_clock::time_point recorded) {
  if (cache_entries_ == 0) return;
  if (auto it = cache_.find(id); it != cache_.end()) {
    recency_.splice(recency_.begin(), recency_, it->second.order);
    return;
  }
  while (cache_.size() >= cache_entries_) {
    cache_.erase(recency_.back());
    recency_.pop_back();
  }
  recency_.push_front(id);
  cache_.emplace(id, Cached{std::move(json), recorded, recency_.begin()});
}

bool OutcomeStore::record(const SessionOutcome& outcome) {
  std::string json = to_json(outcome);
  std::lock_guard lock(mutex_);
  if (cache_.count(outcome.id) != 0) {
    spdlog::error("session={} has a record already; the new outcome is not recorded", outcome.id);
    return false;
  }
  if (db_) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO session_outcomes (id, ok, json) VALUES (?, ?, ?)", -1, &stmt, nullptr);
    sqlite3_bind_text(stmt, 1, outcome.id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(stmt, 2, outcome.ok ? 1 : 0);
    sqlite3_bind_text(stmt, 3, json.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) {
      spdlog::error("session={} could not be recorded: {}", outcome.id, sqlite3_errmsg(db_));
      return false;
    }
  }
  remember_locked(outcome.id, std::move(json), std::chrono::system_clock::now());
  return true;
}

std::optional<std::string> OutcomeStore::find_json(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  if (auto it = cache_.find(session_id); it != cache_.end()) {
    recency_.splice(recency_.begin(), recency_, it->second.order);
    return it->second.json;
  }
  if (!db_) return std::nullopt;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "SELECT json FROM session_outcomes WHERE id = ?", -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, session_id.c_str(), -1, SQLITE_TRANSIENT);
  std::optional<std::string> out;
  if (sqlite3_step(stmt) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  return out;
}

bool OutcomeStore::contains(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  if (cache_.count(session_id) != 0) return true;
  if (!db_) return false;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "SELECT 1 FROM session_outcomes WHERE id = ?", -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, session_id.c_str(), -1, SQLITE_TRANSIENT);
  const bool found = sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return found;
}

size_t OutcomeStore::prune(std::chrono::seconds age) {
  std::lock_guard lock(mutex_);
  const auto cutoff = std::chrono::system_clock::now() - age;
  size_t gone = 0;
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->second.recorded < cutoff) {
      recency_.erase(it->second.order);
      it = cache_.erase(it);
      if (!db_) ++gone;
    } else {
      ++it;
    }
  }
  if (!db_) return gone;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "DELETE FROM session_outcomes WHERE recorded_at < datetime('now', ?)", -1, &stmt, nullptr);
  const std::string modifier = "-" + std::to_string(age.count()) + " seconds";
  sqlite3_bind_text(stmt, 1, modifier.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(stmt) != SQLITE_DONE) spdlog::error("pruning old outcomes failed: {}", sqlite3_errmsg(db_));
  sqlite3_finalize(stmt);
  return static_cast<size_t>(sqlite3_changes(db_));
}

}  // namespace bp::server
