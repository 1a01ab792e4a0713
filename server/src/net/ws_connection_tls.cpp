// WsConnection over TLS: one of ws_connection_impl.hpp's two instantiations.
#include "net/ws_connection_impl.hpp"

namespace bp::server {

template class WsConnection<TlsStream>;

}  // namespace bp::server
