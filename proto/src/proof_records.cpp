#include "bp/wire/proof_records.hpp"

#include <algorithm>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "bp/hex.hpp"
#include "bp/wire/codec.hpp"

namespace bp::wire {

namespace {

// Hex strings of 32 bytes, at most `limit` of them (at least one).
Result<std::vector<CompressedRistretto>, std::string> points_of(const nlohmann::json& list, size_t limit) {
  if (!list.is_array() || list.empty() || list.size() > limit)
    return "commitments: an array of 1 to " + std::to_string(limit);
  std::vector<CompressedRistretto> out;
  for (const auto& c : list) {
    const auto bytes = c.is_string() ? from_hex(c.get<std::string>()) : std::nullopt;
    if (!bytes || bytes->size() != 32) return std::string("commitments: not 32 bytes of hex");
    CompressedRistretto point;
    std::copy(bytes->begin(), bytes->end(), point.bytes.begin());
    out.push_back(point);
  }
  return out;
}

// {"gadgets","label","commitments","proof"}: the list within the wire's limits, as many
// commitments as it takes, an R1CS proof's bytes.
Result<ProofRecord, std::string> parse_gadget_record(const nlohmann::json& doc) {
  static const Limits limits;
  const auto text = doc.find("gadgets");
  if (!text->is_string() || text->get<std::string>().size() > kMaxGadgetsBytes)
    return std::string("gadgets: a gadget list of at most ") + std::to_string(kMaxGadgetsBytes) + " bytes";
  auto list = GadgetList::parse(text->get<std::string>());
  if (!list) return "gadgets: " + list.error();
  if (list->multipliers() > limits.max_r1cs_multipliers || list->commitments() > limits.max_r1cs_commitments)
    return "gadgets: more than " + std::to_string(limits.max_r1cs_multipliers) + " multipliers or " +
           std::to_string(limits.max_r1cs_commitments) + " commitments";
  ProofRecord record;
  if (const auto label = doc.find("label"); label != doc.end()) {
    if (!label->is_string() || label->get<std::string>().size() > kMaxTranscriptLabelBytes)
      return std::string("label: a string of at most ") + std::to_string(kMaxTranscriptLabelBytes) + " bytes";
    record.label = label->get<std::string>();
  }
  const auto commitments = doc.find("commitments");
  if (commitments == doc.end()) return std::string("commitments: missing");
  auto points = points_of(*commitments, limits.max_r1cs_commitments);
  if (!points) return points.error();
  if (points->size() != list->commitments())
    return "commitments: the list " + list->text() + " takes " + std::to_string(list->commitments());
  record.commitments = std::move(*points);
  const auto proof = doc.find("proof");
  const auto bytes = proof != doc.end() && proof->is_string() ? from_hex(proof->get<std::string>()) : std::nullopt;
  if (!bytes) return std::string("proof: not hex");
  auto parsed = R1CSProof::from_bytes(*bytes);
  if (!parsed) return "proof: not an R1CS proof (" + describe(parsed.error()) + ")";
  record.r1cs_proof = std::move(*parsed);
  record.gadgets = std::move(*list);
  return record;
}

}  // namespace

Result<ProofRecord, std::string> parse_proof_record(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::string("not a JSON object");
  if (doc.contains("gadgets")) return parse_gadget_record(doc);
  ProofRecord record;
  const auto bits = doc.find("bits");
  if (bits == doc.end() || !bits->is_number_unsigned() || !is_valid_bitsize(bits->get<size_t>()))
    return std::string("bits: must be 8, 16, 32 or 64");
  record.n = bits->get<size_t>();
  if (const auto label = doc.find("label"); label != doc.end()) {
    if (!label->is_string()) return std::string("label: not a string");
    record.label = label->get<std::string>();
  }
  const auto commitments = doc.find("commitments");
  const bool bounded = doc.contains("bounds");
  if (commitments == doc.end() || !commitments->is_array() || commitments->empty() ||
      commitments->size() > kMaxPositions || (!bounded && !is_power_of_two(commitments->size())))
    return std::string("commitments: an array of 1 to 256 (a power of two without bounds)");
  auto points = points_of(*commitments, kMaxPositions);
  if (!points) return points.error();
  record.commitments = std::move(*points);
  if (bounded) {
    const auto& bounds = doc["bounds"];
    if (!bounds.is_array() || bounds.size() != record.commitments.size())
      return std::string("bounds: an array of one {\"min\", \"max\"} per commitment");
    for (const auto& b : bounds) {
      if (!b.is_object()) return std::string("bounds: an array of one {\"min\", \"max\"} per commitment");
      const auto min = b.find("min"), max = b.find("max");
      if ((min != b.end() && !min->is_number_unsigned()) || (max != b.end() && !max->is_number_unsigned()))
        return std::string("bounds: min and max are unsigned 64-bit integers");
      ValueBounds vb;
      if (min != b.end()) vb.min = min->get<uint64_t>();
      if (max != b.end()) vb.max = max->get<uint64_t>();
      record.bounds.push_back(vb);
    }
    if (!check_bounds(record.bounds, record.n))
      return std::string("bounds: ") + std::string(describe(ProofError::InvalidBounds));
    if (record.positions() > kMaxPositions) return std::string("bounds: more than 256 positions");
  }
  const auto proof = doc.find("proof");
  const auto bytes = proof != doc.end() && proof->is_string() ? from_hex(proof->get<std::string>()) : std::nullopt;
  if (!bytes) return std::string("proof: not hex");
  if (bytes->size() != RangeProof::serialized_size(record.n, record.positions()))
    return std::string("proof: the wrong length for bits and the number of commitments");
  auto parsed = RangeProof::from_bytes(*bytes);
  if (!parsed) return std::string("proof: ") + std::string(describe(parsed.error()));
  record.proof = std::move(*parsed);
  return record;
}

Result<std::vector<ProofRecord>, std::string> parse_proof_records(std::string_view text, size_t max_records,
                                                                  unsigned threads) {
  // The lines first (a scan), then the objects, on `threads` threads: JSON and hex are most
  // of what a large batch does before its proofs are checked in parallel.
  std::vector<std::pair<size_t, std::string_view>> lines;  // line number, text
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (lines.size() == max_records) return "more than " + std::to_string(max_records) + " proofs";
    lines.emplace_back(line_number, line);
  }
  std::vector<std::optional<Result<ProofRecord, std::string>>> parsed(lines.size());
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, lines.size() / 64))));
  const auto parse_part = [&](unsigned t) {
    for (size_t k = lines.size() * t / threads; k < lines.size() * (t + 1) / threads; ++k)
      parsed[k] = parse_proof_record(lines[k].second);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(parse_part, t);
  parse_part(0);
  for (auto& w : workers) w.join();
  std::vector<ProofRecord> records;
  records.reserve(parsed.size());
  for (size_t k = 0; k < parsed.size(); ++k) {
    if (!*parsed[k]) return "line " + std::to_string(lines[k].first) + ": " + parsed[k]->error();
    records.push_back(std::move(**parsed[k]));
  }
  return records;
}

Result<OutcomeRecord, std::string> parse_outcome_record(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::string("not a JSON object");
  const auto status = doc.value("status", std::string());
  const auto positions = [&](const char* key, size_t limit) -> std::optional<std::vector<size_t>> {
    std::vector<size_t> out;
    const auto it = doc.find(key);
    if (it == doc.end()) return out;
    if (!it->is_array() || it->size() > limit) return std::nullopt;
    for (const auto& p : *it) {
      if (!p.is_number_unsigned() || p.get<size_t>() >= limit) return std::nullopt;
      out.push_back(p.get<size_t>());
    }
    return out;
  };
  if (status == "aborted") {
    const auto reason = doc.find("reason");
    const auto blamed = positions("blamed", kMaxPositions);
    if (reason == doc.end() || !reason->is_string() || reason->get<std::string>().size() > 1024 || !blamed)
      return std::string("an abort record needs a reason and blamed positions");
    return OutcomeRecord{AbortMsg{reason->get<std::string>(), *blamed}};
  }
  if (status != "completed") return std::string("status: neither completed nor aborted");
  const auto id = doc.value("session_id", std::string());
  const auto key = from_hex(doc.value("dealer_key", std::string()));
  const auto signature = from_hex(doc.value("dealer_signature", std::string()));
  if (!valid_session_id(id) || !key || key->size() != kPublicKeyBytes || !signature ||
      signature->size() != kSignatureBytes)
    return std::string("a completed record carries its session id and the dealer's key and signature");
  Attestation attestation{id, {}, {}};
  std::copy(key->begin(), key->end(), attestation.dealer_key.begin());
  std::copy(signature->begin(), signature->end(), attestation.signature.begin());
  if (doc.contains("gadgets")) {
    // A gadget session's: {"gadgets","label","commitments","proof"} as r1cs_result_json writes it.
    const auto gadgets = doc.value("gadgets", std::string());
    const auto label = doc.value("label", std::string());
    const auto list = doc.find("commitments");
    const auto proof_bytes = from_hex(doc.value("proof", std::string()));
    if (gadgets.empty() || gadgets.size() > kMaxGadgetsBytes || label.size() > kMaxTranscriptLabelBytes ||
        list == doc.end() || !proof_bytes)
      return std::string("a gadget result needs gadgets, label, commitments and proof");
    auto points = points_of(*list, Limits{}.max_r1cs_commitments);
    if (!points) return points.error();
    R1CSResultMsg r1cs;
    r1cs.gadgets = gadgets;
    r1cs.label = label;
    r1cs.commitments = std::move(*points);
    auto proof = R1CSProof::from_bytes(*proof_bytes);
    if (!proof) return std::string("proof: not an R1CS proof");
    r1cs.proof = std::move(*proof);
    r1cs.attestation = attestation;
    return OutcomeRecord{std::move(r1cs)};
  }
  auto proof = parse_proof_record(text);
  if (!proof) return proof.error();
  const auto padding = positions("padding", proof->positions());
  if (!padding) return std::string("padding: positions inside the proof's commitments");
  // A bounded session's record states the values and their bounds; the signed result is over
  // the positions they give, under the label that ends with the bounds.
  auto label = proof->label;
  auto commitments = proof->commitments;
  if (!proof->bounds.empty()) {
    static const PedersenGens pc_gens;
    auto derived = bounded_commitments(pc_gens, proof->commitments, proof->bounds);
    if (!derived) return std::string("commitments: not valid points");
    commitments = std::move(*derived);
    label = bounded_label(label, proof->bounds);
  }
  ResultMsg result{
      mpc::AggregationResult{proof->n, std::move(label), std::move(commitments), *padding, std::move(proof->proof)},
      std::nullopt, proof->bounds};
  result.attestation = attestation;
  return OutcomeRecord{std::move(result)};
}

size_t ProofRecord::positions() const {
  if (gadgets) return 1;
  return bounds.empty() ? commitments.size() : padded_positions(bounds);
}

BatchOutcome verify_records(const std::vector<ProofRecord>& records, const BulletproofGens& bp_gens,
                            const PedersenGens& pc_gens, unsigned threads) {
  std::deque<Transcript> transcripts;
  std::deque<std::vector<CompressedRistretto>> positions;
  std::vector<BatchItem> items;
  std::vector<size_t> record_of;  // batch item -> record index
  BatchOutcome outcome;
  std::vector<GadgetListStatement> gadget_statements;
  std::vector<size_t> record_of_statement;
  items.reserve(records.size());
  for (size_t k = 0; k < records.size(); ++k) {
    const auto& r = records[k];
    if (r.gadgets) {
      gadget_statements.push_back({&*r.gadgets, r.label, r.commitments, &r.r1cs_proof});
      record_of_statement.push_back(k);
      continue;
    }
    if (r.bounds.empty()) {
      transcripts.emplace_back(r.label);
      items.push_back({&r.proof, r.commitments, r.n, &transcripts.back()});
    } else {
      auto derived = bounded_commitments(pc_gens, r.commitments, r.bounds);
      if (!derived) {
        outcome.failed.push_back(k);
        continue;
      }
      positions.push_back(std::move(*derived));
      transcripts.emplace_back(bounded_label(r.label, r.bounds));
      items.push_back({&r.proof, positions.back(), r.n, &transcripts.back()});
    }
    record_of.push_back(k);
  }
  if (!items.empty())
    for (size_t i : verify_batch(bp_gens, pc_gens, items, threads).failed) outcome.failed.push_back(record_of[i]);
  if (!gadget_statements.empty())
    for (size_t i : verify_gadget_lists(gadget_statements).failed) outcome.failed.push_back(record_of_statement[i]);
  std::sort(outcome.failed.begin(), outcome.failed.end());
  return outcome;
}

}  // namespace bp::wire
