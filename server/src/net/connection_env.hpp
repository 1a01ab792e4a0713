// What the dealer's connections share: the daemon's parts they use, and the two transports.
#pragma once

#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "bp/server/config.hpp"
#include "session/auth_policy.hpp"
#include "observability/metrics.hpp"
#include "session/registry.hpp"
#include "record/record_service.hpp"
#include "net/verify_pool.hpp"

namespace bp::server {

// The library names every connection file uses.
namespace asio = boost::asio;
namespace beast = boost::beast;

struct ConnectionEnv {
  const DealerConfig* config;
  SessionRegistry* registry;
  RecordService* records;
  const std::atomic<bool>* stopping;  // set once the dealer drains: not ready any more
  Metrics* metrics;
  const AuthPolicy* auth;
  const BulletproofGens* bp_gens;  // for POST /v1/verify
  const PedersenGens* pc_gens;
  VerifyPool* verifier;
  // The connection came in on --metrics-listen: metrics, health and the session listing
  // only (no WebSocket, no verification, no lookups).
  bool metrics_listener = false;
  // --metrics-token-file's token (empty: none): every request on that listener carries it.
  const std::string* metrics_token = nullptr;
};

// Plain TCP (ws://, loopback demos) and TLS over TCP (wss://, https://).
using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
template <class Stream>
inline constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

}  // namespace bp::server
