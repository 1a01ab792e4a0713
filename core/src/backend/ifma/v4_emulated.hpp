// The operations of v4_ifma.hpp in plain C++, lane by lane, with the instructions'
// exact semantics (the multiply-adds read the low 52 bits of each factor and add into 64
// bits, wrapping). Only the tests use it: they compile the IFMA field, point and MSM code
// over these (ifma/msm_ifma_emulated.cpp), so that code is checked against the portable
// backend on every machine, IFMA or not. Constant time like the instructions it stands for
// (the 64×64-bit multiplication is one mul on x86-64).
#pragma once

#include <cstdint>

#include "backend/ifma/lane_masks.hpp"

namespace bp::detail::ifma_emulated {

struct V {
  uint64_t v[4];
};

inline constexpr uint64_t kLow52 = (uint64_t{1} << 52) - 1;

inline V v_splat(uint64_t x) { return {{x, x, x, x}}; }
inline V v_set(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) { return {{l0, l1, l2, l3}}; }
inline void v_store(const V& a, uint64_t out[4]) {
  for (int i = 0; i < 4; ++i) out[i] = a.v[i];
}

template <class F>
inline V lanewise(F f) {
  V r;
  for (int i = 0; i < 4; ++i) r.v[i] = f(i);
  return r;
}

inline V v_add(const V& a, const V& b) {
  return lanewise([&](int i) { return a.v[i] + b.v[i]; });
}
inline V v_sub(const V& a, const V& b) {
  return lanewise([&](int i) { return a.v[i] - b.v[i]; });
}
inline V v_and(const V& a, const V& b) {
  return lanewise([&](int i) { return a.v[i] & b.v[i]; });
}
template <int N>
inline V v_shr(const V& a) {
  return lanewise([&](int i) { return a.v[i] >> N; });
}
template <int N>
inline V v_shl(const V& a) {
  return lanewise([&](int i) { return a.v[i] << N; });
}

inline unsigned __int128 product52(uint64_t b, uint64_t c) {
  return static_cast<unsigned __int128>(b & kLow52) * (c & kLow52);
}
inline V v_madd52lo(const V& acc, const V& b, const V& c) {
  return lanewise([&](int i) { return acc.v[i] + (static_cast<uint64_t>(product52(b.v[i], c.v[i])) & kLow52); });
}
inline V v_madd52hi(const V& acc, const V& b, const V& c) {
  return lanewise([&](int i) { return acc.v[i] + static_cast<uint64_t>(product52(b.v[i], c.v[i]) >> 52); });
}

template <int Order>
inline V v_permute(const V& a) {
  return lanewise([&](int i) { return a.v[(Order >> (2 * i)) & 3]; });
}

template <int Set>
inline V v_blend(const V& a, const V& b) {
  return lanewise([&](int i) { return ((Set >> i) & 1) ? b.v[i] : a.v[i]; });
}

}  // namespace bp::detail::ifma_emulated
