#include "record/postgres_connection.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <memory>
#include <optional>

namespace bp::server {
namespace {

using Clock = std::chrono::steady_clock;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// libpq's messages span lines ("...\n\tThis probably means..."): one line for logs and aborts.
std::string one_line(std::string why) {
  std::string out;
  for (char c : why) {
    const bool space = c == '\n' || c == '\t' || c == '\r' || c == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A statement's parameters as libpq takes them: text, or NULL.
struct TextParams {
  explicit TextParams(const SqlParams& params) : texts(params.size()), values(params.size(), nullptr) {
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& v = params[i].value;
      if (const auto* text = std::get_if<std::string>(&v))
        values[i] = text->c_str();
      else if (const auto* number = std::get_if<int64_t>(&v))
        values[i] = (texts[i] = std::to_string(*number)).c_str();
      else if (const auto* flag = std::get_if<bool>(&v))
        values[i] = *flag ? "true" : "false";
    }
  }
  std::vector<std::string> texts;  // the integers' text, which values point into
  std::vector<const char*> values;
};

SqlResult to_sql_result(PGresult* r) {
  SqlResult out;
  for (int row = 0; row < PQntuples(r); ++row) {
    std::vector<std::optional<std::string>> cells;
    for (int col = 0; col < PQnfields(r); ++col) {
      if (PQgetisnull(r, row, col))
        cells.emplace_back(std::nullopt);
      else
        cells.emplace_back(std::string(PQgetvalue(r, row, col), static_cast<size_t>(PQgetlength(r, row, col))));
    }
    out.rows.emplace_back(std::move(cells));
  }
  out.affected = std::strtoull(PQcmdTuples(r), nullptr, 10);
  return out;
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(PostgresOptions options) : options_(std::move(options)) {}
  ~PostgresConnection() override { disconnect(); }

  SqlDialect dialect() const override { return SqlDialect::Postgres; }

  RecordResult<SqlResult> run(const std::string& sql, const SqlParams& params) override {
    TextParams texts(params);
    auto result = exec(render_sql(sql, SqlDialect::Postgres), texts.values, false);
    if (!result) return result.error();
    return to_sql_result(result->get());
  }

  // Pipeline mode: every statement and then one sync go out together, and the answers come
  // back in order. A statement that fails makes the server skip the rest up to the sync
  // (they answer PGRES_PIPELINE_ABORTED); its reason is the call's. Bounded by one timeout,
  // as one statement is; any failure drops the connection, pipeline state and all.
  RecordResult<std::vector<SqlResult>> run_all(const std::vector<SqlStatement>& statements) override {
    if (statements.size() < 2) return SqlConnection::run_all(statements);
    auto fail = [&](const std::string& why) {
      disconnect();
      return RecordError{why};
    };
    if (auto why = ensure_connected()) return RecordError{*why};
    const auto deadline = Clock::now() + options_.timeout;
    if (PQenterPipelineMode(conn_) != 1) return fail(last_error());
    for (const SqlStatement& statement : statements) {
      TextParams texts(statement.params);
      const std::string sql = render_sql(statement.sql, SqlDialect::Postgres);
      if (PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(texts.values.size()), nullptr, texts.values.data(),
                            nullptr, nullptr, 0) != 1)
        return fail(last_error());
    }
    if (PQpipelineSync(conn_) != 1) return fail(last_error());
    if (auto why = flush(deadline)) return fail(*why);
    std::vector<SqlResult> results;
    results.reserve(statements.size());
    std::optional<std::string> refused;
    PgResult current;  // the answer of statement results.size(), until its terminating NULL
    for (;;) {
      while (PQisBusy(conn_)) {
        if (!wait(POLLIN, deadline)) return fail(timed_out());
        if (PQconsumeInput(conn_) != 1) return fail(last_error());
      }
      PgResult next(PQgetResult(conn_));
      if (!next) {  // the end of one statement's answers
        if (results.size() == statements.size()) return fail("more answers than statements");
        results.push_back(current ? to_sql_result(current.get()) : SqlResult{});
        current.reset();
        continue;
      }
      const auto status = PQresultStatus(next.get());
      if (status == PGRES_PIPELINE_SYNC) break;
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_PIPELINE_ABORTED && !refused)
        refused = one_line(PQresultErrorMessage(next.get()));
      current = std::move(next);
    }
    if (PQexitPipelineMode(conn_) != 1) return fail(last_error());
    if (refused) return fail(*refused);
    if (results.size() != statements.size()) return fail("fewer answers than statements");
    return results;
  }

  RecordResult<Ok> run_script(const std::string& sql) override {
    auto result = exec(render_sql(sql, SqlDialect::Postgres), {}, true);
    if (!result) return result.error();
    return Ok{};
  }

  void rollback() override {
    // A connection dropped after a failure has no transaction left to end.
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
    if (!exec("ROLLBACK", {}, false)) disconnect();
  }

 private:
  void disconnect() {
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
  }

  // Blocking connect on this store thread, bounded by connect_timeout per host; the array's
  // defaults come before the operator's string, so its own settings win.
  std::optional<std::string> connect() {
    const std::string timeout_s = std::to_string(std::max<long>(2, (options_.timeout.count() + 999) / 1000));
    const std::string user_timeout_ms = std::to_string(options_.timeout.count());
    const char* keys[] = {"connect_timeout",
                          "application_name",
                          "target_session_attrs",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "tcp_user_timeout",
                          "dbname",
                          nullptr};
    const char* values[] = {
        timeout_s.c_str(),         "bp-dealer", "read-write", "5", "2", "3", user_timeout_ms.c_str(),
        options_.conninfo.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = one_line(conn_ ? PQerrorMessage(conn_) : "out of memory");
      disconnect();
      return "cannot connect to the database: " + why;
    }
    PQsetnonblocking(conn_, 1);
    // The schema's "already exists, skipping" notices are expected; libpq would print them.
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    return std::nullopt;
  }

  // A connection to use, opened again if it broke; nullopt, or why not.
  std::optional<std::string> ensure_connected() {
    if (conn_ && PQstatus(conn_) == CONNECTION_OK) return std::nullopt;
    disconnect();
    return connect();
  }

  // Sends what libpq holds for the server (a non-blocking connection buffers it); nullopt,
  // or why not. Reads while it waits, so a server that answers early never stalls it.
  std::optional<std::string> flush(Clock::time_point deadline) {
    for (int flushed; (flushed = PQflush(conn_)) != 0;) {
      if (flushed < 0) return last_error();
      if (!wait(POLLOUT | POLLIN, deadline)) return timed_out();
      if (PQconsumeInput(conn_) != 1) return last_error();
    }
    return std::nullopt;
  }

  // Waits until the socket is ready for `events` or the deadline passes.
  bool wait(short events, Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{PQsocket(conn_), events, 0};
    return ::poll(&p, 1, static_cast<int>(left)) > 0;
  }

  // One statement with text parameters (or, as `script`, several without), every step
  // bounded by the timeout. A connection that broke or timed out is dropped (the next call
  // reconnects, to whichever host is primary).
  RecordResult<PgResult> exec(const std::string& sql, const std::vector<const char*>& values, bool script) {
    auto fail = [&](const std::string& why) {
      disconnect();
      return RecordError{why};
    };
    if (auto why = ensure_connected()) return RecordError{*why};
    const auto deadline = Clock::now() + options_.timeout;
    const int sent = script ? PQsendQuery(conn_, sql.c_str())
                            : PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                                values.data(), nullptr, nullptr, 0);
    if (sent != 1) return fail(last_error());
    if (auto why = flush(deadline)) return fail(*why);
    PgResult result;
    std::optional<std::string> refused;
    for (;;) {
      while (PQisBusy(conn_)) {
        if (!wait(POLLIN, deadline)) return fail(timed_out());
        if (PQconsumeInput(conn_) != 1) return fail(last_error());
      }
      PgResult next(PQgetResult(conn_));
      if (!next) break;
      const auto status = PQresultStatus(next.get());
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !refused)
        refused = one_line(PQresultErrorMessage(next.get()));
      result = std::move(next);  // a script's last statement answers for it
    }
    // The server said no (read-only after a failover, disk full, ...): the connection may
    // be fine, but reconnecting finds the new primary if there is one.
    if (refused) return fail(*refused);
    if (!result) return fail("no answer");
    return result;
  }

  std::string timed_out() {
    // Ask the server to stop, so the statement does not hold its locks past our give-up.
    if (PGcancel* cancel = PQgetCancel(conn_)) {
      char buf[256];
      PQcancel(cancel, buf, sizeof buf);
      PQfreeCancel(cancel);
    }
    return "no answer within " + std::to_string(options_.timeout.count()) + " ms";
  }

  std::string last_error() const {
    const std::string why = one_line(conn_ ? PQerrorMessage(conn_) : "not connected");
    return why.empty() ? "connection lost" : why;
  }

  PostgresOptions options_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> make_postgres_connection(const PostgresOptions& options) {
  return std::make_unique<PostgresConnection>(options);
}

bool is_postgres_url(const std::string& s) {
  // A file path has no '=': a libpq "host=... dbname=..." string does.
  return s.rfind("postgresql://", 0) == 0 || s.rfind("postgres://", 0) == 0 || s.find('=') != std::string::npos;
}

bool conninfo_has_password(const std::string& conninfo) {
  if (conninfo.find("://") == std::string::npos && conninfo.find('=') == std::string::npos) return false;  // a file
  char* err = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &err);
  if (err) PQfreemem(err);
  if (!options) return false;  // malformed: the connection will say why
  bool found = false;
  for (auto* o = options; o->keyword; ++o)
    if (std::string(o->keyword) == "password" && o->val && *o->val) found = true;
  PQconninfoFree(options);
  return found;
}

}  // namespace bp::server
