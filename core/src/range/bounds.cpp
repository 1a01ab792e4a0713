#include "bp/bounds.hpp"

#include <sodium.h>

#include "bp/precomputed.hpp"
#include "bp/range_proof.hpp"
#include "arith/ctime.hpp"

namespace bp {

namespace {

// 1 when a < b, without a branch on either (the values are secret on the prover's side).
uint64_t less_than(uint64_t a, uint64_t b) { return ((~a & b) | (~(a ^ b) & (a - b))) >> 63; }

bool covered(uint64_t span, size_t n) { return n == 64 || (span >> n) == 0; }

// k·B for a public 64-bit k, from B's table: about a quarter of a full constant-time
// multiplication, and the verifier does it for every position.
RistrettoPoint times_B_vartime(const PedersenGens& pc_gens, uint64_t k) {
  const Scalar s = Scalar::from_u64(k);
  const VartimeBaseTable* table = &pc_gens.B_table();
  return multiscalar_mul_vartime({&s, 1}, {&table, 1}, {}, {});
}

size_t next_power_of_two(size_t k) {
  size_t p = 1;
  while (p < k) p *= 2;
  return p;
}

}  // namespace

size_t bounded_positions(std::span<const ValueBounds> bounds) {
  size_t positions = 0;
  for (const auto& b : bounds) positions += b.positions();
  return positions;
}

size_t padded_positions(std::span<const ValueBounds> bounds) { return next_power_of_two(bounded_positions(bounds)); }

Result<size_t> bits_covering(std::span<const ValueBounds> bounds) {
  if (auto checked = check_bounds(bounds, 64); !checked) return checked.error();
  size_t n = 8;
  for (const auto& b : bounds) {
    if (!b.max) return size_t{64};
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
  w.values.reserve(padded_positions(bounds));
  w.blindings.reserve(w.values.capacity());
  for (size_t i = 0; i < values.size(); ++i) {
    w.values.push_back(values[i] - bounds[i].min);
    w.blindings.push_back(blindings[i]);
    if (bounds[i].max) {
      w.values.push_back(*bounds[i].max - values[i]);
      w.blindings.push_back(-blindings[i]);
    }
  }
  w.values.resize(w.values.capacity(), 0);
  w.blindings.resize(w.values.size(), Scalar::zero());
  return w;
}

Result<std::vector<CompressedRistretto>> bounded_commitments(const PedersenGens& pc_gens,
                                                             std::span<const CompressedRistretto> commitments,
                                                             std::span<const ValueBounds> bounds) {
  if (commitments.size() != bounds.size()) return ProofError::InvalidBounds;
  std::vector<CompressedRistretto> out;
  out.reserve(padded_positions(bounds));
  for (size_t i = 0; i < commitments.size(); ++i) {
    const auto v = RistrettoPoint::decompress(commitments[i]);
    if (!v) return ProofError::FormatError;
    out.push_back((*v - times_B_vartime(pc_gens, bounds[i].min)).compress());
    if (bounds[i].max) out.push_back((times_B_vartime(pc_gens, *bounds[i].max) - *v).compress());
  }
  out.resize(padded_positions(bounds), CompressedRistretto{});  // the identity's encoding
  return out;
}

Result<std::vector<CompressedRistretto>> value_commitments_of(const PedersenGens& pc_gens,
                                                              std::span<const CompressedRistretto> positions,
                                                              std::span<const ValueBounds> bounds) {
  if (positions.size() != bounded_positions(bounds)) return ProofError::InvalidBounds;
  std::vector<CompressedRistretto> out;
  out.reserve(bounds.size());
  size_t p = 0;
  for (const auto& b : bounds) {
    const auto low = RistrettoPoint::decompress(positions[p++]);
    if (!low) return ProofError::FormatError;
    if (b.max) {
      const auto high = RistrettoPoint::decompress(positions[p++]);
      if (!high) return ProofError::FormatError;
      if (!(*low + *high == times_B_vartime(pc_gens, *b.max - b.min))) return ProofError::InvalidBounds;
    }
    out.push_back((*low + times_B_vartime(pc_gens, b.min)).compress());
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
