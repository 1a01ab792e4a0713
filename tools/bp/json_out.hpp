// The JSON every command prints for a proof: {"bits","label","commitments","proof", ...}.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bp/mpc/messages.hpp"
#include "bp/ristretto.hpp"

namespace bp::cli {

std::string json_string(const std::string& s);
std::string proof_json(size_t bits, const std::string& label, const std::vector<CompressedRistretto>& commitments,
                       const std::vector<uint8_t>& proof);
// Adds "padding" and, when given, the party's "position".
std::string result_json(const mpc::AggregationResult& r, std::optional<size_t> position);

}  // namespace bp::cli
