#include "record/schema.hpp"

#include <string>

namespace bp::server {
namespace {

// Column types that differ by engine.
struct Types {
  const char* timestamp;
  const char* blob;
};
Types types(SqlDialect d) { return d == SqlDialect::Postgres ? Types{"timestamptz", "bytea"} : Types{"TEXT", "BLOB"}; }

// Version 1, as the first releases wrote it: one layout per engine.
std::string v1_layout(SqlDialect d) {
  if (d == SqlDialect::Sqlite)
    return "CREATE TABLE sessions (id TEXT PRIMARY KEY, replica TEXT NOT NULL, open INTEGER NOT NULL,"
           " owner TEXT NOT NULL DEFAULT '', bits INTEGER NOT NULL DEFAULT 0, parties INTEGER NOT NULL DEFAULT 0,"
           " phase TEXT NOT NULL DEFAULT 'join', joined INTEGER NOT NULL DEFAULT 0,"
           " cancel_requested INTEGER NOT NULL DEFAULT 0, instance TEXT NOT NULL DEFAULT '', ok INTEGER,"
           " json TEXT NOT NULL, claimed_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, recorded_at TEXT);"
           "CREATE INDEX sessions_recorded_at ON sessions (recorded_at) WHERE open = 0;"
           "CREATE INDEX sessions_open ON sessions (replica) WHERE open = 1;"
           "CREATE INDEX sessions_open_owner ON sessions (owner) WHERE open = 1;"
           "CREATE TABLE replicas (name TEXT PRIMARY KEY, heartbeat_at TEXT NOT NULL, instance TEXT NOT NULL DEFAULT "
           "'');"
           "CREATE TABLE store_probe (k INTEGER PRIMARY KEY, filler BLOB);";
  return "CREATE TABLE bp_sessions (id text PRIMARY KEY, replica text NOT NULL, open boolean NOT NULL,"
         " owner text NOT NULL DEFAULT '', bits integer NOT NULL DEFAULT 0, parties integer NOT NULL DEFAULT 0,"
         " phase text NOT NULL DEFAULT 'join', joined integer NOT NULL DEFAULT 0,"
         " cancel_requested boolean NOT NULL DEFAULT false, instance text NOT NULL DEFAULT '', ok boolean,"
         " json text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now(), recorded_at timestamptz);"
         "CREATE INDEX bp_sessions_recorded_at ON bp_sessions (recorded_at) WHERE NOT open;"
         "CREATE INDEX bp_sessions_open ON bp_sessions (replica) WHERE open;"
         "CREATE INDEX bp_sessions_open_owner ON bp_sessions (owner) WHERE open;"
         "CREATE TABLE bp_replicas (name text PRIMARY KEY, heartbeat_at timestamptz NOT NULL,"
         " instance text NOT NULL DEFAULT '');";
}

// Version 2: one layout. SQLite's tables take the bp_ names PostgreSQL's had; both gain the
// columns takeover needs. PostgreSQL only gains columns, so replicas of version 1 keep
// working beside upgraded ones during a rolling upgrade (they ignore epochs, and their
// writes still name the replica that holds a row).
std::string v2_one_layout(SqlDialect d) {
  const Types t = types(d);
  std::string sql;
  if (d == SqlDialect::Sqlite)
    sql =
        "ALTER TABLE sessions RENAME TO bp_sessions;"
        "ALTER TABLE replicas RENAME TO bp_replicas;"
        "ALTER TABLE store_probe RENAME TO bp_record_probe;"
        "DROP INDEX sessions_recorded_at; DROP INDEX sessions_open; DROP INDEX sessions_open_owner;"
        "CREATE INDEX bp_sessions_recorded_at ON bp_sessions (recorded_at) WHERE NOT open;"
        "CREATE INDEX bp_sessions_open ON bp_sessions (replica) WHERE open;"
        "CREATE INDEX bp_sessions_open_owner ON bp_sessions (owner) WHERE open;";
  else
    sql = std::string("CREATE TABLE bp_record_probe (k integer PRIMARY KEY, filler ") + t.blob + ");";
  // epoch: how many times the session changed hands, plus one; every write of its holder
  // names it. checkpoint: what a new holder rebuilds the dealer from (hex of a
  // bp.record.v1.DealerCheckpoint). released: its holder gave it up, to released_to if that
  // replica asked for it. release_requested: another replica asked for it.
  sql +=
      "ALTER TABLE bp_sessions ADD COLUMN epoch bigint NOT NULL DEFAULT 1;"
      "ALTER TABLE bp_sessions ADD COLUMN checkpoint text NOT NULL DEFAULT '';"
      "ALTER TABLE bp_sessions ADD COLUMN released boolean NOT NULL DEFAULT FALSE;"
      "ALTER TABLE bp_sessions ADD COLUMN released_to text NOT NULL DEFAULT '';";
  sql += std::string("ALTER TABLE bp_sessions ADD COLUMN released_at ") + t.timestamp + ";";
  sql +=
      "ALTER TABLE bp_sessions ADD COLUMN release_requested boolean NOT NULL DEFAULT FALSE;"
      "CREATE TABLE bp_schema (version integer NOT NULL);"
      "INSERT INTO bp_schema (version) VALUES (1);";
  return sql;
}

struct Migration {
  int version;
  std::string (*script)(SqlDialect);
};
constexpr Migration kMigrations[] = {{1, v1_layout}, {2, v2_one_layout}};
static_assert(std::size(kMigrations) == kSchemaVersion);

RecordResult<bool> has_table(SqlConnection& c, const char* name) {
  auto found =
      c.dialect() == SqlDialect::Sqlite
          ? c.run("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1", {name})
          : c.run("SELECT 1 FROM pg_catalog.pg_tables WHERE tablename = $1 AND schemaname = current_schema()", {name});
  if (!found) return found.error();
  return !found->rows.empty();
}

RecordResult<Ok> migrate_locked(SqlConnection& c, int target) {
  auto current = schema_version(c);
  if (!current) return current.error();
  if (*current > kSchemaVersion)
    return RecordError{"the record's schema is version " + std::to_string(*current) + ", newer than this dealer's (" +
                       std::to_string(kSchemaVersion) + "): run a dealer at least as new as the one that wrote it"};
  for (const auto& m : kMigrations) {
    if (m.version <= *current || m.version > target) continue;
    if (auto ran = c.run_script(m.script(c.dialect())); !ran)
      return RecordError{"migrating the record to schema version " + std::to_string(m.version) + ": " +
                         ran.error().reason};
    if (m.version >= 2) {
      if (auto set = c.run("UPDATE bp_schema SET version = $1", {m.version}); !set) return set.error();
    }
  }
  return Ok{};
}

}  // namespace

RecordResult<int> schema_version(SqlConnection& c) {
  auto versioned = has_table(c, "bp_schema");
  if (!versioned) return versioned.error();
  if (*versioned) {
    auto v = c.run("SELECT version FROM bp_schema");
    if (!v) return v.error();
    if (v->rows.size() != 1) return RecordError{"the record's bp_schema table does not hold one version"};
    return static_cast<int>(v->rows[0].integer(0));
  }
  // Before version 2 the layout was the version.
  auto v1 = has_table(c, c.dialect() == SqlDialect::Sqlite ? "sessions" : "bp_sessions");
  if (!v1) return v1.error();
  if (c.dialect() == SqlDialect::Sqlite) {
    auto older = has_table(c, "session_outcomes");
    if (!older) return older.error();
    if (*older)
      return RecordError{
          "the record was written by a release before the shared record (table session_outcomes); "
          "this dealer cannot upgrade it"};
  }
  return *v1 ? 1 : 0;
}

RecordResult<Ok> migrate_schema_to(SqlConnection& c, int version) {
  SqlTransaction tx(c);
  if (auto begun = tx.begin(); !begun) return begun.error();
  // Replicas starting together on PostgreSQL: one migrates, the others then find it done.
  if (c.dialect() == SqlDialect::Postgres) {
    if (auto locked = c.run("SELECT pg_advisory_xact_lock(7162022)"); !locked) return locked.error();
  }
  if (auto migrated = migrate_locked(c, version); !migrated) return migrated.error();
  return tx.commit();
}

RecordResult<Ok> migrate_schema(SqlConnection& c) { return migrate_schema_to(c, kSchemaVersion); }

}  // namespace bp::server
