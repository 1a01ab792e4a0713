// bp r1cs prove|verify: constraint-system proofs of a gadget list (bp/r1cs_gadget_list.hpp),
// in the reference's bytes: a proof made here verifies with bp-oracle r1cs-verify --gadgets
// given the same list, commitments and label, and the other way round.
#include <cstdio>

#include "args.hpp"
#include "attestation_args.hpp"
#include "bp/hex.hpp"
#include "bp/json.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/random.hpp"
#include "commands.hpp"

namespace bp::cli {
namespace {

GadgetList gadget_list(const Args& args) {
  auto list = GadgetList::parse(args.required("gadgets"));
  if (!list) throw UsageError("--gadgets: " + list.error());
  return std::move(*list);
}

template <size_t N>
std::array<uint8_t, N> hex_array(const std::string& h, const std::string& what) {
  auto bytes = from_hex(h);
  if (!bytes || bytes->size() != N) throw UsageError(what + " must be " + std::to_string(N) + " bytes of hex");
  std::array<uint8_t, N> out{};
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

int prove(int argc, char** argv) {
  const Args args(argc, argv, 3, {"gadgets", "values", "blindings", "label"}, {});
  const GadgetList list = gadget_list(args);
  std::vector<uint64_t> values;
  for (const auto& v : split_commas(args.required("values"))) values.push_back(parse_u64(v, "value"));
  if (values.size() != list.commitments())
    throw UsageError("--gadgets " + list.text() + " takes " + std::to_string(list.commitments()) + " values, not " +
                     std::to_string(values.size()));
  std::vector<Scalar> blindings = blindings_of(args, values.size());
  const std::string label = args.get("label", kDefaultLabel);
  auto proved = prove_gadget_list_checked(list, label, values, blindings);
  for (auto& b : blindings) b.wipe();
  if (!proved) {
    std::fprintf(stderr, "error: %s\n", describe(proved.error()).c_str());
    return 1;
  }
  const auto& commitments = proved->commitments;
  const auto& proof = proved->proof;
  const auto bytes = proof.to_bytes();
  const std::string hex_list = comma_separated(commitments, [](const auto& c) { return json_string(to_hex(c.bytes)); });
  std::puts(JsonObject()
                .text("gadgets", list.text())
                .text("label", label)
                .json("commitments", "[" + hex_list + "]")
                .hex("proof", bytes)
                .str()
                .c_str());
  return 0;
}

int verify(int argc, char** argv) {
  const Args args(argc, argv, 3, {"gadgets", "commitments", "proof", "label", "session", "dealer-key", "signature"},
                  {});
  const GadgetList list = gadget_list(args);
  const auto attestation = attestation_of(args);
  std::vector<CompressedRistretto> commitments;
  for (const auto& h : split_commas(args.required("commitments")))
    commitments.push_back(CompressedRistretto{hex_array<32>(h, "a commitment")});
  if (commitments.size() != list.commitments())
    throw UsageError("--gadgets " + list.text() + " takes " + std::to_string(list.commitments()) +
                     " commitments, not " + std::to_string(commitments.size()));
  const auto proof_bytes = from_hex(args.required("proof"));
  if (!proof_bytes) throw UsageError("--proof is not hexadecimal");
  const auto fail = [](const R1CSError& e) {
    std::printf("fail: %s\n", describe(e).c_str());
    return 1;
  };
  auto proof = R1CSProof::from_bytes(*proof_bytes);
  if (!proof) return fail(proof.error());
  const std::string label = args.get("label", kDefaultLabel);
  if (auto ok = verify_gadget_list(list, label, commitments, *proof); !ok) return fail(ok.error());
  // A gadget session's result: the dealer's signature must cover this list, label and proof.
  if (attestation) {
    wire::R1CSResultMsg signed_result{list.text(), label, std::move(commitments), std::move(*proof), attestation};
    if (!wire::attestation_valid(signed_result)) {
      std::puts("fail: the dealer signature does not verify");
      return 1;
    }
  }
  std::puts("ok");
  return 0;
}

}  // namespace

int run_r1cs(int argc, char** argv) {
  const std::string sub = argc > 2 ? argv[2] : "";
  if (sub == "prove") return prove(argc, argv);
  if (sub == "verify") return verify(argc, argv);
  throw UsageError("bp r1cs prove|verify (try bp --help)");
}

}  // namespace bp::cli
