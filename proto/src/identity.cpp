#include "bp/wire/identity.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "bp/hex.hpp"

namespace bp::wire {

namespace {
// The key file's one line: a fixed tag, then the 32-byte seed in hex.
constexpr std::string_view kSecretTag = "bp-ed25519-secret-key-v1 ";

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}
}  // namespace

Identity Identity::generate() {
  Identity id;
  crypto_sign_keypair(id.public_key_.data(), id.secret_.data());
  return id;
}

Result<Identity, std::string> Identity::load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot read key file " + path + ": " + std::strerror(errno));
  if ((st.st_mode & 077) != 0) return std::string("key file " + path + " is readable by others (chmod 600 it)");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  line = trim(line);
  if (line.rfind(kSecretTag, 0) != 0) return std::string("key file " + path + " is not a bp Ed25519 secret key");
  auto seed = from_hex(std::string_view(line).substr(kSecretTag.size()));
  sodium_memzero(line.data(), line.size());
  if (!seed || seed->size() != crypto_sign_SEEDBYTES) {
    if (seed) sodium_memzero(seed->data(), seed->size());
    return std::string("key file " + path + " holds a malformed key");
  }
  Identity id;
  crypto_sign_seed_keypair(id.public_key_.data(), id.secret_.data(), seed->data());
  sodium_memzero(seed->data(), seed->size());
  return id;
}

Identity::Identity(Identity&& other) noexcept : secret_(other.secret_), public_key_(other.public_key_) {
  sodium_memzero(other.secret_.data(), other.secret_.size());
}

Identity& Identity::operator=(Identity&& other) noexcept {
  if (this != &other) {
    secret_ = other.secret_;
    public_key_ = other.public_key_;
    sodium_memzero(other.secret_.data(), other.secret_.size());
  }
  return *this;
}

Identity::~Identity() { sodium_memzero(secret_.data(), secret_.size()); }

std::optional<std::string> Identity::save(const std::string& path) const {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  std::string text =
      std::string(kSecretTag) + to_hex(std::span<const uint8_t>(secret_.data(), crypto_sign_SEEDBYTES)) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  sodium_memzero(text.data(), text.size());
  ::fsync(fd);
  ::close(fd);
  if (!written) return "cannot write " + path;
  std::ofstream pub(path + ".pub", std::ios::trunc);
  pub << public_key_hex(public_key_) << "\n";
  if (!pub) return "cannot write " + path + ".pub";
  return std::nullopt;
}

Signature Identity::sign(std::span<const uint8_t> message) const {
  Signature sig{};
  crypto_sign_detached(sig.data(), nullptr, message.data(), message.size(), secret_.data());
  return sig;
}

bool verify_signature(const PublicKey& key, std::span<const uint8_t> message, const Signature& signature) {
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), key.data()) == 0;
}

std::string public_key_hex(const PublicKey& key) { return to_hex(key); }

std::optional<PublicKey> parse_public_key(std::string_view hex_or_path) {
  std::string text(hex_or_path);
  // 64 hex characters are a key; anything else (a 64-character path too) names a file.
  const auto direct = from_hex(text);
  if (!direct || direct->size() != kPublicKeyBytes) {
    std::ifstream in(text);
    if (!in) return std::nullopt;
    std::stringstream content;
    content << in.rdbuf();
    text = trim(content.str());
  }
  auto bytes = from_hex(text);
  if (!bytes || bytes->size() != kPublicKeyBytes) return std::nullopt;
  PublicKey key;
  std::memcpy(key.data(), bytes->data(), key.size());
  return key;
}

}  // namespace bp::wire
