// Long-term Ed25519 identities (libsodium crypto_sign): parties, operators and the dealer
// each hold one. A secret key lives in a file only its owner can read (mode 0600, as ssh
// insists) and in memory only inside an Identity, which wipes it when destroyed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bp/errors.hpp"

namespace bp::wire {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kSignatureBytes = 64;
using PublicKey = std::array<uint8_t, kPublicKeyBytes>;
using Signature = std::array<uint8_t, kSignatureBytes>;

class Identity {
 public:
  static Identity generate();  // randomness from libsodium
  // Reads a key file written by save(); refuses one that group or others may read.
  static Result<Identity, std::string> load(const std::string& path);

  Identity(Identity&& other) noexcept;
  Identity& operator=(Identity&& other) noexcept;
  Identity(const Identity&) = delete;
  Identity& operator=(const Identity&) = delete;
  ~Identity();

  // Writes the secret key to `path` (created with mode 0600, never overwriting) and the
  // public key in hex to `path`.pub. Returns the reason on failure.
  std::optional<std::string> save(const std::string& path) const;

  const PublicKey& public_key() const { return public_key_; }
  Signature sign(std::span<const uint8_t> message) const;

 private:
  Identity() = default;
  std::array<uint8_t, 64> secret_{};  // libsodium's seed || public key
  PublicKey public_key_{};
};

bool verify_signature(const PublicKey& key, std::span<const uint8_t> message, const Signature& signature);

std::string public_key_hex(const PublicKey& key);
// 64 hex characters, or the path of a file holding them (a .pub file from save()).
std::optional<PublicKey> parse_public_key(std::string_view hex_or_path);

}  // namespace bp::wire
