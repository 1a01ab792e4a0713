// Constraint-system proofs of gadget lists through the C ABI (bp_r1cs_prove, bp_r1cs_verify):
// the same statements as `bp r1cs`, made and checked by bp/r1cs_gadget_list.hpp.
#include <sodium.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bp/r1cs_gadget_list.hpp"
#include "bp/random.hpp"
#include "edge.hpp"

using bp::c_abi::fail;
using bp::c_abi::guarded;
using bp::c_abi::succeed;

namespace {

// The list, or BP_ERR_INVALID_ARGUMENT naming what is wrong with it or with the count.
int read_list(const char* gadgets, size_t count, bp::GadgetList& out, bp_error* err) {
  auto list = bp::GadgetList::parse(gadgets);
  if (!list) return fail(err, BP_ERR_INVALID_ARGUMENT, list.error());
  if (list->commitments() != count)
    return fail(err, BP_ERR_INVALID_ARGUMENT,
                "the list " + list->text() + " takes " + std::to_string(list->commitments()) + " commitments, not " +
                    std::to_string(count));
  out = std::move(*list);
  return BP_OK;
}

}  // namespace

int bp_r1cs_prove(const char* gadgets, const uint64_t* values, size_t count, const uint8_t* blindings,
                  const char* label, uint8_t* commitments_out, uint8_t** proof, size_t* proof_len, bp_error* err) {
  return guarded(err, [&] {
    if (gadgets == nullptr || values == nullptr || label == nullptr || commitments_out == nullptr || proof == nullptr ||
        proof_len == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "a required pointer is NULL");
    *proof = nullptr;
    *proof_len = 0;
    bp::GadgetList list;
    if (int status = read_list(gadgets, count, list, err)) return status;
    bp::c_abi::SecretWitness witness;
    if (int status = witness.read(values, blindings, count, err)) return status;
    auto proved = bp::prove_gadget_list_checked(list, label, witness.values, witness.blindings);
    if (!proved)
      return fail(err,
                  (proved.error().kind == bp::R1CSErrorKind::GadgetError ||
                   proved.error().kind == bp::R1CSErrorKind::Unsatisfied)
                      ? BP_ERR_REFUSED
                      : BP_ERR_INVALID_ARGUMENT,
                  bp::describe(proved.error()));
    return bp::c_abi::hand_out_proof(proved->proof.to_bytes(), proved->commitments, commitments_out, proof, proof_len,
                                     err);
  });
}

int bp_r1cs_verify(const char* gadgets, const uint8_t* commitments, size_t count, const uint8_t* proof,
                   size_t proof_len, const char* label, bp_error* err) {
  return guarded(err, [&] {
    if (gadgets == nullptr || commitments == nullptr || proof == nullptr || label == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "a required pointer is NULL");
    bp::GadgetList list;
    if (int status = read_list(gadgets, count, list, err)) return status;
    auto parsed = bp::R1CSProof::from_bytes({proof, proof_len});
    if (!parsed)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "the proof cannot be parsed: " + bp::describe(parsed.error()));
    std::vector<bp::CompressedRistretto> points(count);
    for (size_t j = 0; j < count; ++j) std::memcpy(points[j].bytes.data(), commitments + 32 * j, 32);
    auto verified = bp::verify_gadget_list(list, label, points, *parsed);
    if (!verified) return fail(err, BP_ERR_VERIFY_FAILED, bp::describe(verified.error()));
    return succeed(err);
  });
}
