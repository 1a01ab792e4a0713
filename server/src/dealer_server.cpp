#include "bp/server/dealer_server.hpp"

#include "observability/log.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <optional>
#include <stdexcept>
#include <atomic>
#include <thread>
#include <unordered_map>

#include <sys/resource.h>
#include <unistd.h>

#include <sodium.h>

#include "net/admission.hpp"
#include "net/bearer_token.hpp"
#include "bp/hex.hpp"
#include "bp/server/process_stats.hpp"
#include "net/http_connection.hpp"
#include "net/tls_credentials.hpp"
#include "session/outcome_json.hpp"
#include "session/registry.hpp"
#include "record/postgres_connection.hpp"
#include "record/sql_record_store.hpp"
#include "record/sqlite_connection.hpp"
#include "net/verify_pool.hpp"

namespace bp::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

std::string default_replica_name(const DealerConfig& config) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == 0) std::snprintf(host, sizeof host, "dealer");
  return std::string(host) + ":" + std::to_string(config.port);
}

// The record the configuration names: PostgreSQL for a URL or libpq string, a SQLite file
// for a path, SQLite in memory for nothing.
RecordService::Factory record_factory(const DealerConfig& config, const std::string& replica) {
  const std::string& where = config.record;
  const auto timeout = std::chrono::milliseconds(config.record_timeout_ms);
  // This process, as opposed to an earlier run under the same replica name.
  std::array<uint8_t, 8> token{};
  randombytes_buf(token.data(), token.size());
  const SqlRecordOptions options{replica, to_hex(token), where.empty() ? config.outcome_cache : 0};
  if (is_postgres_url(where))
    return [options, postgres = PostgresOptions{where, timeout}] {
      return make_sql_record_store(make_postgres_connection(postgres), options, false);
    };
  const std::string path = where.empty() ? ":memory:" : where;
  return
      [options, path, timeout] { return make_sql_record_store(open_sqlite_connection(path, timeout), options, true); };
}

RecordServiceOptions record_options(const DealerConfig& config, const std::string& replica) {
  const bool shared = is_postgres_url(config.record);
  if (!config.record_password_file.empty()) setenv("PGPASSFILE", config.record_password_file.c_str(), 1);
  return RecordServiceOptions{replica,
                              shared ? config.record_connections : 1,  // one SQLite writer
                              config.record_queue,
                              std::chrono::milliseconds(config.record_timeout_ms),
                              std::chrono::milliseconds(config.heartbeat_ms),
                              std::chrono::milliseconds(config.takeover_after_ms),
                              std::chrono::seconds(config.replica_ttl_s),
                              std::chrono::seconds(config.outcome_retention_s)};
}

// What sessions write, through the record service.
class DealerRecord final : public SessionRecord {
 public:
  explicit DealerRecord(RecordService& records) : records_(records) {}
  void checkpoint(Checkpoint checkpoint, std::function<void(RecordResult<Ok>)> done) override {
    records_.checkpoint(std::move(checkpoint), std::move(done));
  }
  void close(const SessionOutcome& outcome, uint64_t epoch, std::function<void(RecordResult<Ok>)> done) override {
    records_.close(outcome.id, epoch, outcome.ok, outcome_json(outcome), std::move(done));
  }
  void release(const std::string& id, uint64_t epoch, std::function<void(RecordResult<Ok>)> done) override {
    records_.release(id, epoch, std::move(done));
  }

 private:
  RecordService& records_;
};

}  // namespace

struct DealerServer::Impl {
  // Declared before the io_context, so destroyed after it: connections and sessions whose
  // handlers are still queued when the daemon stops are destroyed with the io_context, and
  // they release their admission tickets and touch the metrics and TLS context then.
  DealerConfig config;
  // The configuration as SIGHUP last applied it (config, with the reloadable options as
  // reloaded; touched only on the acceptor's strand).
  DealerConfig applied;
  AuthPolicy auth;
  Metrics metrics;
  std::string replica;
  RecordService records;
  DealerRecord session_record{records};
  BulletproofGens bp_gens;  // 64 bits for config.max_positions positions
  PedersenGens pc_gens;
  std::optional<TlsCredentials> tls;  // set when the dealer serves wss:// and https://
  Admission admission;
  asio::io_context ioc;
  ProofChecker checker;  // the sessions' final proofs, batched when they end together
  SessionRegistry registry;
  tcp::acceptor acceptor;
  // --metrics-listen: the operator's read-only listener (plain HTTP), on its own strand, and
  // the bearer token its requests carry (--metrics-token-file; empty: none).
  std::optional<tcp::acceptor> metrics_acceptor;
  std::string metrics_token;
  asio::signal_set signals;
  asio::signal_set reload_signal;  // SIGHUP: read the TLS certificate and key again
  asio::steady_timer drain_timer;
  asio::steady_timer accept_backoff;  // on the acceptor's strand
  std::chrono::milliseconds backoff{0};
  asio::steady_timer forget_timer;
  std::chrono::steady_clock::time_point drain_started;
  std::atomic<bool> stopping{false};
  // Last: its threads run jobs that hold connections, which must go before the io_context.
  VerifyPool verifier;

  explicit Impl(DealerConfig c)
      : config(std::move(c)),
        applied(config),
        auth(config),
        replica(config.replica_name.empty() ? default_replica_name(config) : config.replica_name),
        records(record_factory(config, replica), record_options(config, replica), metrics),
        bp_gens(64, std::max<size_t>(config.max_positions, 1)),
        admission(config.max_connections, config.max_connections_per_ip, config.max_connects_per_ip_per_s),
        ioc(static_cast<int>(config.threads)),
        checker(ioc, metrics),
        registry(
            ioc, config,
            SessionEnv{&bp_gens, &pc_gens, &metrics, std::chrono::milliseconds(config.reconnect_grace_ms),
                       std::chrono::milliseconds(config.record_timeout_ms), &session_record, &auth.dealer(), &checker},
            records),
        acceptor(asio::make_strand(ioc)),
        signals(ioc, SIGTERM, SIGINT),
        reload_signal(ioc, SIGHUP),
        drain_timer(ioc),
        accept_backoff(acceptor.get_executor()),
        forget_timer(ioc),
        verifier(config.verify_threads, config.verify_queue, config.verify_per_ip_per_s) {
    fit_connections_to_fd_limit();
    if (!config.tls_cert.empty()) {
      tls.emplace(config.tls_cert, config.tls_key, *wire::tls_floor_from_name(config.tls_min_version));
      metrics.tls_certificate_expiry(tls->not_after());
    }
    const tcp::endpoint endpoint(asio::ip::make_address(config.host), config.port);
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
    if (!config.metrics_token_file.empty()) metrics_token = read_token_file(config.metrics_token_file);
    if (!config.metrics_host.empty()) {
      const tcp::endpoint at(asio::ip::make_address(config.metrics_host), config.metrics_port);
      metrics_acceptor.emplace(asio::make_strand(ioc));
      metrics_acceptor->open(at.protocol());
      metrics_acceptor->set_option(asio::socket_base::reuse_address(true));
      metrics_acceptor->bind(at);
      metrics_acceptor->listen();
      log::info("metrics listening (plain HTTP: /metrics, /healthz, /readyz, /v1/version, /v1/sessions)",
                {{"address", config.metrics_host + ":" + std::to_string(metrics_acceptor->local_endpoint().port())}});
    }
    // Every position's variable-time tables (the inner-product argument reads them) now,
    // rather than in the first session's last round. The constant-time ones are built for
    // the positions the dealer pads, when it first pads them.
    (void)bp_gens.G_tables_aggregated(1, bp_gens.party_capacity());
    records.on_heartbeat([this](HeartbeatNews news) { registry.heartbeat(news); });
    records.on_lease_lost([this] { registry.lease_lost(); });
    log::info("outcome record", {{"store", describe_record()}, {"replica", replica}});
  }

  ~Impl() { records.stop(); }  // its threads post onto the io_context: they end first

  std::string describe_record() const {
    if (config.record.empty()) return "memory only";
    if (is_postgres_url(config.record)) return "PostgreSQL";
    return "SQLite " + config.record;
  }

  // Every connection is a descriptor: raise the soft limit to the hard one, and when even
  // that cannot hold --max-connections (plus the refusal slots and what the daemon itself
  // has open), lower the limit rather than meet EMFILE under load.
  void fit_connections_to_fd_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    if (limit.rlim_cur < limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      setrlimit(RLIMIT_NOFILE, &limit);
      getrlimit(RLIMIT_NOFILE, &limit);
    }
    const size_t open_now = process_open_fds();
    constexpr size_t kSpare = 32;  // database journal, TLS files, logs, resolver, a margin
    const size_t needed = config.max_connections + Admission::kRefusalBudget + open_now + kSpare;
    if (limit.rlim_cur != RLIM_INFINITY && needed > limit.rlim_cur) {
      const size_t fits = limit.rlim_cur > Admission::kRefusalBudget + open_now + kSpare + 1
                              ? limit.rlim_cur - Admission::kRefusalBudget - open_now - kSpare
                              : 1;
      log::warn(
          "the file descriptor limit cannot hold --max-connections; serving fewer (raise the limit with "
          "ulimit -n, or LimitNOFILE= in a unit file)",
          {{"fd_limit", limit.rlim_cur}, {"max_connections", config.max_connections}, {"serving", fits}});
      admission.lower_max_connections(fits);
    }
    log::info("connection limits", {{"fd_limit", limit.rlim_cur},
                                    {"max_connections", admission.max_connections()},
                                    {"per_address", config.max_connections_per_ip}});
  }

  void accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](boost::system::error_code ec, tcp::socket socket) {
      if (stopping) return;
      if (ec) return accept_failed(ec);
      if (backoff.count() != 0) log::info("accepting connections again");
      backoff = std::chrono::milliseconds(0);
      admit(std::move(socket));
      accept();
    });
  }

  // The operator's listener: the same admission per address, plain HTTP, its own routes. A
  // failed accept (descriptors) waits a moment rather than spin.
  void accept_metrics() {
    metrics_acceptor->async_accept(asio::make_strand(ioc), [this](boost::system::error_code ec, tcp::socket socket) {
      if (stopping || ec == asio::error::operation_aborted) return;
      if (ec) {
        auto pause =
            std::make_shared<asio::steady_timer>(metrics_acceptor->get_executor(), std::chrono::milliseconds(100));
        return pause->async_wait([this, pause](boost::system::error_code) {
          if (!stopping) accept_metrics();
        });
      }
      boost::system::error_code ignored;
      const auto remote = socket.remote_endpoint(ignored);
      if (!ignored) {
        if (auto ticket = admission.admit(remote.address().to_string())) {
          ConnectionEnv env{&config, &registry, &records, &stopping, &metrics, &auth, &bp_gens, &pc_gens, &verifier};
          env.metrics_listener = true;
          env.metrics_token = &metrics_token;
          std::make_shared<HttpConnection<PlainStream>>(PlainStream(std::move(socket)), env, std::move(ticket))->run();
        }
      }
      accept_metrics();
    });
  }

  // Out of descriptors (or memory), accept fails at once for as long as the condition lasts;
  // re-arming straight away would spin a core. Wait, doubling up to a second, and say so once.
  void accept_failed(const boost::system::error_code& ec) {
    const bool resources = ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
                           ec == asio::error::no_memory || ec.value() == ENFILE;
    if (!resources) return accept();  // a connection that went away before we took it
    if (backoff.count() == 0) {
      log::error("accept failed; new connections wait until descriptors free up", {{"reason", ec.message()}});
      metrics.refused("accept_" + std::string(ec == asio::error::no_descriptors ? "emfile" : "resources"));
    }
    backoff = std::min(std::chrono::milliseconds(1000), std::max(std::chrono::milliseconds(10), backoff * 2));
    accept_backoff.expires_after(backoff);
    accept_backoff.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec && !stopping) accept();
    });
  }

  void admit(tcp::socket socket) {
    boost::system::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return;
    // Each round is a small frame the peer waits for: never hold one back for Nagle.
    socket.set_option(tcp::no_delay(true), ec);
    auto ticket = admission.admit(remote.address().to_string());
    if (!ticket) {  // even the refusal slots are taken: no answer but the close
      metrics.refused("dropped");
      return;
    }
    if (ticket->refused())
      log::warn("connection refused", {{"remote", remote.address().to_string()}, {"reason", ticket->reason()}});
    const ConnectionEnv env{&config, &registry, &records, &stopping, &metrics, &auth, &bp_gens, &pc_gens, &verifier};
    if (tls)
      std::make_shared<HttpConnection<TlsStream>>(TlsStream(std::move(socket), tls->current()), env, std::move(ticket))
          ->run();
    else
      std::make_shared<HttpConnection<PlainStream>>(PlainStream(std::move(socket)), env, std::move(ticket))->run();
  }

  // Finished sessions are forgotten even when nobody creates new ones (the record keeps them;
  // old records are pruned by the record service).
  void schedule_forget() {
    forget_timer.expires_after(std::chrono::seconds(5));
    forget_timer.async_wait([this](boost::system::error_code ec) {
      if (ec || stopping) return;
      registry.forget_finished();
      schedule_forget();
    });
  }

  // SIGHUP's first half: the configuration parsed again from the same command line, the
  // environment and the config file as they are now. What may change while sessions run
  // (reloadable_option) is applied, all or nothing; a change to anything else is named as
  // needing a restart and left as it was. Sessions already created keep their terms.
  void reload_config() {
    auto fresh = parse_dealer_config(applied.command_line);
    if (!fresh.ok) {
      log::error("SIGHUP: the configuration was not reloaded; the previous one stays in use",
                 {{"reason", fresh.message}});
      return;
    }
    std::string reloaded, needs_restart;
    for (const auto& name : changed_options(applied, fresh.config))
      (reloadable_option(name) ? reloaded : needs_restart) += (name + " ");
    if (auto why = auth.reload(fresh.config)) {
      log::error("SIGHUP: the configuration was not reloaded; the previous one stays in use", {{"reason", *why}});
      return;
    }
    registry.set_limits(SessionLimits::of(fresh.config));
    log::set_level(fresh.config.log_level);
    applied.operator_keys = fresh.config.operator_keys;
    applied.allow_anonymous = fresh.config.allow_anonymous;
    applied.log_level = fresh.config.log_level;
    applied.max_sessions = fresh.config.max_sessions;
    applied.max_sessions_per_ip = fresh.config.max_sessions_per_ip;
    applied.max_sessions_per_operator = fresh.config.max_sessions_per_operator;
    applied.max_anonymous_sessions_per_ip = fresh.config.max_anonymous_sessions_per_ip;
    applied.max_parties = fresh.config.max_parties;
    applied.default_round_timeout_ms = fresh.config.default_round_timeout_ms;
    applied.max_round_timeout_ms = fresh.config.max_round_timeout_ms;
    if (!reloaded.empty()) reloaded.pop_back();
    if (!needs_restart.empty()) needs_restart.pop_back();
    log::info("SIGHUP: configuration reloaded", {{"changed", reloaded.empty() ? std::string("nothing") : reloaded},
                                                 {"operator_keys", applied.operator_keys.size()}});
    if (!needs_restart.empty())
      log::warn("SIGHUP: these options changed but take effect only after a restart", {{"options", needs_restart}});
  }

  // On SIGHUP, on the acceptor's strand (where new connections take the context): the
  // configuration, then the certificate and key again. Connections already open keep theirs.
  void await_reload() {
    reload_signal.async_wait([this](boost::system::error_code ec, int) {
      if (ec) return;
      asio::post(acceptor.get_executor(), [this] {
        reload_config();
        if (!tls) {
          log::info("SIGHUP: no TLS certificate to reload");
        } else if (auto why = tls->reload()) {
          log::error("SIGHUP: the TLS certificate was not reloaded; the previous one stays in use", {{"reason", *why}});
        } else {
          metrics.tls_certificate_expiry(tls->not_after());
          log::info("SIGHUP: TLS certificate reloaded", {{"file", config.tls_cert}});
        }
      });
      await_reload();
    });
  }

  void begin_shutdown() {
    if (stopping) return;
    stopping = true;
    metrics.draining();
    forget_timer.cancel();
    log::info("shutting down: no new connections",
              {{"sessions_running", registry.running()}, {"grace_ms", config.shutdown_grace_ms}});
    asio::post(acceptor.get_executor(), [this] {
      boost::system::error_code ignored;
      accept_backoff.cancel();
      acceptor.close(ignored);
    });
    if (metrics_acceptor)
      asio::post(metrics_acceptor->get_executor(), [this] {
        boost::system::error_code ignored;
        metrics_acceptor->close(ignored);
      });
    registry.stop_accepting();
    // A record that outlives this process takes the sessions over: release them now, so the
    // replica (or the restarted process) their parties reach next goes on with them at once.
    // In memory they can only finish here, within the grace period.
    if (!config.record.empty()) registry.hand_over_all("this dealer replica is shutting down");
    drain_started = std::chrono::steady_clock::now();
    drain();
  }

  // Until every session has finished or moved on, or the grace period is over (the rest
  // are aborted).
  void drain() {
    const bool grace_over =
        std::chrono::steady_clock::now() - drain_started >= std::chrono::milliseconds(config.shutdown_grace_ms);
    if (registry.running() == 0 || grace_over) {
      if (registry.running() != 0) registry.shutdown_all("dealer shutting down");
      // A moment for the last Abort frames and close handshakes, then stop.
      drain_timer.expires_after(std::chrono::milliseconds(200));
      drain_timer.async_wait([this](boost::system::error_code) { ioc.stop(); });
      return;
    }
    drain_timer.expires_after(std::chrono::milliseconds(50));
    drain_timer.async_wait([this](boost::system::error_code) { drain(); });
  }
};

DealerServer::DealerServer(DealerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
DealerServer::~DealerServer() = default;

uint16_t DealerServer::port() const { return impl_->acceptor.local_endpoint().port(); }
bool DealerServer::tls() const { return impl_->tls.has_value(); }

void DealerServer::run() {
  Impl& d = *impl_;
  d.signals.async_wait([&d](boost::system::error_code ec, int) {
    if (!ec) d.begin_shutdown();
  });
  d.await_reload();
  asio::post(d.acceptor.get_executor(), [&d] { d.accept(); });
  if (d.metrics_acceptor) asio::post(d.metrics_acceptor->get_executor(), [&d] { d.accept_metrics(); });
  d.schedule_forget();
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < d.config.threads; ++i) workers.emplace_back([&d] { d.ioc.run(); });
  d.ioc.run();
  for (auto& t : workers) t.join();
  d.records.stop();
}

void DealerServer::stop() {
  asio::post(impl_->ioc, [this] { impl_->begin_shutdown(); });
}

}  // namespace bp::server
