#include "backend/scalar_lanes.hpp"

#include <cassert>
#include <cstdint>

#include "arith/scalar_words.hpp"
#include "backend/cpu_features.hpp"
#include "backend/ifma/scalar_lanes_ifma.hpp"

namespace bp::detail {

void multiply_each_one_by_one(std::span<Scalar> out, const Scalar& x, std::span<const Scalar> ys) {
  assert(out.size() == ys.size());
  const Scalar factor = x;  // x may be an element of out
  for (size_t k = 0; k < ys.size(); ++k) out[k] = factor * ys[k];
}

void multiply_each(std::span<Scalar> out, const Scalar& x, std::span<const Scalar> ys) {
  assert(out.size() == ys.size());
  static const bool lanes = cpu_executes_ifma();
  if (!lanes) return multiply_each_one_by_one(out, x, ys);
  const Scalar factor = x;
  size_t k = 0;
  for (; k + 8 <= ys.size(); k += 8) {
    uint64_t in[8][4], product[8][4];
    for (int i = 0; i < 8; ++i)
      for (int w = 0; w < 4; ++w) in[i][w] = ScalarWords::of(ys[k + i])[w];
    ifma::scalar_times_x8(ScalarWords::of(factor), in, product);
    for (int i = 0; i < 8; ++i)
      for (int w = 0; w < 4; ++w) ScalarWords::of(out[k + i])[w] = product[i][w];
  }
  multiply_each_one_by_one(out.subspan(k), factor, ys.subspan(k));
}

}  // namespace bp::detail
