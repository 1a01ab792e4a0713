#include "bp/generators.hpp"

#include <array>
#include <string_view>

#include "bp/keccak.hpp"
#include "bp/msm.hpp"

namespace bp {
namespace {

// Appends `count` points of the chain SHAKE256("GeneratorsChain" ‖ label) to out.
void generators_chain(std::span<const uint8_t> label, size_t count, RistrettoPoint* out) {
  static constexpr std::string_view kDomain = "GeneratorsChain";
  Shake256 xof;
  xof.update({reinterpret_cast<const uint8_t*>(kDomain.data()), kDomain.size()});
  xof.update(label);
  std::array<uint8_t, 64> uniform;
  for (size_t i = 0; i < count; ++i) {
    xof.squeeze(uniform);
    out[i] = RistrettoPoint::from_uniform_bytes(uniform);
  }
}

}  // namespace

PedersenGens::PedersenGens() : B(RistrettoPoint::basepoint()) {
  const CompressedRistretto b = B.compress();
  B_blinding = RistrettoPoint::from_uniform_bytes(sha3_512(b.bytes));
}

RistrettoPoint PedersenGens::commit(const Scalar& value, const Scalar& blinding) const {
  const Scalar scalars[2] = {value, blinding};
  const RistrettoPoint points[2] = {B, B_blinding};
  return multiscalar_mul(scalars, points);
}

BulletproofGens::BulletproofGens(size_t gens_capacity, size_t party_capacity)
    : gens_capacity_(gens_capacity),
      party_capacity_(party_capacity),
      G_(gens_capacity * party_capacity),
      H_(gens_capacity * party_capacity) {
  for (size_t j = 0; j < party_capacity; ++j) {
    std::array<uint8_t, 5> label = {'G', static_cast<uint8_t>(j), static_cast<uint8_t>(j >> 8),
                                    static_cast<uint8_t>(j >> 16), static_cast<uint8_t>(j >> 24)};
    generators_chain(label, gens_capacity, &G_[j * gens_capacity]);
    label[0] = 'H';
    generators_chain(label, gens_capacity, &H_[j * gens_capacity]);
  }
}

std::vector<RistrettoPoint> BulletproofGens::gather(const std::vector<RistrettoPoint>& all, size_t n,
                                                    size_t m) const {
  std::vector<RistrettoPoint> out;
  out.reserve(n * m);
  for (size_t j = 0; j < m; ++j)
    out.insert(out.end(), all.begin() + j * gens_capacity_, all.begin() + j * gens_capacity_ + n);
  return out;
}

}  // namespace bp
