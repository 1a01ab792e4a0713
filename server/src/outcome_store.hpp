// Where session outcomes go: JSON documents keyed by session id. With a database file,
// SQLite is the record (written before the parties hear the outcome, so an answer a party
// got can always be read back, across restarts) and memory holds only a bounded cache of
// recent outcomes; without one, that bounded memory is all there is. Records older than the
// retention are deleted by prune(). A record is never replaced: an id is taken once.
//
// The public record names no party addresses (logs keep them; anyone who knows a session id
// can read its record).
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "session.hpp"

struct sqlite3;

namespace bp::server {

class OutcomeStore {
 public:
  // db_path empty: memory only. Throws std::runtime_error if the database cannot be opened.
  OutcomeStore(const std::string& db_path, size_t cache_entries);
  ~OutcomeStore();
  OutcomeStore(const OutcomeStore&) = delete;
  OutcomeStore& operator=(const OutcomeStore&) = delete;

  // False (and logged) when a record with this id exists already: it is kept, not replaced.
  bool record(const SessionOutcome& outcome);
  std::optional<std::string> find_json(const std::string& session_id);
  bool contains(const std::string& session_id);
  // Deletes the records older than `age`; returns how many went.
  size_t prune(std::chrono::seconds age);

  static std::string to_json(const SessionOutcome& outcome);

 private:
  struct Cached {
    std::string json;
    std::chrono::system_clock::time_point recorded;
    std::list<std::string>::iterator order;  // position in recency_
  };
  void remember_locked(const std::string& id, std::string json, std::chrono::system_clock::time_point recorded);

  mutable std::mutex mutex_;
  const size_t cache_entries_;
  std::unordered_map<std::string, Cached> cache_;
  std::list<std::string> recency_;  // most recently recorded or read first
  sqlite3* db_ = nullptr;
};

}  // namespace bp::server
