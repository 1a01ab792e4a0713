// The operations of v8_ifma.hpp in plain C++, lane by lane, with the instructions' exact
// semantics (as v4_emulated.hpp for four lanes). Only the tests use it: they run
// field52x8.inc over these on every machine.
#pragma once

#include <cstdint>

namespace bp::detail::ifma_emulated {

struct V8 {
  uint64_t v[8];
};

template <class F>
inline V8 lanewise8(F f) {
  V8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = f(i);
  return r;
}

inline V8 v8_splat(uint64_t x) {
  return lanewise8([&](int) { return x; });
}
inline V8 v8_load(const uint64_t in[8]) {
  return lanewise8([&](int i) { return in[i]; });
}
inline void v8_store(const V8& a, uint64_t out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = a.v[i];
}
inline V8 v8_add(const V8& a, const V8& b) {
  return lanewise8([&](int i) { return a.v[i] + b.v[i]; });
}
inline V8 v8_sub(const V8& a, const V8& b) {
  return lanewise8([&](int i) { return a.v[i] - b.v[i]; });
}
inline V8 v8_and(const V8& a, const V8& b) {
  return lanewise8([&](int i) { return a.v[i] & b.v[i]; });
}
template <int N>
inline V8 v8_shr(const V8& a) {
  return lanewise8([&](int i) { return a.v[i] >> N; });
}
template <int N>
inline V8 v8_shl(const V8& a) {
  return lanewise8([&](int i) { return a.v[i] << N; });
}

inline unsigned __int128 product52_8(uint64_t b, uint64_t c) {
  constexpr uint64_t low52 = (uint64_t{1} << 52) - 1;
  return static_cast<unsigned __int128>(b & low52) * (c & low52);
}
inline V8 v8_madd52lo(const V8& acc, const V8& b, const V8& c) {
  constexpr uint64_t low52 = (uint64_t{1} << 52) - 1;
  return lanewise8([&](int i) { return acc.v[i] + (static_cast<uint64_t>(product52_8(b.v[i], c.v[i])) & low52); });
}
inline V8 v8_madd52hi(const V8& acc, const V8& b, const V8& c) {
  return lanewise8([&](int i) { return acc.v[i] + static_cast<uint64_t>(product52_8(b.v[i], c.v[i]) >> 52); });
}

}  // namespace bp::detail::ifma_emulated
