// Where the prover's randomness comes from. Production code uses SystemRandom
// (libsodium's randombytes_buf); tests may plug in a deterministic stream through
// the internal prover entry points, never through the public API.
#pragma once

#include <cstdint>
#include <span>

namespace bp {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual void fill(std::span<uint8_t> out) = 0;
};

class SystemRandom final : public RandomSource {
 public:
  void fill(std::span<uint8_t> out) override;
};

}  // namespace bp
