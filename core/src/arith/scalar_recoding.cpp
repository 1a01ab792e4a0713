#include "arith/scalar_recoding.hpp"

#include <sodium.h>

#include <cstring>

namespace bp::detail {

void to_radix16(int8_t digits[64], const Scalar& s) {
  Scalar::Bytes bytes = s.to_bytes();
  for (int i = 0; i < 32; ++i) {
    digits[2 * i] = static_cast<int8_t>(bytes[i] & 15);
    digits[2 * i + 1] = static_cast<int8_t>((bytes[i] >> 4) & 15);
  }
  // Move each digit into [-8, 8) by carrying into the next; arithmetic only, no branches.
  int8_t carry = 0;
  for (int i = 0; i < 63; ++i) {
    digits[i] = static_cast<int8_t>(digits[i] + carry);
    carry = static_cast<int8_t>((digits[i] + 8) >> 4);
    digits[i] = static_cast<int8_t>(digits[i] - (carry << 4));
  }
  digits[63] = static_cast<int8_t>(digits[63] + carry);
  sodium_memzero(bytes.data(), bytes.size());
}

namespace {
void load_words(uint64_t words[5], const Scalar& s) {
  const Scalar::Bytes bytes = s.to_bytes();
  std::memcpy(words, bytes.data(), 32);
  words[4] = 0;
}

// The 64 bits from pos on (zeros past the top); words has a zero word past pos / 64 + 1.
uint64_t bits64_at(const uint64_t words[], int pos) {
  const int word = pos / 64, bit = pos % 64;
  uint64_t buf = words[word] >> bit;
  if (bit != 0) buf |= words[word + 1] << (64 - bit);
  return buf;
}

uint64_t bits_at(const uint64_t words[5], int pos, int count) {
  const int word = pos / 64, bit = pos % 64;
  uint64_t buf = words[word] >> bit;
  if (bit + count > 64 && word < 4) buf |= words[word + 1] << (64 - bit);
  return buf & ((uint64_t{1} << count) - 1);
}
}  // namespace

namespace {

// One scalar's NAF in progress: what is left to write is (s >> pos) + carry.
struct NafCursor {
  uint64_t words[6] = {};  // two zero words past the top, so every 64-bit read stays inside
  uint64_t carry = 0;
  int pos = 0;
  int count = 0;
  NafDigit* out;

  NafCursor(NafDigit* out_digits, const Scalar& s) : out(out_digits) { load_words(words, s); }

  // Writes the next nonzero digit; false once there is none. The low 64 bits of what is
  // left: skip their trailing zeros (which also absorbs a carry into a run of ones) and
  // take the odd window there.
  bool step(int w, uint64_t mask, uint64_t half) {
    for (;;) {
      if (pos >= 256) return false;
      const uint64_t sum = bits64_at(words, pos) + carry;
      if (sum != 0) {
        const int tz = __builtin_ctzll(sum);
        const int at = pos + tz;
        if (at >= 256) return false;
        uint64_t window = sum >> tz;
        if (tz + w > 64) window |= bits64_at(words, pos + 64) << (64 - tz);
        window &= mask;
        carry = window >= half;
        out[count++] = NafDigit{static_cast<uint8_t>(at),
                                static_cast<int8_t>(static_cast<int64_t>(window) - static_cast<int64_t>(carry << w))};
        pos = at + w;
        return true;
      }
      pos += 64;  // 64 zeros, or 64 ones plus a carry that moves on
    }
  }
};

}  // namespace

int to_naf_vartime(NafDigit out[256], const Scalar& s, int w) {
  NafCursor c(out, s);
  const uint64_t mask = (uint64_t{1} << w) - 1, half = uint64_t{1} << (w - 1);
  while (c.step(w, mask, half)) {
  }
  return c.count;
}

void to_naf_vartime_x2(NafDigit out0[256], const Scalar& s0, NafDigit out1[256], const Scalar& s1, int w,
                       int counts[2]) {
  NafCursor c0(out0, s0), c1(out1, s1);
  const uint64_t mask = (uint64_t{1} << w) - 1, half = uint64_t{1} << (w - 1);
  bool more0 = true, more1 = true;
  while (more0 && more1) {
    more0 = c0.step(w, mask, half);
    more1 = c1.step(w, mask, half);
  }
  while (more0) more0 = c0.step(w, mask, half);
  while (more1) more1 = c1.step(w, mask, half);
  counts[0] = c0.count;
  counts[1] = c1.count;
}

int to_signed_radix_vartime(int32_t* digits, const Scalar& s, int c) {
  uint64_t words[5];
  load_words(words, s);
  const int count = (256 + c - 1) / c;
  const int64_t radix = int64_t{1} << c;
  int64_t carry = 0;
  for (int i = 0; i < count; ++i) {
    const int64_t d = static_cast<int64_t>(bits_at(words, i * c, c)) + carry;
    carry = (d + radix / 2) >> c;
    digits[i] = static_cast<int32_t>(d - (carry << c));
  }
  digits[count] = static_cast<int32_t>(carry);
  return count + 1;
}

}  // namespace bp::detail
