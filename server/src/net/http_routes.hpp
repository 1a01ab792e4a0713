// What an HTTP request asks for, decided from the request and the dealer's state alone
// (after Beast's examples, routing lives outside the connection class): an answer to write
// now, or one of the requests that need more than that (the record, the verification pool,
// a WebSocket).
#pragma once

#include <string>

#include "net/connection_env.hpp"

namespace bp::server {

struct HttpAnswer {
  unsigned status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

struct Route {
  enum class Kind {
    Answer,   // write `answer`
    Upgrade,  // hand the socket to a WebSocket connection
    Verify,   // POST /v1/verify: the body goes to the verification pool
    Lookup,   // GET /v1/sessions/ID: asked of the record (`session_id`)
  };
  Kind kind = Kind::Answer;
  HttpAnswer answer;
  std::string session_id;
};

Route handle_request(const HttpRequest& request, const ConnectionEnv& env);
// What the parties' port answers (handle_request for a connection not on --metrics-listen).
Route public_route(const HttpRequest& request, const ConnectionEnv& env);

// Why a WebSocket upgrade is refused with 503 while the record fails, if it is: only the
// parties of a session running here get through (it then ends with an abort that says why).
std::optional<std::string> upgrade_refusal(const HttpRequest& request, const ConnectionEnv& env);

}  // namespace bp::server
