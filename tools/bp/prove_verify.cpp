#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "args.hpp"
#include "bounded.hpp"
#include "bp/hex.hpp"
#include "bp/random.hpp"
#include "bp/range_proof.hpp"
#include "commands.hpp"
#include "bp/wire/codec.hpp"
#include "bp/wire/identity.hpp"
#include "bp/wire/json.hpp"
#include "bp/wire/proof_records.hpp"
#include "attestation_args.hpp"

namespace bp::cli {

// --session, --dealer-key and --signature: the dealer's attestation a result carries.
std::optional<wire::Attestation> attestation_of(const Args& args) {
  if (!args.has("dealer-key") && !args.has("signature") && !args.has("session")) return std::nullopt;
  const auto key = wire::parse_public_key(args.required("dealer-key"));
  if (!key) throw UsageError("--dealer-key must be 64 hex characters or a .pub file");
  const auto signature = parse_hex(args.required("signature"), "--signature", wire::kSignatureBytes);
  wire::Attestation attestation{args.required("session"), *key, {}};
  std::copy(signature.begin(), signature.end(), attestation.signature.begin());
  return attestation;
}

bool signed_by_dealer(const wire::Attestation& attestation, mpc::AggregationResult result) {
  return wire::attestation_valid(wire::ResultMsg{std::move(result), attestation});
}

int run_prove(int argc, char** argv) {
  const Args args(argc, argv, 2, {"bits", "values", "blindings", "label", "min", "max"}, {});
  std::vector<uint64_t> values;
  for (const auto& v : split_commas(args.required("values"))) values.push_back(parse_u64(v, "value"));
  const auto bounds = parse_bounds(args, values.size());
  const size_t n = bounds && !args.has("bits") ? 0 : parse_bits(args);  // bounded: n may follow from them
  std::vector<Scalar> blindings = blindings_of(args, values.size());
  const std::string label = args.get("label", kDefaultLabel);
  if (bounds) return prove_bounded(args, values, blindings, *bounds, label);
  if (!is_power_of_two(values.size())) throw UsageError("the number of values must be a power of two");

  const BulletproofGens bp_gens(n, values.size());
  const PedersenGens pc_gens;
  Transcript transcript(label);
  auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, transcript, values, blindings, n);
  for (auto& b : blindings) b.wipe();
  if (!proved) {
    std::fprintf(stderr, "error: %s\n", std::string(describe(proved.error())).c_str());
    return 1;
  }
  std::puts(wire::proof_json(n, label, proved->commitments, proved->proof.to_bytes()).c_str());
  return 0;
}

// bp verify --batch FILE: every proof of a JSON-lines file in one batch verification.
int run_verify_batch(const Args& args) {
  const std::string path = args.required("batch");
  const unsigned threads = args.has("threads") ? static_cast<unsigned>(parse_u64(args.required("threads"), "--threads"))
                                               : std::max(1u, std::thread::hardware_concurrency());
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read " + path);
    text << in.rdbuf();
  }
  auto records = wire::parse_proof_records(text.str(), 1000000, threads);
  if (!records) throw UsageError(path + ": " + records.error());
  size_t max_m = 1;
  for (const auto& r : *records) max_m = std::max(max_m, r.positions());
  const BulletproofGens bp_gens(64, max_m);
  const PedersenGens pc_gens;
  const auto outcome = wire::verify_records(*records, bp_gens, pc_gens, threads);
  if (outcome.ok()) {
    std::printf("ok: %zu proofs\n", records->size());
    return 0;
  }
  std::string failed;
  for (size_t k : outcome.failed) failed += (failed.empty() ? "" : ",") + std::to_string(k);
  std::printf("fail: %zu of %zu proofs do not verify: [%s] (0-based, in file order)\n", outcome.failed.size(),
              records->size(), failed.c_str());
  return 1;
}

int run_verify(int argc, char** argv) {
  const Args args(
      argc, argv, 2,
      {"bits", "commitments", "proof", "label", "session", "dealer-key", "signature", "batch", "threads", "min", "max"},
      {});
  if (args.has("batch")) return run_verify_batch(args);
  const size_t n = parse_bits(args);
  std::vector<CompressedRistretto> commitments;
  for (const auto& h : split_commas(args.required("commitments"))) {
    const auto bytes = parse_hex(h, "commitment", 32);
    CompressedRistretto c;
    std::copy(bytes.begin(), bytes.end(), c.bytes.begin());
    commitments.push_back(c);
  }
  const auto proof_bytes = parse_hex(args.required("proof"), "--proof");
  const std::string label = args.get("label", kDefaultLabel);

  auto fail = [](ProofError e) {
    std::printf("fail: %s\n", std::string(describe(e)).c_str());
    return 1;
  };
  auto proof = RangeProof::from_bytes(proof_bytes);
  if (!proof) return fail(proof.error());
  const auto attestation = attestation_of(args);
  if (const auto bounds = parse_bounds(args, commitments.size()))
    return verify_bounded(n, commitments, *proof, *bounds, label, attestation);
  size_t party_capacity = 1;
  while (party_capacity < commitments.size()) party_capacity *= 2;
  const BulletproofGens bp_gens(n, party_capacity);
  const PedersenGens pc_gens;
  Transcript transcript(label);
  const auto status = proof->verify_multiple(bp_gens, pc_gens, transcript, commitments, n);
  if (!status) return fail(status.error());
  // A dealer-signed result: the signature must cover exactly these parameters and this proof.
  if (attestation && !signed_by_dealer(*attestation, {n, label, commitments, {}, std::move(*proof)})) {
    std::puts("fail: the dealer signature does not verify");
    return 1;
  }
  std::puts("ok");
  return 0;
}

}  // namespace bp::cli
