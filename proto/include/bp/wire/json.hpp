// The JSON form of proofs and session results that every front end prints:
// {"bits","label","commitments","proof"} plus, for sessions, "padding" and "position", and for a
// dealer-signed result "session", "dealer_key" and "dealer_signature".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bp/mpc/messages.hpp"
#include "bp/ristretto.hpp"
#include "bp/wire/codec.hpp"

namespace bp::wire {

std::string proof_json(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                       const std::vector<uint8_t>& proof);
std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position,
                        const std::optional<Attestation>& attestation = std::nullopt);

}  // namespace bp::wire
