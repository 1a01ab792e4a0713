#include "bp/keccak.hpp"

#include <cstring>

namespace bp {
namespace {

constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL, 0x000000000000808bULL,
    0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL, 0x0000000000000088ULL,
    0x0000000080008009ULL, 0x000000008000000aULL, 0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};

// The rho rotations and pi lane order, walked as one cycle starting at lane 1.
constexpr int kRotations[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
constexpr int kPiLanes[24] = {10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1};

inline uint64_t rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }

// Byte i of the state seen as the little-endian sponge buffer.
inline void xor_byte(uint64_t state[25], size_t i, uint8_t b) { state[i / 8] ^= uint64_t{b} << (8 * (i % 8)); }
inline uint8_t get_byte(const uint64_t state[25], size_t i) {
  return static_cast<uint8_t>(state[i / 8] >> (8 * (i % 8)));
}

}  // namespace

void keccak_f1600(uint64_t st[25]) {
  // Work on a local copy: with every loop below fully unrolled, each index is a constant
  // and the 25 lanes live in registers instead of being reloaded through the pointer.
  uint64_t a[25];
  std::memcpy(a, st, sizeof a);
  uint64_t bc[5];
  for (int round = 0; round < 24; ++round) {
#pragma GCC unroll 5
    for (int i = 0; i < 5; ++i) bc[i] = a[i] ^ a[i + 5] ^ a[i + 10] ^ a[i + 15] ^ a[i + 20];
#pragma GCC unroll 5
    for (int i = 0; i < 5; ++i) {
      const uint64_t t = bc[(i + 4) % 5] ^ rotl(bc[(i + 1) % 5], 1);
#pragma GCC unroll 5
      for (int j = 0; j < 25; j += 5) a[j + i] ^= t;
    }
    uint64_t carried = a[1];
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) {
      const int lane = kPiLanes[i];
      const uint64_t next = a[lane];
      a[lane] = rotl(carried, kRotations[i]);
      carried = next;
    }
#pragma GCC unroll 5
    for (int j = 0; j < 25; j += 5) {
#pragma GCC unroll 5
      for (int i = 0; i < 5; ++i) bc[i] = a[j + i];
#pragma GCC unroll 5
      for (int i = 0; i < 5; ++i) a[j + i] ^= (~bc[(i + 1) % 5]) & bc[(i + 2) % 5];
    }
    a[0] ^= kRoundConstants[round];
  }
  std::memcpy(st, a, sizeof a);
}

std::array<uint8_t, 64> sha3_512(std::span<const uint8_t> message) {
  constexpr size_t kRate = 72;
  uint64_t st[25] = {};
  size_t pos = 0;
  for (uint8_t b : message) {
    xor_byte(st, pos++, b);
    if (pos == kRate) {
      keccak_f1600(st);
      pos = 0;
    }
  }
  xor_byte(st, pos, 0x06);  // SHA-3 domain bits and the first padding bit
  xor_byte(st, kRate - 1, 0x80);
  keccak_f1600(st);
  std::array<uint8_t, 64> out;
  for (size_t i = 0; i < 64; ++i) out[i] = get_byte(st, i);
  return out;
}

void Shake256::update(std::span<const uint8_t> data) {
  for (uint8_t b : data) {
    xor_byte(state_, pos_++, b);
    if (pos_ == kRate) {
      keccak_f1600(state_);
      pos_ = 0;
    }
  }
}

void Shake256::squeeze(std::span<uint8_t> out) {
  if (!squeezing_) {
    xor_byte(state_, pos_, 0x1f);  // SHAKE domain bits and the first padding bit
    xor_byte(state_, kRate - 1, 0x80);
    keccak_f1600(state_);
    pos_ = 0;
    squeezing_ = true;
  }
  for (uint8_t& b : out) {
    if (pos_ == kRate) {
      keccak_f1600(state_);
      pos_ = 0;
    }
    b = get_byte(state_, pos_++);
  }
}

}  // namespace bp
