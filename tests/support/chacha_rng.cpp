#include "chacha_rng.hpp"

#include <sodium.h>

namespace bp::test {

void ChaCha20Rng::fill(std::span<uint8_t> out) {
  static const uint8_t kZeroNonce[crypto_stream_chacha20_NONCEBYTES] = {};
  static const uint8_t kZeros[64] = {};
  for (uint8_t& b : out) {
    if (used_ == 64) {
      crypto_stream_chacha20_xor_ic(block_.data(), kZeros, 64, kZeroNonce, counter_++, key_.data());
      used_ = 0;
    }
    b = block_[used_++];
  }
}

}  // namespace bp::test
