#include "bp/wire/tls_profile.hpp"

#include <openssl/ssl.h>

namespace bp::wire {

std::optional<TlsFloor> tls_floor_from_name(std::string_view name) {
  if (name == "1.2") return TlsFloor::Tls12;
  if (name == "1.3") return TlsFloor::Tls13;
  return std::nullopt;
}

std::optional<std::string> apply_tls_profile(ssl_ctx_st* ctx, TlsFloor floor) {
  if (SSL_CTX_set_min_proto_version(ctx, floor == TlsFloor::Tls13 ? TLS1_3_VERSION : TLS1_2_VERSION) != 1)
    return "the TLS version floor was refused";
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) return "the TLS 1.2 cipher list was refused";
  // Curves for ECDHE (and TLS 1.3's key share): X25519 first, then the NIST ones clients have.
  if (SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") != 1) return "the key-exchange groups were refused";
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                               SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
  return std::nullopt;
}

}  // namespace bp::wire
