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

int to_naf_vartime(NafDigit out[256], const Scalar& s, int w) {
  uint64_t words[6] = {};  // two zero words past the top, so every 64-bit read stays inside
  load_words(words, s);
  const uint64_t mask = (uint64_t{1} << w) - 1, half = uint64_t{1} << (w - 1);
  uint64_t carry = 0;
  int pos = 0, count = 0;
  while (pos < 256) {
    // The number still to write is (s >> pos) + carry. Its low 64 bits: skip its trailing
    // zeros (which also absorbs a carry into a run of ones) and take the odd window there.
    const uint64_t chunk = bits64_at(words, pos);
    const uint64_t sum = chunk + carry;
    if (sum == 0) {  // 64 zeros, or 64 ones plus a carry that moves on
      pos += 64;
      continue;
    }
    const int tz = __builtin_ctzll(sum);
    const int at = pos + tz;
    if (at >= 256) break;
    uint64_t window = sum >> tz;
    if (tz + w > 64) window |= bits64_at(words, pos + 64) << (64 - tz);
    window &= mask;
    carry = window >= half;
    out[count++] = NafDigit{static_cast<uint8_t>(at),
                            static_cast<int8_t>(static_cast<int64_t>(window) - static_cast<int64_t>(carry << w))};
    pos = at + w;
  }
  return count;
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
