// The seam between the record's one set of queries (sql_record_store.cpp) and the two SQL
// engines behind it: SQLite (a file, or memory) and PostgreSQL (libpq). A statement is written
// once, with $1, $2, ... for its parameters and two tokens for time, which each connection
// renders in its own dialect:
//   {now}      the database's current time
//   {ago:N}    the current time minus parameter N milliseconds
// Everything else in the queries is SQL that both engines speak (ON CONFLICT, RETURNING,
// TRUE/FALSE, partial indexes). A connection runs on one record-service thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "record/record_store.hpp"

namespace bp::server {

enum class SqlDialect { Sqlite, Postgres };

// One parameter: text, an integer, a boolean, or NULL.
struct SqlValue {
  std::variant<std::monostate, int64_t, bool, std::string> value;
  SqlValue() = default;
  SqlValue(std::string text) : value(std::move(text)) {}
  SqlValue(const char* text) : value(std::string(text)) {}
  SqlValue(int64_t number) : value(number) {}
  SqlValue(int number) : value(static_cast<int64_t>(number)) {}
  SqlValue(uint32_t number) : value(static_cast<int64_t>(number)) {}
  SqlValue(uint64_t number) : value(static_cast<int64_t>(number)) {}
  SqlValue(bool flag) : value(flag) {}
};
using SqlParams = std::vector<SqlValue>;

struct SqlStatement {
  std::string sql;
  SqlParams params;
};

// One row of an answer, every cell as the engine's text (NULL as nullopt).
class SqlRow {
 public:
  explicit SqlRow(std::vector<std::optional<std::string>> cells) : cells_(std::move(cells)) {}
  std::string text(size_t i) const { return cells_.at(i).value_or(""); }
  int64_t integer(size_t i) const;
  bool boolean(size_t i) const;  // PostgreSQL's t/f, SQLite's 1/0
  bool is_null(size_t i) const { return !cells_.at(i).has_value(); }

 private:
  std::vector<std::optional<std::string>> cells_;
};

struct SqlResult {
  std::vector<SqlRow> rows;
  uint64_t affected = 0;  // rows an INSERT, UPDATE or DELETE changed
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;
  // One statement. A failure is RecordErrorKind::Down with the engine's reason.
  virtual RecordResult<SqlResult> run(const std::string& sql, const SqlParams& params = {}) = 0;
  // Several statements, each answered as run() answers it, in order; the first failure
  // fails the call (within a transaction, as the batched writes use it, that failure has
  // ended the transaction anyway). The default runs them one by one; PostgreSQL sends them
  // all before it reads an answer, so a batch costs one round trip instead of one each.
  virtual RecordResult<std::vector<SqlResult>> run_all(const std::vector<SqlStatement>& statements);
  // Several statements without parameters (the schema's scripts).
  virtual RecordResult<Ok> run_script(const std::string& sql) = 0;
  // Ends an open transaction without committing; never reconnects, never fails.
  virtual void rollback() = 0;
};

// The statement in the connection's dialect: parameters and time tokens rendered.
std::string render_sql(const std::string& sql, SqlDialect dialect);

// A transaction that rolls back unless committed: every path out of a scope that began one
// ends it. SQLite takes the write lock at BEGIN, so two writers never deadlock upgrading.
class SqlTransaction {
 public:
  explicit SqlTransaction(SqlConnection& connection) : connection_(connection) {}
  ~SqlTransaction();
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  RecordResult<Ok> begin();
  RecordResult<Ok> commit();

 private:
  SqlConnection& connection_;
  bool open_ = false;
};

}  // namespace bp::server
