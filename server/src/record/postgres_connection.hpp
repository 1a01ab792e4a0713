// The record's PostgreSQL engine (libpq), shared by every replica of a dealer cluster: one
// connection per record-service thread. Connects lazily and again after any failure, so a
// database that is down when the dealer starts, fails over or goes away later makes calls
// fail with the reason (each later call tries again, finding the new primary of a multi-host
// string), never blocks past the timeout.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "record/sql_connection.hpp"

namespace bp::server {

struct PostgresOptions {
  std::string conninfo;               // a postgresql:// URL or "key=value" string (multi-host allowed)
  std::chrono::milliseconds timeout;  // per call: connecting, sending, waiting for the answer
};

std::unique_ptr<SqlConnection> make_postgres_connection(const PostgresOptions& options);

// True when `s` names a PostgreSQL database (a postgresql:// URL or a libpq key=value
// string) rather than a SQLite file.
bool is_postgres_url(const std::string& s);

// Whether a PostgreSQL connection string carries a password (a URL's user:password@,
// ?password=, or password=...), as libpq's own parser reads it; false for a file name or a
// string libpq cannot parse (connecting will say why).
bool conninfo_has_password(const std::string& conninfo);

}  // namespace bp::server
