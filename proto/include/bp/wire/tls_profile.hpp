// The one TLS profile of the dealer and the party client, after Mozilla's "intermediate"
// server configuration: TLS 1.2 with ECDHE key exchange and AEAD ciphers only, and TLS 1.3;
// no compression, no renegotiation, the server's cipher order. Operators who need TLS 1.3
// only raise the floor (bp-dealer --tls-min-version 1.3).
#pragma once

#include <optional>
#include <string>
#include <string_view>

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace bp::wire {

enum class TlsFloor { Tls12, Tls13 };
std::optional<TlsFloor> tls_floor_from_name(std::string_view name);  // "1.2" or "1.3"

// The TLS 1.2 suites offered (every one ECDHE with AES-GCM or ChaCha20-Poly1305).
inline constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// Applies the profile to a context; the reason when OpenSSL refuses a part of it.
std::optional<std::string> apply_tls_profile(ssl_ctx_st* ctx, TlsFloor floor);

}  // namespace bp::wire
