// Proofs as JSON lines, the form every front end prints ({"bits","label","commitments",
// "proof"}, other keys ignored; a bounded statement adds "bounds", one {"min","max"} per
// commitment, as `bp prove --min/--max` prints; a gadget list's proof is {"gadgets","label",
// "commitments","proof"}, as `bp r1cs prove` and a gadget session print it), and their batch
// verification: what `bp verify --batch` and the dealer's POST /v1/verify share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bp/batch_verification.hpp"
#include "bp/bounds.hpp"
#include "bp/errors.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/wire/messages.hpp"

namespace bp::wire {

struct ProofRecord {
  size_t n = 64;
  std::string label = "bp";
  std::vector<CompressedRistretto> commitments;  // the values' own, bounded or not
  std::vector<ValueBounds> bounds;               // empty: each value in [0, 2^n)
  RangeProof proof;
  // A gadget list's proof instead: the list, and its R1CS proof in place of `proof` (then
  // `n` and `bounds` are unused). At most 512 multipliers and 1024 commitments, as on the wire.
  std::optional<GadgetList> gadgets;
  R1CSProof r1cs_proof;

  // The range positions the proof is over: the commitments, or the bounded positions padded
  // to a power of two; 1 for a gadget list's (its generators are not the range proofs').
  size_t positions() const;
};

// One JSON object; the reason on failure ("commitments: not 32 bytes of hex", ...).
Result<ProofRecord, std::string> parse_proof_record(std::string_view json);

// Records per line of `text` (blank lines skipped), parsed on up to `threads` threads (one
// per 64 lines at most). At most `max_records`; on the first bad line, the reason names it.
Result<std::vector<ProofRecord>, std::string> parse_proof_records(std::string_view text, size_t max_records,
                                                                  unsigned threads = 1);

// A session's outcome as the dealer records it ({"status":"completed"|"aborted", ...}, see
// docs/operations.md): the signed result (with its padding positions and attestation), or
// the abort with its reason and blamed positions; a gadget session's ("gadgets" in it) its
// signed R1CS result.
using OutcomeRecord = std::variant<ResultMsg, AbortMsg, R1CSResultMsg>;
Result<OutcomeRecord, std::string> parse_outcome_record(std::string_view json);

// Each record under Transcript(label), a bounded one over the positions derived from its
// commitments and bounds under bounded_label (one whose commitments do not decode fails), a
// gadget list's with the others of its kind (verify_gadget_lists); the failed indices are
// record indices. The generators must cover every range record's positions().
BatchOutcome verify_records(const std::vector<ProofRecord>& records, const BulletproofGens& bp_gens,
                            const PedersenGens& pc_gens, unsigned threads = 1);

}  // namespace bp::wire
