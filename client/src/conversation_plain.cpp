// The WebSocket conversation over plain TCP (ws://): one of websocket_conversation.hpp's two
// instantiations, in a file of its own so that the two compile side by side.
#include "websocket_conversation.hpp"

namespace bp::client::detail {

template std::shared_ptr<Conversation> start_conversation<false>(const Strand&, const Endpoint&, const std::string&,
                                                                 const Options&, const LinkEmulation&,
                                                                 std::shared_ptr<Dialogue>,
                                                                 std::shared_ptr<asio::ssl::context>);

}  // namespace bp::client::detail
