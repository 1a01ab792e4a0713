#include "conversation.hpp"

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <new>

namespace bp::client::detail {

namespace asio = boost::asio;

ClientError protocol_error(const std::string& what) { return {ClientErrorKind::Protocol, what, {}}; }

ClientError internal_error(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return {ClientErrorKind::Internal,
            "out of memory: an allocation of the party failed (" + std::string(e.what()) + ")",
            {}};
  return {ClientErrorKind::Internal, std::string("an unexpected error in the party: ") + e.what(), {}};
}

// websocket_conversation.hpp's, instantiated in conversation_plain.cpp and conversation_tls.cpp.
template <bool Tls>
std::shared_ptr<Conversation> start_conversation(const Strand& strand, const Endpoint& dealer,
                                                 const std::string& session_id, const Options& options,
                                                 const LinkEmulation& link, std::shared_ptr<Dialogue> dialogue,
                                                 std::shared_ptr<asio::ssl::context> tls);
extern template std::shared_ptr<Conversation> start_conversation<false>(const Strand&, const Endpoint&,
                                                                        const std::string&, const Options&,
                                                                        const LinkEmulation&, std::shared_ptr<Dialogue>,
                                                                        std::shared_ptr<asio::ssl::context>);
extern template std::shared_ptr<Conversation> start_conversation<true>(const Strand&, const Endpoint&,
                                                                       const std::string&, const Options&,
                                                                       const LinkEmulation&, std::shared_ptr<Dialogue>,
                                                                       std::shared_ptr<asio::ssl::context>);

// conversation_tls.cpp's: a TLS context that verifies against the options' CA file (or the
// system's).
ClientResult<std::shared_ptr<asio::ssl::context>> tls_context(const Options& options);

std::shared_ptr<Conversation> converse(const Strand& strand, const Endpoint& dealer, const std::string& session_id,
                                       const Options& options, const LinkEmulation& link,
                                       std::shared_ptr<Dialogue> dialogue) {
  if (!dealer.tls)
    return start_conversation<false>(strand, dealer, session_id, options, link, std::move(dialogue), nullptr);
  auto ctx = tls_context(options);
  if (!ctx) {
    dialogue->on_fail(ctx.error());
    return nullptr;
  }
  return start_conversation<true>(strand, dealer, session_id, options, link, std::move(dialogue), std::move(*ctx));
}

}  // namespace bp::client::detail
