// The WebSocket conversation over TLS (wss://): the TLS context a party verifies the dealer
// with, and websocket_conversation.hpp's TLS instantiation (a file of its own, so that it
// compiles beside the plain one).
#include "websocket_conversation.hpp"

namespace bp::client::detail {

// A TLS context that verifies against the options' CA file (or the system's).
ClientResult<std::shared_ptr<asio::ssl::context>> tls_context(const Options& options) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  if (auto why = wire::apply_tls_profile(ctx->native_handle(), wire::TlsFloor::Tls12))
    return ClientError{ClientErrorKind::Refused, "TLS: " + *why, {}};
  boost::system::error_code ec;
  if (!options.ca_file.empty())
    ctx->load_verify_file(options.ca_file, ec);
  else
    ctx->set_default_verify_paths(ec);
  if (ec)
    return ClientError{ClientErrorKind::Refused, "cannot load CA file " + options.ca_file + ": " + ec.message(), {}};
  return ctx;
}

template std::shared_ptr<Conversation> start_conversation<true>(const Strand&, const Endpoint&, const std::string&,
                                                                const Options&, const LinkEmulation&,
                                                                std::shared_ptr<Dialogue>,
                                                                std::shared_ptr<asio::ssl::context>);

}  // namespace bp::client::detail
