// The deterministic RNG of VECTORS.md: rand_chacha's ChaCha20Rng, i.e. the plain ChaCha20
// keystream (key = seed, nonce = 0, block counter from 0), consumed contiguously. Test only.
#pragma once

#include <array>
#include <cstdint>

#include "bp/random.hpp"

namespace bp::test {

class ChaCha20Rng final : public RandomSource {
 public:
  explicit ChaCha20Rng(const std::array<uint8_t, 32>& seed) : key_(seed) {}
  void fill(std::span<uint8_t> out) override;

 private:
  std::array<uint8_t, 32> key_;
  std::array<uint8_t, 64> block_{};
  uint64_t counter_ = 0;
  size_t used_ = 64;  // bytes of block_ already handed out
};

}  // namespace bp::test
