// The shared record: PostgreSQL through libpq, one connection per record-service thread.
// Every replica of a dealer cluster points at the same database; the table's primary key is
// what makes a session id cluster-wide.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "record_store.hpp"

namespace bp::server {

struct PostgresOptions {
  std::string conninfo;               // a postgresql:// URL or "key=value" string (multi-host allowed)
  std::string replica;                // this dealer's name in the record
  std::string instance;               // this process (random): its claims are not a previous run's
  std::chrono::milliseconds timeout;  // per call: connecting, sending, waiting for the answer
};

// Connects lazily: a database that is down when the dealer starts, or goes away later, makes
// calls fail with the reason (and each later call tries again), never blocks past the timeout.
std::unique_ptr<RecordStore> make_postgres_record_store(const PostgresOptions& options);

// True when `s` names a PostgreSQL database (a postgresql:// URL or a libpq key=value
// string) rather than a SQLite file.
bool is_postgres_url(const std::string& s);

}  // namespace bp::server
