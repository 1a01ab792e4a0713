// Proofs as JSON lines, the form every front end prints ({"bits","label","commitments",
// "proof"}, other keys ignored), and their batch verification: what `bp verify --batch`
// and the dealer's POST /v1/verify share.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bp/batch_verification.hpp"
#include "bp/errors.hpp"
#include "bp/wire/messages.hpp"

namespace bp::wire {

struct ProofRecord {
  size_t n = 64;
  std::string label = "bp";
  std::vector<CompressedRistretto> commitments;
  RangeProof proof;
};

// One JSON object; the reason on failure ("commitments: not 32 bytes of hex", ...).
Result<ProofRecord, std::string> parse_proof_record(std::string_view json);

// Records per line of `text` (blank lines skipped). At most `max_records`; on the first bad
// line, the reason names the line.
Result<std::vector<ProofRecord>, std::string> parse_proof_records(std::string_view text, size_t max_records);

// A session's outcome as the dealer records it ({"status":"completed"|"aborted", ...}, see
// docs/operations.md): the signed result (with its padding positions and attestation), or
// the abort with its reason and blamed positions.
using OutcomeRecord = std::variant<ResultMsg, AbortMsg>;
Result<OutcomeRecord, std::string> parse_outcome_record(std::string_view json);

// Each record under Transcript(label); the failed indices are record indices.
BatchOutcome verify_records(const std::vector<ProofRecord>& records, const BulletproofGens& bp_gens,
                            const PedersenGens& pc_gens, unsigned threads = 1);

}  // namespace bp::wire
