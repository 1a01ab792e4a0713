// Public bounds on committed values, proved with a standard aggregated range proof over
// shifted commitments (docs/range-proof.md, "Bounds"). A value v committed as V = v·B + γ·B̃
// with a minimum a takes one position, over V − a·B (v − a in [0, 2^n)); with both ends
// [a, b] it takes two, over V − a·B and b·B − V (blindings γ and −γ), and n must cover
// b − a. Both sides derive the positions from V and the bounds alone, so the proof is one
// the reference implementation verifies given the shifted commitments.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bp/errors.hpp"
#include "bp/generators.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp {

struct ValueBounds {
  uint64_t min = 0;
  std::optional<uint64_t> max;  // none: v >= min only

  size_t positions() const { return max ? 2 : 1; }
  friend bool operator==(const ValueBounds&, const ValueBounds&) = default;
};

// Positions taken by values with these bounds, in order; and that many padded to a power
// of two with (0, 0) positions, whose commitment is the identity: what the proof is over.
size_t bounded_positions(std::span<const ValueBounds> bounds);
size_t padded_positions(std::span<const ValueBounds> bounds);

// The least of 8, 16, 32 and 64 that covers every max − min; 64 when a value has only a
// minimum (v − min may then be anything below 2^64). InvalidBounds when a min exceeds its max.
Result<size_t> bits_covering(std::span<const ValueBounds> bounds);

// Whether n covers these bounds: each min <= max and max − min < 2^n (InvalidBounds if not).
Status check_bounds(std::span<const ValueBounds> bounds, size_t n);

// The prover's positions: for each value, v − min with γ, then (with a max) max − v with −γ;
// then the padding's (0, 0).
// ValueOutOfBounds when a value lies outside its bounds (the only bit about the values it
// reveals, as the caller learns it anyway). `wipe()` clears the secrets.
struct BoundedWitness {
  std::vector<uint64_t> values;
  std::vector<Scalar> blindings;
  void wipe();
};
Result<BoundedWitness> bounded_witness(std::span<const uint64_t> values, std::span<const Scalar> blindings,
                                       std::span<const ValueBounds> bounds, size_t n);

// The verifier's positions: V − min·B, then (with a max) max·B − V, for each commitment;
// then the padding's identity. Variable time (public data). FormatError when a commitment is
// not a valid encoding.
Result<std::vector<CompressedRistretto>> bounded_commitments(const PedersenGens& pc_gens,
                                                             std::span<const CompressedRistretto> commitments,
                                                             std::span<const ValueBounds> bounds);

// The other way, for a dealer that holds the positions a party committed to: each value's V
// (its first position plus min·B), given that a value with a max has positions adding up to
// (max − min)·B. `positions` holds bounded_positions(bounds) of them, no padding. Variable
// time (public data). InvalidBounds when a value's two positions do not add up; FormatError
// when one does not decode.
Result<std::vector<CompressedRistretto>> value_commitments_of(const PedersenGens& pc_gens,
                                                              std::span<const CompressedRistretto> positions,
                                                              std::span<const ValueBounds> bounds);

// The transcript label of a bounded statement: the caller's label and every value's
// bounds, so that a proof cannot be presented against other bounds. "L bounds=a..b,c.."
std::string bounded_label(std::string_view label, std::span<const ValueBounds> bounds);

}  // namespace bp
