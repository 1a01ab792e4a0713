// Where session outcomes go: JSON documents keyed by session id, in memory and, when a
// database file is configured, in SQLite (written before the parties hear the outcome, so
// an answer a party got can always be read back, across restarts).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "session.hpp"

struct sqlite3;

namespace bp::server {

class OutcomeStore {
 public:
  // db_path empty: memory only. Throws std::runtime_error if the database cannot be opened.
  explicit OutcomeStore(const std::string& db_path);
  ~OutcomeStore();
  OutcomeStore(const OutcomeStore&) = delete;
  OutcomeStore& operator=(const OutcomeStore&) = delete;

  void record(const SessionOutcome& outcome);
  std::optional<std::string> find_json(const std::string& session_id);

  static std::string to_json(const SessionOutcome& outcome);

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> memory_;
  sqlite3* db_ = nullptr;
};

}  // namespace bp::server
