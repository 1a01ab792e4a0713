// The operations of v4x2_ifma.hpp in plain C++: each half is a v4_emulated.hpp value and
// every operation is that file's, once per half. Only the tests use it.
#pragma once

#include <cstdint>

#include "backend/ifma/v4_emulated.hpp"

namespace bp::detail::ifma_x2_emulated {

using Half = ifma_emulated::V;

struct V {
  Half low, high;
};

inline V v_splat(uint64_t x) { return {ifma_emulated::v_splat(x), ifma_emulated::v_splat(x)}; }
inline V v_set(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return {ifma_emulated::v_set(l0, l1, l2, l3), ifma_emulated::v_set(l0, l1, l2, l3)};
}
inline void v_store(const V& a, uint64_t out[4]) { ifma_emulated::v_store(a.low, out); }
inline V v_add(const V& a, const V& b) {
  return {ifma_emulated::v_add(a.low, b.low), ifma_emulated::v_add(a.high, b.high)};
}
inline V v_sub(const V& a, const V& b) {
  return {ifma_emulated::v_sub(a.low, b.low), ifma_emulated::v_sub(a.high, b.high)};
}
inline V v_and(const V& a, const V& b) {
  return {ifma_emulated::v_and(a.low, b.low), ifma_emulated::v_and(a.high, b.high)};
}
template <int N>
inline V v_shr(const V& a) {
  return {ifma_emulated::v_shr<N>(a.low), ifma_emulated::v_shr<N>(a.high)};
}
template <int N>
inline V v_shl(const V& a) {
  return {ifma_emulated::v_shl<N>(a.low), ifma_emulated::v_shl<N>(a.high)};
}
inline V v_madd52lo(const V& acc, const V& b, const V& c) {
  return {ifma_emulated::v_madd52lo(acc.low, b.low, c.low), ifma_emulated::v_madd52lo(acc.high, b.high, c.high)};
}
inline V v_madd52hi(const V& acc, const V& b, const V& c) {
  return {ifma_emulated::v_madd52hi(acc.low, b.low, c.low), ifma_emulated::v_madd52hi(acc.high, b.high, c.high)};
}
template <int Order>
inline V v_permute(const V& a) {
  return {ifma_emulated::v_permute<Order>(a.low), ifma_emulated::v_permute<Order>(a.high)};
}
template <int Set>
inline V v_blend(const V& a, const V& b) {
  return {ifma_emulated::v_blend<Set>(a.low, b.low), ifma_emulated::v_blend<Set>(a.high, b.high)};
}
inline V v_join(const Half& low, const Half& high) { return {low, high}; }
inline Half v_low(const V& a) { return a.low; }
inline Half v_high(const V& a) { return a.high; }

}  // namespace bp::detail::ifma_x2_emulated
