#include "bp/random.hpp"

#include <sodium.h>

#include <cstring>

namespace bp {

void SystemRandom::fill(std::span<uint8_t> out) {
  // libsodium must be initialised once before use; sodium_init is thread-safe and idempotent,
  // so library users need not remember it.
  static const int initialised = sodium_init();
  (void)initialised;
  randombytes_buf(out.data(), out.size());
}

SeededRandom::SeededRandom(std::span<const uint8_t, 32> seed) {
  static const int initialised = sodium_init();
  (void)initialised;
  std::memcpy(seed_, seed.data(), sizeof seed_);
}

SeededRandom::~SeededRandom() { sodium_memzero(seed_, sizeof seed_); }

void SeededRandom::fill(std::span<uint8_t> out) {
  uint8_t input[sizeof seed_ + 8];
  std::memcpy(input, seed_, sizeof seed_);
  for (int i = 0; i < 8; ++i) input[sizeof seed_ + i] = static_cast<uint8_t>(calls_ >> (8 * i));
  ++calls_;
  uint8_t key[randombytes_SEEDBYTES];
  crypto_generichash(key, sizeof key, input, sizeof input, nullptr, 0);
  randombytes_buf_deterministic(out.data(), out.size(), key);
  sodium_memzero(key, sizeof key);
  sodium_memzero(input, sizeof input);
}

}  // namespace bp
