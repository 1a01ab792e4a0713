// HttpConnection over plain TCP: one of http_connection_impl.hpp's two instantiations.
#include "net/http_connection_impl.hpp"

namespace bp::server {

template class HttpConnection<PlainStream>;

}  // namespace bp::server
