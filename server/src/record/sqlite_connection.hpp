// The record's SQLite engine: a file (WAL, synchronous=FULL) for one dealer and the demo, or
// memory (":memory:") for a dealer without --record.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "record/sql_connection.hpp"

namespace bp::server {

// Throws std::runtime_error when the file cannot be opened. busy_timeout bounds how long a
// call waits for a lock another process holds.
std::unique_ptr<SqlConnection> open_sqlite_connection(const std::string& path, std::chrono::milliseconds busy_timeout);

}  // namespace bp::server
