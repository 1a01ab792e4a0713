#include "net/http_routes.hpp"

#include <boost/beast/websocket/rfc6455.hpp>

#include "bp/wire/version.hpp"
#include "net/json_bodies.hpp"
#include "session/refusals.hpp"

namespace bp::server {

namespace http = boost::beast::http;

namespace {
constexpr std::string_view kSessionsPath = "/v1/sessions/";

HttpAnswer text(unsigned status, std::string body) { return {status, "text/plain", std::move(body) + "\n"}; }
}  // namespace

Route handle_request(const HttpRequest& request, const ConnectionEnv& env) {
  if (boost::beast::websocket::is_upgrade(request)) return {Route::Kind::Upgrade, {}, {}};
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
  if (target == "/metrics")
    return {Route::Kind::Answer, {200, "text/plain; version=0.0.4", env.metrics->prometheus_text()}, {}};
  if (target.rfind(kSessionsPath, 0) == 0) {
    const std::string id = target.substr(kSessionsPath.size());
    if (wire::valid_session_id(id)) return {Route::Kind::Lookup, {}, id};
    return {Route::Kind::Answer,
            {400, "application/json", error_json("a session id is 32 lowercase hex characters") + "\n"},
            {}};
  }
  return {Route::Kind::Answer, text(404, "not found"), {}};
}

std::optional<std::string> upgrade_refusal(const HttpRequest& request, const ConnectionEnv& env) {
  if (env.records->healthy()) return std::nullopt;
  if (auto id = wire::session_id_in_path(std::string(request.target())); id && env.registry->find(*id))
    return std::nullopt;
  return refusal::no_new_sessions(env.records->failure());
}

}  // namespace bp::server
