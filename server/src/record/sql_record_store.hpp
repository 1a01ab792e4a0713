// The record over SQL: every query once, for SQLite and PostgreSQL alike (the engine is the
// connection's business). Opening it brings the schema up to date and releases the open
// sessions an earlier run under this replica name left, so they can be taken over at once.
#pragma once

#include <memory>
#include <string>

#include "record/record_store.hpp"
#include "record/sql_connection.hpp"

namespace bp::server {

struct SqlRecordOptions {
  std::string replica;     // this dealer's name in the record
  std::string instance;    // this process (random): its claims are not an earlier run's
  size_t keep_closed = 0;  // at most this many closed records (memory only); 0: no bound
};

// Prepares the record on the first call that reaches the database (a PostgreSQL that is
// down at start is retried on every call), or at once with `eager` (SQLite: a file that
// cannot be prepared stops the dealer at start, with std::runtime_error).
std::unique_ptr<RecordStore> make_sql_record_store(std::unique_ptr<SqlConnection> connection, SqlRecordOptions options,
                                                   bool eager);

}  // namespace bp::server
