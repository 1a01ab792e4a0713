// The one way a request gets signed: by our identity's key, over the statement that binds
// it to this connection (nonce, dealer key, TLS channel) and to the key itself.
#pragma once

#include <memory>
#include <optional>

#include "bp/wire/auth.hpp"
#include "bp/wire/identity.hpp"

namespace bp::client::detail {

// `statement(key)` builds the bytes to sign for our public key; no identity, no signature
// (an anonymous request).
template <class Statement>
std::optional<wire::KeySignature> signed_by(const std::shared_ptr<const wire::Identity>& identity,
                                            Statement&& statement) {
  if (!identity) return std::nullopt;
  const auto& key = identity->public_key();
  return wire::KeySignature{key, identity->sign(statement(key))};
}

}  // namespace bp::client::detail
