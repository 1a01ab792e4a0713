// bp prove and bp verify with --min/--max: a statement that each value lies within public
// bounds, proved over shifted commitments (bp/bounds.hpp).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "args.hpp"
#include "bp/bounds.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/range_proof.hpp"
#include "bp/wire/messages.hpp"

namespace bp::cli {

// The bounds --min and --max give `count` values: each a list with one entry per value, or
// one entry for all; --max's entries may be empty (that value has a minimum only), and --min
// defaults to 0. None when neither flag is given.
std::optional<std::vector<ValueBounds>> parse_bounds(const Args& args, size_t count);

// Proves the values within their bounds; prints the JSON (bits, label, bounds, the values'
// commitments, the positions the proof is over and the transcript label a third party needs).
int prove_bounded(const Args& args, std::span<const uint64_t> values, std::span<Scalar> blindings,
                  const std::vector<ValueBounds>& bounds, const std::string& label);

// Verifies a bounded proof against the values' own commitments: the positions and the
// transcript label are derived here, never read from the prover's output. With an
// attestation (a session's result), the dealer's signature must cover those positions,
// that transcript label and the proof.
int verify_bounded(size_t n, std::span<const CompressedRistretto> commitments, const RangeProof& proof,
                   const std::vector<ValueBounds>& bounds, const std::string& label,
                   const std::optional<wire::Attestation>& attestation);

// Whether the dealer's attestation signs exactly this result (bp verify --signature).
bool signed_by_dealer(const wire::Attestation& attestation, mpc::AggregationResult result);

}  // namespace bp::cli
