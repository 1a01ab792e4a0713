// The record's tables, defined once for both SQL engines, with a version and the
// migrations that bring any older record up to it. To change the schema: append a migration
// to kMigrations in schema.cpp (never edit one that has shipped), raise kSchemaVersion, and
// extend test_record_store's upgrade test with a record of the version before.
#pragma once

#include "record/sql_connection.hpp"

namespace bp::server {

// 1: the first layout, one per engine (SQLite tables sessions/replicas/store_probe,
//    PostgreSQL bp_sessions/bp_replicas), unversioned.
// 2: one layout for both (bp_sessions, bp_replicas, bp_record_probe, bp_schema), epochs,
//    checkpoints and hand-over for takeover.
inline constexpr int kSchemaVersion = 2;

// The version a record is at (0: empty).
RecordResult<int> schema_version(SqlConnection& connection);

// Brings the record to kSchemaVersion in one transaction (several replicas starting at once
// migrate it once). Refuses a record newer than this dealer knows.
RecordResult<Ok> migrate_schema(SqlConnection& connection);

// Runs the migrations up to `version` only: for the upgrade test, which writes a record the
// way an older dealer did and opens it with this one.
RecordResult<Ok> migrate_schema_to(SqlConnection& connection, int version);

}  // namespace bp::server
