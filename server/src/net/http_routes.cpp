#include "net/http_routes.hpp"

#include <signal.h>
#include <sodium.h>
#include <unistd.h>

#include <boost/beast/websocket/rfc6455.hpp>

#include "bp/wire/version.hpp"
#include "net/json_bodies.hpp"
#include "net/session_listing.hpp"
#include "session/refusals.hpp"

namespace bp::server {

namespace http = boost::beast::http;

namespace {
constexpr std::string_view kSessionsPath = "/v1/sessions/";

HttpAnswer text(unsigned status, std::string body) { return {status, "text/plain", std::move(body) + "\n"}; }
}  // namespace

namespace {

// The operator's listener (--metrics-listen): read-only views of the dealer, nothing a party
// uses.
// The operator's bearer token, compared in constant time (only its length shows).
bool carries_token(const HttpRequest& request, const std::string& token) {
  const auto header = request[http::field::authorization];
  const std::string expected = "Bearer " + token;
  return header.size() == expected.size() && sodium_memcmp(header.data(), expected.data(), expected.size()) == 0;
}

Route metrics_listener_route(const HttpRequest& request, const ConnectionEnv& env) {
  const std::string target(request.target());
  if (env.metrics_token && !env.metrics_token->empty() && !carries_token(request, *env.metrics_token))
    return {
        Route::Kind::Answer, text(401, "this listener needs 'Authorization: Bearer TOKEN' (--metrics-token-file)"), {}};
  // The documented admin request for a reload: the same as SIGHUP (the signal's handler does
  // the work, so the two can never differ); the log says what changed.
  if (request.method() == http::verb::post && target == "/v1/reload") {
    if (::kill(::getpid(), SIGHUP) != 0)
      return {Route::Kind::Answer, text(500, "the reload could not be signalled"), {}};
    return {Route::Kind::Answer, text(202, "reload requested: the log says what changed (SIGHUP: ...)"), {}};
  }
  if (request.method() != http::verb::get)
    return {Route::Kind::Answer, text(405, "GET, or POST /v1/reload, on this listener"), {}};
  const auto query_at = target.find('?');
  const std::string path = target.substr(0, query_at);
  if (path == "/v1/sessions")
    return {Route::Kind::Answer,
            session_listing(
                query_at == std::string::npos ? std::string_view() : std::string_view(target).substr(query_at + 1),
                env.registry->listing()),
            {}};
  if (target == "/metrics" || target == "/healthz" || target == "/readyz" || target == "/v1/version")
    return public_route(request, env);
  return {Route::Kind::Answer,
          text(404, "not found: this listener serves /metrics, /healthz, /readyz, /v1/version and /v1/sessions"),
          {}};
}

}  // namespace

Route handle_request(const HttpRequest& request, const ConnectionEnv& env) {
  if (env.metrics_listener) return metrics_listener_route(request, env);
  if (boost::beast::websocket::is_upgrade(request)) return {Route::Kind::Upgrade, {}, {}};
  return public_route(request, env);
}

Route public_route(const HttpRequest& request, const ConnectionEnv& env) {
  const std::string target(request.target());
  if (request.method() == http::verb::post && target == "/v1/verify") return {Route::Kind::Verify, {}, {}};
  if (request.method() != http::verb::get) return {Route::Kind::Answer, text(405, "GET, or POST /v1/verify"), {}};
  // Liveness: the process serves. Readiness: it can take new sessions (the record answers
  // and it is not draining), so a balancer sends it new work only then.
  if (target == "/healthz") return {Route::Kind::Answer, text(200, "ok"), {}};
  if (target == "/v1/version") return {Route::Kind::Answer, {200, "application/json", wire::version_json() + "\n"}, {}};
  if (target == "/readyz") {
    if (env.stopping->load()) return {Route::Kind::Answer, text(503, "shutting down"), {}};
    if (!env.records->healthy())
      return {Route::Kind::Answer, text(503, refusal::record_unavailable(env.records->failure())), {}};
    return {Route::Kind::Answer, text(200, "ready"), {}};
  }
  if (target == "/metrics") {
    if (!env.metrics_listener && !env.config->metrics_host.empty())
      return {Route::Kind::Answer, text(404, "not found: /metrics is served on --metrics-listen"), {}};
    return {Route::Kind::Answer, {200, "text/plain; version=0.0.4", env.metrics->prometheus_text()}, {}};
  }
  if (target.rfind(kSessionsPath, 0) == 0) {
    const std::string id = target.substr(kSessionsPath.size());
    if (wire::valid_session_id(id)) return {Route::Kind::Lookup, {}, id};
    return {Route::Kind::Answer,
            {400, "application/json", error_json("a session id is 32 lowercase hex characters") + "\n"},
            {}};
  }
  if (target == "/v1/sessions" || target.rfind("/v1/sessions?", 0) == 0)
    return {Route::Kind::Answer,
            text(404, "not found: GET /v1/sessions/ID here; the listing of every session is on --metrics-listen"),
            {}};
  return {Route::Kind::Answer, text(404, "not found"), {}};
}

std::optional<std::string> upgrade_refusal(const HttpRequest& request, const ConnectionEnv& env) {
  if (env.records->healthy()) return std::nullopt;
  if (auto id = wire::session_id_in_path(std::string(request.target())); id && env.registry->find(*id))
    return std::nullopt;
  return refusal::no_new_sessions(env.records->failure());
}

}  // namespace bp::server
