#include "bp/server/dealer_server.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "connection.hpp"
#include "outcome_store.hpp"
#include "registry.hpp"

namespace bp::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct DealerServer::Impl {
  DealerConfig config;
  AuthPolicy auth;
  asio::io_context ioc;
  Metrics metrics;
  OutcomeStore store;
  BulletproofGens bp_gens{64, mpc::kMaxParties};
  PedersenGens pc_gens;
  SessionRegistry registry;
  std::optional<asio::ssl::context> tls;  // set when the dealer serves wss:// and https://
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer drain_timer;
  std::chrono::steady_clock::time_point drain_started;
  bool stopping = false;
  // Connections per address in the current one-second window (accept runs on one strand).
  std::unordered_map<std::string, uint32_t> connects_this_second;
  std::chrono::steady_clock::time_point window_start = std::chrono::steady_clock::now();

  bool over_rate(const tcp::socket& socket) {
    boost::system::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start >= std::chrono::seconds(1)) {
      connects_this_second.clear();
      window_start = now;
    }
    return ++connects_this_second[remote.address().to_string()] > config.max_connects_per_ip_per_s;
  }

  explicit Impl(DealerConfig c)
      : config(std::move(c)),
        auth(config),
        ioc(static_cast<int>(config.threads)),
        store(config.db_path),
        registry(ioc, config,
                 SessionEnv{&bp_gens, &pc_gens, &metrics, std::chrono::milliseconds(config.reconnect_grace_ms),
                            [this](const SessionOutcome& o) { store.record(o); }, &auth.dealer()}),
        acceptor(asio::make_strand(ioc)),
        signals(ioc, SIGTERM, SIGINT),
        drain_timer(ioc) {
    if (!config.tls_cert.empty()) {
      tls.emplace(asio::ssl::context::tls_server);
      tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
      boost::system::error_code ec;
      tls->use_certificate_chain_file(config.tls_cert, ec);
      if (ec) throw std::runtime_error("cannot load TLS certificate " + config.tls_cert + ": " + ec.message());
      tls->use_private_key_file(config.tls_key, asio::ssl::context::pem, ec);
      if (ec) throw std::runtime_error("cannot load TLS key " + config.tls_key + ": " + ec.message());
    }
    const tcp::endpoint endpoint(asio::ip::make_address(config.host), config.port);
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
    // Build the generator tables now rather than in the first session's last round.
    (void)bp_gens.G_tables(0, 1);
  }

  void accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) {
        if (!stopping) accept();
        return;
      }
      if (metrics.connections() >= static_cast<long>(config.max_connections)) {
        spdlog::warn("refusing a connection: {} open, the limit", metrics.connections());
        socket.close(ec);
      } else if (over_rate(socket)) {
        spdlog::warn("refusing a connection: over {} per second from one address", config.max_connects_per_ip_per_s);
        socket.close(ec);
      } else {
        const ConnectionEnv env{&config, &registry, &store, &metrics, &auth, &bp_gens, &pc_gens};
        if (tls)
          std::make_shared<HttpConnection<TlsStream>>(TlsStream(std::move(socket), *tls), env)->run();
        else
          std::make_shared<HttpConnection<PlainStream>>(PlainStream(std::move(socket)), env)->run();
      }
      accept();
    });
  }

  // Stop accepting, let running sessions finish within the grace period, abort the rest.
  void begin_shutdown() {
    if (stopping) return;
    stopping = true;
    spdlog::info("shutting down: no new connections; {} sessions running get up to {} ms", registry.running(),
                 config.shutdown_grace_ms);
    boost::system::error_code ec;
    acceptor.close(ec);
    registry.stop_accepting();
    drain_started = std::chrono::steady_clock::now();
    drain();
  }

  void drain() {
    const bool grace_over = std::chrono::steady_clock::now() - drain_started >=
                            std::chrono::milliseconds(config.shutdown_grace_ms);
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
  d.accept();
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < d.config.threads; ++i) workers.emplace_back([&d] { d.ioc.run(); });
  d.ioc.run();
  for (auto& t : workers) t.join();
}

void DealerServer::stop() {
  asio::post(impl_->ioc, [this] { impl_->begin_shutdown(); });
}

}  // namespace bp::server
