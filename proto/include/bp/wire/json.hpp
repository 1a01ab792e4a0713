// The JSON form of proofs and session results that every front end prints:
// {"bits","label","commitments","proof"} plus, for sessions, "padding" and "position", and for a
// dealer-signed result "session", "dealer_key" and "dealer_signature".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/json.hpp"
#include "bp/mpc/messages.hpp"
#include "bp/ristretto.hpp"
#include "bp/wire/codec.hpp"

namespace bp::wire {

std::string proof_json(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                       const std::vector<uint8_t>& proof);
// A result of a bounded session (`bounds` not empty) prints as `bp prove --min/--max` does:
// "label" the label before the bounds, "bounds", "commitments" the values' own, then
// "positions" (the result's commitments, which the proof is over) and "transcript_label".
// With a position, "position_count" says how many from it were the party's. A join that
// followed successor sessions (1.7) adds "chain": the sessions before "session", oldest first.
std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position,
                        const std::optional<Attestation>& attestation = std::nullopt,
                        const std::vector<ValueBounds>& bounds = {}, size_t position_count = 1,
                        const std::vector<std::string>& chain = {});

// A gadget session's result as `bp r1cs prove` prints a proof ({"gadgets","label",
// "commitments","proof"}), with the session's attestation and, for a party, its seat.
std::string r1cs_result_json(const R1CSResultMsg& r, std::optional<size_t> seat = std::nullopt,
                             const std::vector<std::string>& chain = {});

// [{"min":a,"max":b},{"min":c}, ...]
std::string bounds_json(const std::vector<ValueBounds>& bounds);

// A bounded result as a bounded statement: the label before the bounds and each value's
// commitment (from its positions); none when the result is not of that form.
struct BoundedStatement {
  std::string label;
  std::vector<CompressedRistretto> commitments;
};
std::optional<BoundedStatement> bounded_statement(const mpc::AggregationResult& r,
                                                  const std::vector<ValueBounds>& bounds);
// Adds the result's statement to `out`: bits, label and commitments, and for a bounded one
// also bounds, positions and transcript_label (as above).
void add_statement(JsonObject& out, const mpc::AggregationResult& r, const std::vector<ValueBounds>& bounds);

}  // namespace bp::wire
