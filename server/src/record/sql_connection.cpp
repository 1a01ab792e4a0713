#include "record/sql_connection.hpp"

#include <cstdlib>

namespace bp::server {

int64_t SqlRow::integer(size_t i) const {
  const auto& cell = cells_.at(i);
  return cell ? std::strtoll(cell->c_str(), nullptr, 10) : 0;
}

bool SqlRow::boolean(size_t i) const {
  const auto& cell = cells_.at(i);
  return cell && (*cell == "t" || *cell == "true" || *cell == "1");
}

namespace {

constexpr const char* kSqliteNow = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

std::string ago(const std::string& param, SqlDialect dialect) {
  if (dialect == SqlDialect::Postgres)
    return "(now() - make_interval(secs => CAST($" + param + " AS double precision) / 1000))";
  return "strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || (CAST(?" + param + " AS REAL) / 1000) || ' seconds')";
}

}  // namespace

std::string render_sql(const std::string& sql, SqlDialect dialect) {
  std::string out;
  out.reserve(sql.size() + 64);
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '{') {
      const size_t end = sql.find('}', i);
      const std::string token = sql.substr(i + 1, end - i - 1);
      if (token == "now")
        out += dialect == SqlDialect::Postgres ? "now()" : kSqliteNow;
      else if (token.rfind("ago:", 0) == 0)
        out += ago(token.substr(4), dialect);
      else
        out += sql.substr(i, end - i + 1);  // not a token (JSON in a literal, say)
      i = end;
    } else if (c == '$' && dialect == SqlDialect::Sqlite && i + 1 < sql.size() && sql[i + 1] >= '0' &&
               sql[i + 1] <= '9') {
      out += '?';  // SQLite numbers its parameters ?N
    } else {
      out += c;
    }
  }
  return out;
}

RecordResult<std::vector<SqlResult>> SqlConnection::run_all(const std::vector<SqlStatement>& statements) {
  std::vector<SqlResult> results;
  results.reserve(statements.size());
  for (const SqlStatement& statement : statements) {
    auto result = run(statement.sql, statement.params);
    if (!result) return result.error();
    results.push_back(std::move(*result));
  }
  return results;
}

SqlTransaction::~SqlTransaction() {
  if (open_) connection_.rollback();
}

RecordResult<Ok> SqlTransaction::begin() {
  auto begun = connection_.run(connection_.dialect() == SqlDialect::Sqlite ? "BEGIN IMMEDIATE" : "BEGIN");
  if (!begun) return begun.error();
  open_ = true;
  return Ok{};
}

RecordResult<Ok> SqlTransaction::commit() {
  auto committed = connection_.run("COMMIT");
  if (!committed) return committed.error();  // the destructor rolls back what is left
  open_ = false;
  return Ok{};
}

}  // namespace bp::server
