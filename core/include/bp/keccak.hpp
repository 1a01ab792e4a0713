// Keccak-f[1600] and the two FIPS 202 functions the proof system needs:
// SHA3-512 (Pedersen blinding generator) and SHAKE256 (Bulletproofs generator chain).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bp {

void keccak_f1600(uint64_t state[25]);

std::array<uint8_t, 64> sha3_512(std::span<const uint8_t> message);

// Absorb with update(), then read any amount of output with squeeze().
class Shake256 {
 public:
  void update(std::span<const uint8_t> data);
  void squeeze(std::span<uint8_t> out);

 private:
  static constexpr size_t kRate = 136;
  uint64_t state_[25] = {};
  size_t pos_ = 0;
  bool squeezing_ = false;
};

}  // namespace bp
