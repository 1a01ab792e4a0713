#include "bp/bounds.hpp"

#include <sodium.h>

#include "bp/range_proof.hpp"
#include "ctime.hpp"

namespace bp {

namespace {

// 1 when a < b, without a branch on either (the values are secret on the prover's side).
uint64_t less_than(uint64_t a, uint64_t b) { return ((~a & b) | (~(a ^ b) & (a - b))) >> 63; }

bool covered(uint64_t span, size_t n) { return n == 64 || (span >> n) == 0; }

}  // namespace

size_t bounded_positions(std::span<const ValueBounds> bounds) {
  size_t positions = 0;
  for (const auto& b : bounds) positions += b.positions();
  return positions;
}

Result<size_t> bits_covering(std::span<const ValueBounds> bounds) {
  size_t n = 8;
  for (const auto& b : bounds) {
    if (!b.max) return check_bounds(bounds, 64) ? Result<size_t>(size_t{64}) : ProofError::InvalidBounds;
    if (*b.max < b.min) return ProofError::InvalidBounds;
    while (!covered(*b.max - b.min, n)) n *= 2;
  }
  return n;
}

Status check_bounds(std::span<const ValueBounds> bounds, size_t n) {
  if (!is_valid_bitsize(n)) return ProofError::InvalidBitsize;
  for (const auto& b : bounds)
    if (b.max && (*b.max < b.min || !covered(*b.max - b.min, n))) return ProofError::InvalidBounds;
  return Ok{};
}

void BoundedWitness::wipe() {
  if (!values.empty()) sodium_memzero(values.data(), values.size() * sizeof values[0]);
  for (auto& s : blindings) s.wipe();
}

Result<BoundedWitness> bounded_witness(std::span<const uint64_t> values, std::span<const Scalar> blindings,
                                       std::span<const ValueBounds> bounds, size_t n) {
  if (values.size() != blindings.size()) return ProofError::WrongNumBlindingFactors;
  if (values.size() != bounds.size()) return ProofError::InvalidBounds;
  if (auto checked = check_bounds(bounds, n); !checked) return checked.error();
  // Whether every value lies within its bounds is the one bit about the values the caller
  // learns anyway; the shifted values below 2^n follow from it and n covering max − min,
  // except with a minimum only, where the range proof's own check refuses v − min >= 2^n.
  uint64_t outside = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    outside |= less_than(values[i], bounds[i].min);
    if (bounds[i].max) outside |= less_than(*bounds[i].max, values[i]);
  }
  detail::declassify(&outside, sizeof outside);
  if (outside != 0) return ProofError::ValueOutOfBounds;
  BoundedWitness w;
  w.values.reserve(bounded_positions(bounds));
  w.blindings.reserve(w.values.capacity());
  for (size_t i = 0; i < values.size(); ++i) {
    w.values.push_back(values[i] - bounds[i].min);
    w.blindings.push_back(blindings[i]);
    if (bounds[i].max) {
      w.values.push_back(*bounds[i].max - values[i]);
      w.blindings.push_back(-blindings[i]);
    }
  }
  return w;
}

Result<std::vector<CompressedRistretto>> bounded_commitments(const PedersenGens& pc_gens,
                                                             std::span<const CompressedRistretto> commitments,
                                                             std::span<const ValueBounds> bounds) {
  if (commitments.size() != bounds.size()) return ProofError::InvalidBounds;
  std::vector<CompressedRistretto> out;
  out.reserve(bounded_positions(bounds));
  for (size_t i = 0; i < commitments.size(); ++i) {
    const auto v = RistrettoPoint::decompress(commitments[i]);
    if (!v) return ProofError::FormatError;
    out.push_back((*v - pc_gens.B * Scalar::from_u64(bounds[i].min)).compress());
    if (bounds[i].max) out.push_back((pc_gens.B * Scalar::from_u64(*bounds[i].max) - *v).compress());
  }
  return out;
}

std::string bounded_label(std::string_view label, std::span<const ValueBounds> bounds) {
  std::string out(label);
  out += " bounds=";
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(bounds[i].min) + "..";
    if (bounds[i].max) out += std::to_string(*bounds[i].max);
  }
  return out;
}

}  // namespace bp
