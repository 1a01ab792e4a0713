// HttpConnection over TLS: one of http_connection_impl.hpp's two instantiations.
#include "net/http_connection_impl.hpp"

namespace bp::server {

template class HttpConnection<TlsStream>;

}  // namespace bp::server
