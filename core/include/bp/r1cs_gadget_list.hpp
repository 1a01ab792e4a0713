// A gadget list names a block-diagonal constraint system in one line, the same way for the
// `bp r1cs` command, the wire and the reference's checker (bp-oracle r1cs-verify --gadgets):
//
//   "shuffle:3;range:32;example:9;member:1|5|10;sum:2;geq:32"
//
// Items are separated by ';' and take consecutive commitments, in list order:
//   shuffle:K   2K commitments, its K inputs then its K outputs (1 ≤ K ≤ 4096)
//   range:N     1 commitment, in [0, 2^N) (0 ≤ N ≤ 64)
//   example     5 commitments a1, a2, b1, b2, c1: (a1 + a2)(b1 + b2) = c1 + C2; example:C2, C2 = 9 if not given
//   member:S    1 commitment, one of the public values S = s0|s1|... (u64, 1 to 4096 of them)
//   sum:K       K + 1 commitments: K parts, then their total (1 ≤ K ≤ 4096)
//   geq:N       2 commitments a, b with a ≥ b, for values below 2^N (1 ≤ N ≤ 64)
// The last three are this project's; the reference's checker knows the first three.
//
// One statement over one transcript: the label, then each shuffle's prefix in list order, then
// every commitment, then each item built over its own slice, every second phase after every
// first phase, in list order. A list of one item is exactly that gadget's single statement.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bp/r1cs.hpp"

namespace bp {

struct GadgetItem {
  enum class Kind { Shuffle, Range, Example, Member, Sum, GreaterOrEqual };
  Kind kind = Kind::Range;
  uint64_t parameter = 0;     // shuffle K, range N, example C2, sum K, geq N
  std::vector<uint64_t> set;  // member's public values

  size_t commitments() const;
  size_t multipliers() const;
  std::string text() const;  // canonical: example always with its C2
};

class GadgetList {
 public:
  // The reason names the item that is wrong.
  static Result<GadgetList, std::string> parse(std::string_view text);

  const std::vector<GadgetItem>& items() const { return items_; }
  size_t commitments() const;
  size_t multipliers() const;
  // The generators a proof of this list needs: the next power of two of its multipliers (at least 1).
  size_t generators_capacity() const;
  std::string text() const;

  // Each shuffle's transcript prefix, in list order: before the prover or verifier is made.
  void append_prefixes(Transcript& transcript) const;
  // Every item over its slice of `committed` (commitments() of them); the prover gives the
  // values in the same order, the verifier none. `entering`, if given, hears each item's
  // index before the item is built (multiparty: who owns what the item makes).
  Result<Ok, R1CSError> build(RandomizableConstraintSystem& cs, std::span<const Variable> committed,
                              std::optional<std::span<const uint64_t>> values,
                              const std::function<void(size_t item)>& entering = {}) const;

 private:
  std::vector<GadgetItem> items_;
};

// A whole proof of a list, as `bp r1cs` and the C ABI make and check it: the statement's
// transcript on `label`, generators of the list's capacity (built once per process and kept),
// one prover or verifier. Values and blindings are one per commitment; the blindings are the
// caller's to wipe.
struct GadgetListProof {
  std::vector<CompressedRistretto> commitments;
  R1CSProof proof;
};
Result<GadgetListProof, R1CSError> prove_gadget_list(const GadgetList& list, std::string_view label,
                                                     std::span<const uint64_t> values,
                                                     std::span<const Scalar> blindings);
// The same, refusing a false statement (Unsatisfied) instead of handing out a proof that
// cannot verify: the proof is checked before it is returned, a sixth to a fifth of the proving
// time. What `bp r1cs prove` and the C ABI (so Python and Go) call; the single prover's
// output for a true statement is prove_gadget_list's, byte for byte.
Result<GadgetListProof, R1CSError> prove_gadget_list_checked(const GadgetList& list, std::string_view label,
                                                             std::span<const uint64_t> values,
                                                             std::span<const Scalar> blindings);
Result<Ok, R1CSError> verify_gadget_list(const GadgetList& list, std::string_view label,
                                         std::span<const CompressedRistretto> commitments, const R1CSProof& proof);

// Many proofs of gadget lists, each its own list and label, in one batch verification
// (verify_r1cs_batch) over generators of the largest list's capacity: the indices of those
// that do not verify, a wrong commitment count or a point that does not decode included.
struct GadgetListStatement {
  const GadgetList* list = nullptr;
  std::string_view label;
  std::span<const CompressedRistretto> commitments;
  const R1CSProof* proof = nullptr;
};
R1CSBatchOutcome verify_gadget_lists(std::span<const GadgetListStatement> statements);

}  // namespace bp
