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

// A stream that a 32-byte seed fixes: libsodium's randombytes_buf_deterministic (ChaCha20)
// keyed by BLAKE2b(seed || call counter), so two sources with one seed give the same bytes
// call for call. Only for randomness that may be replayed: the dealer's padding parties
// (value 0, blinding 0, nothing secret), rebuilt from the seed by the replica that takes
// over a session. The seed is wiped with the source.
class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(std::span<const uint8_t, 32> seed);
  ~SeededRandom() override;
  SeededRandom(const SeededRandom&) = delete;
  SeededRandom& operator=(const SeededRandom&) = delete;
  void fill(std::span<uint8_t> out) override;

 private:
  uint8_t seed_[32];
  uint64_t calls_ = 0;
};

}  // namespace bp
