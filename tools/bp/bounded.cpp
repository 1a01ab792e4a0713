#include "bounded.hpp"

#include <cstdio>

#include "bp/json.hpp"
#include "bp/wire/bounds_text.hpp"

namespace bp::cli {
std::optional<std::vector<ValueBounds>> parse_bounds(const Args& args, size_t count) {
  if (!args.has("min") && !args.has("max")) return std::nullopt;
  const auto text = [&](const char* flag) {
    return args.has(flag) ? std::optional<std::string>(args.required(flag)) : std::nullopt;
  };
  auto bounds = wire::parse_bounds_text(text("min"), text("max"), count);
  if (!bounds) throw UsageError(bounds.error());
  return std::move(*bounds);
}

int prove_bounded(const Args& args, std::span<const uint64_t> values, std::span<Scalar> blindings,
                  const std::vector<ValueBounds>& bounds, const std::string& label) {
  const auto covering = bits_covering(bounds);
  if (!covering) throw UsageError(std::string(describe(covering.error())));
  const size_t n = args.has("bits") ? parse_bits(args) : *covering;
  if (!check_bounds(bounds, n)) throw UsageError("--bits " + std::to_string(n) + " does not cover max - min");
  const PedersenGens pc_gens;
  std::vector<CompressedRistretto> commitments;
  for (size_t i = 0; i < values.size(); ++i)
    commitments.push_back(pc_gens.commit(Scalar::from_u64(values[i]), blindings[i]).compress());
  auto witness = bounded_witness(values, blindings, bounds, n);
  for (auto& b : blindings) b.wipe();
  if (!witness) {
    std::fprintf(stderr, "error: %s\n", std::string(describe(witness.error())).c_str());
    return 1;
  }
  const std::string transcript_label = bounded_label(label, bounds);
  const BulletproofGens bp_gens(n, witness->values.size());
  Transcript transcript(transcript_label);
  auto proved = RangeProof::prove_multiple(bp_gens, pc_gens, transcript, witness->values, witness->blindings, n);
  witness->wipe();
  if (!proved) {
    std::fprintf(stderr, "error: %s\n", std::string(describe(proved.error())).c_str());
    return 1;
  }
  std::string bounds_json = "[";
  for (const auto& b : bounds) {
    JsonObject o;
    o.number("min", b.min);
    if (b.max) o.number("max", *b.max);
    bounds_json += (bounds_json.size() > 1 ? "," : "") + o.str();
  }
  bounds_json += "]";
  const auto to_bytes = [](const CompressedRistretto& c) { return std::span<const uint8_t>(c.bytes); };
  std::puts(JsonObject()
                .number("bits", n)
                .text("label", label)
                .json("bounds", bounds_json)
                .hex_strings("commitments", commitments, to_bytes)
                .hex_strings("positions", proved->commitments, to_bytes)
                .text("transcript_label", transcript_label)
                .hex("proof", proved->proof.to_bytes())
                .str()
                .c_str());
  return 0;
}

int verify_bounded(size_t n, std::span<const CompressedRistretto> commitments, const RangeProof& proof,
                   const std::vector<ValueBounds>& bounds, const std::string& label,
                   const std::optional<wire::Attestation>& attestation) {
  auto fail = [](ProofError e) {
    std::printf("fail: %s\n", std::string(describe(e)).c_str());
    return 1;
  };
  if (auto checked = check_bounds(bounds, n); !checked) return fail(checked.error());
  const PedersenGens pc_gens;
  auto positions = bounded_commitments(pc_gens, commitments, bounds);
  if (!positions) return fail(positions.error());
  const BulletproofGens bp_gens(n, positions->size());
  const std::string transcript_label = bounded_label(label, bounds);
  Transcript transcript(transcript_label);
  if (auto status = proof.verify_multiple(bp_gens, pc_gens, transcript, *positions, n); !status)
    return fail(status.error());
  if (attestation && !signed_by_dealer(*attestation, {n, transcript_label, *positions, {}, proof})) {
    std::puts("fail: the dealer signature does not verify");
    return 1;
  }
  std::puts("ok");
  return 0;
}

}  // namespace bp::cli
