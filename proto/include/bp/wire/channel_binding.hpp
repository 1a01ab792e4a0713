// The TLS channel binding both ends put in their signed statements: the connection's
// RFC 5705 / RFC 8446 exporter value under kTlsExporterLabel. One definition, so the
// dealer and the party cannot derive it differently.
#pragma once

#include "bp/wire/auth.hpp"

struct ssl_st;  // OpenSSL's SSL

namespace bp::wire {

// Fills channel.channel_binding from the TLS connection `ssl`; false if OpenSSL has no
// exporter for it (the handshake is not done), and the binding is then left empty.
bool export_channel_binding(ssl_st* ssl, ChannelContext& channel);

}  // namespace bp::wire
