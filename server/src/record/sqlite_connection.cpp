#include "record/sqlite_connection.hpp"

#include <sqlite3.h>

#include <stdexcept>
#include <unordered_map>

namespace bp::server {
namespace {

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }

  SqlDialect dialect() const override { return SqlDialect::Sqlite; }

  RecordResult<SqlResult> run(const std::string& sql, const SqlParams& params) override {
    sqlite3_stmt* stmt = prepared(sql);
    if (!stmt) return failure();
    // Reset on every path, so the statement holds no lock or row between calls.
    struct Reset {
      sqlite3_stmt* s;
      ~Reset() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } reset{stmt};
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      const auto& v = params[i].value;
      if (const auto* text = std::get_if<std::string>(&v))
        sqlite3_bind_text(stmt, at, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
      else if (const auto* number = std::get_if<int64_t>(&v))
        sqlite3_bind_int64(stmt, at, *number);
      else if (const auto* flag = std::get_if<bool>(&v))
        sqlite3_bind_int(stmt, at, *flag ? 1 : 0);
      else
        sqlite3_bind_null(stmt, at);
    }
    SqlResult result;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::optional<std::string>> cells;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const auto* text = sqlite3_column_text(stmt, c);
        if (text)
          cells.emplace_back(
              std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        else
          cells.emplace_back(std::nullopt);
      }
      result.rows.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE) return failure();
    if (!sqlite3_stmt_readonly(stmt)) result.affected = static_cast<uint64_t>(sqlite3_changes(db_));
    return result;
  }

  RecordResult<Ok> run_script(const std::string& sql) override {
    char* err = nullptr;
    if (sqlite3_exec(db_, render_sql(sql, SqlDialect::Sqlite).c_str(), nullptr, nullptr, &err) == SQLITE_OK)
      return Ok{};
    const std::string why = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return RecordError{why};
  }

  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

 private:
  // Statements are prepared once per connection (the store runs a few dozen kinds).
  sqlite3_stmt* prepared(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, render_sql(sql, SqlDialect::Sqlite).c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return nullptr;
    }
    statements_.emplace(sql, stmt);
    return stmt;
  }

  RecordError failure() const { return RecordError{sqlite3_errmsg(db_)}; }

  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite_connection(const std::string& path, std::chrono::milliseconds busy_timeout) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open database " + path + ": " + why);
  }
  auto connection = std::make_unique<SqliteConnection>(db);
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  if (path != ":memory:") {
    // Every outcome and checkpoint survives a crash or power loss once its call returns.
    if (auto set = connection->run_script("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"); !set)
      throw std::runtime_error("cannot prepare database " + path + ": " + set.error().reason);
  }
  return connection;
}

}  // namespace bp::server
