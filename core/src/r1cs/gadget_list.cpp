#include "bp/r1cs_gadget_list.hpp"

#include <algorithm>
#include <memory>

#include "bp/decimal.hpp"
#include "bp/r1cs_gadgets.hpp"
#include "r1cs/constraints.hpp"

namespace bp {

namespace {

constexpr uint64_t kMaxCount = 4096;

Result<GadgetItem, std::string> parse_item(std::string_view item) {
  const size_t colon = item.find(':');
  const std::string_view name = item.substr(0, colon);
  const std::optional<std::string_view> arg =
      colon == std::string_view::npos ? std::nullopt : std::optional(item.substr(colon + 1));
  const auto bad = [&](const std::string& why) { return "gadget '" + std::string(item) + "': " + why; };
  GadgetItem out;
  if (name == "member") {
    out.kind = GadgetItem::Kind::Member;
    if (!arg) return bad("member needs its set, member:s0|s1|...");
    std::string_view rest = *arg;
    while (true) {
      const size_t bar = rest.find('|');
      const auto value = parse_decimal_u64(rest.substr(0, bar));
      if (!value) return bad("the set's values are u64 numbers separated by '|'");
      out.set.push_back(*value);
      if (out.set.size() > kMaxCount) return bad("at most 4096 values in a set");
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
    return out;
  }
  std::optional<uint64_t> parameter;
  if (arg) {
    parameter = parse_decimal_u64(*arg);
    if (!parameter) return bad("its parameter is not a u64 number");
  }
  if (name == "example") {
    out.kind = GadgetItem::Kind::Example;
    out.parameter = parameter.value_or(9);
    return out;
  }
  if (!parameter) return bad("it needs its parameter (name:N)");
  out.parameter = *parameter;
  if (name == "shuffle" || name == "sum") {
    out.kind = name == "shuffle" ? GadgetItem::Kind::Shuffle : GadgetItem::Kind::Sum;
    if (out.parameter < 1 || out.parameter > kMaxCount) return bad("K must be 1 to 4096");
  } else if (name == "range" || name == "geq") {
    out.kind = name == "range" ? GadgetItem::Kind::Range : GadgetItem::Kind::GreaterOrEqual;
    if (out.parameter > 64 || (out.kind == GadgetItem::Kind::GreaterOrEqual && out.parameter == 0))
      return bad(name == "range" ? "N must be 0 to 64" : "N must be 1 to 64");
  } else {
    return bad("no such gadget (shuffle, range, example, member, sum, geq)");
  }
  return out;
}

}  // namespace

size_t GadgetItem::commitments() const {
  switch (kind) {
    case Kind::Shuffle: return 2 * parameter;
    case Kind::Range: return 1;
    case Kind::Example: return 5;
    case Kind::Member: return 1;
    case Kind::Sum: return parameter + 1;
    case Kind::GreaterOrEqual: return 2;
  }
  return 0;
}

size_t GadgetItem::multipliers() const {
  switch (kind) {
    case Kind::Shuffle: return 2 * (parameter - 1);
    case Kind::Range: return parameter;
    case Kind::Example: return 1;
    case Kind::Member: return set.size() - 1;
    case Kind::Sum: return 0;
    case Kind::GreaterOrEqual: return parameter;
  }
  return 0;
}

std::string GadgetItem::text() const {
  switch (kind) {
    case Kind::Shuffle: return "shuffle:" + std::to_string(parameter);
    case Kind::Range: return "range:" + std::to_string(parameter);
    case Kind::Example: return "example:" + std::to_string(parameter);
    case Kind::Member: {
      std::string out = "member:";
      for (size_t i = 0; i < set.size(); ++i) {
        if (i != 0) out += '|';
        out += std::to_string(set[i]);
      }
      return out;
    }
    case Kind::Sum: return "sum:" + std::to_string(parameter);
    case Kind::GreaterOrEqual: return "geq:" + std::to_string(parameter);
  }
  return {};
}

Result<GadgetList, std::string> GadgetList::parse(std::string_view text) {
  GadgetList list;
  if (text.empty()) return std::string("the gadget list is empty");
  while (true) {
    const size_t semicolon = text.find(';');
    auto item = parse_item(text.substr(0, semicolon));
    if (!item) return item.error();
    list.items_.push_back(std::move(*item));
    if (list.items_.size() > kMaxCount) return std::string("at most 4096 gadgets in a list");
    if (semicolon == std::string_view::npos) break;
    text.remove_prefix(semicolon + 1);
  }
  return list;
}

size_t GadgetList::commitments() const {
  size_t total = 0;
  for (const auto& item : items_) total += item.commitments();
  return total;
}

size_t GadgetList::multipliers() const {
  size_t total = 0;
  for (const auto& item : items_) total += item.multipliers();
  return total;
}

size_t GadgetList::generators_capacity() const {
  size_t capacity = 1;
  while (capacity < multipliers()) capacity *= 2;
  return capacity;
}

std::string GadgetList::text() const {
  std::string out;
  for (const auto& item : items_) {
    if (!out.empty()) out += ';';
    out += item.text();
  }
  return out;
}

void GadgetList::append_prefixes(Transcript& transcript) const {
  for (const auto& item : items_)
    if (item.kind == GadgetItem::Kind::Shuffle) gadgets::shuffle_domain_sep(transcript, item.parameter);
}

Result<Ok, R1CSError> GadgetList::build(RandomizableConstraintSystem& cs, std::span<const Variable> committed,
                                        std::optional<std::span<const uint64_t>> values,
                                        const std::function<void(size_t item)>& entering) const {
  if (committed.size() != commitments() || (values && values->size() != commitments()))
    return R1CSError{R1CSErrorKind::GadgetError,
                     "the list takes " + std::to_string(commitments()) + " commitments and values"};
  size_t at = 0;
  for (size_t index = 0; index < items_.size(); ++index) {
    const GadgetItem& item = items_[index];
    if (entering) entering(index);
    const auto V = committed.subspan(at, item.commitments());
    const auto value = [&](size_t j) { return values ? std::optional<uint64_t>((*values)[at + j]) : std::nullopt; };
    Result<Ok, R1CSError> built = Ok{};
    switch (item.kind) {
      case GadgetItem::Kind::Shuffle: {
        const auto k = static_cast<std::ptrdiff_t>(item.parameter);
        built = gadgets::shuffle(cs, {V.begin(), V.begin() + k}, {V.begin() + k, V.end()});
        break;
      }
      case GadgetItem::Kind::Range: built = gadgets::range(cs, V[0], value(0), item.parameter); break;
      case GadgetItem::Kind::Example:
        gadgets::example(cs, V[0], V[1], V[2], V[3], V[4], Scalar::from_u64(item.parameter));
        break;
      case GadgetItem::Kind::Member: {
        std::vector<Scalar> set;
        for (uint64_t s : item.set) set.push_back(Scalar::from_u64(s));
        built = gadgets::member_of(cs, V[0], set);
        break;
      }
      case GadgetItem::Kind::Sum: gadgets::sum_equals(cs, V.first(V.size() - 1), V.back()); break;
      case GadgetItem::Kind::GreaterOrEqual:
        built = gadgets::greater_or_equal(cs, V[0], value(0), V[1], value(1), item.parameter);
        break;
    }
    if (!built) return built.error();
    at += item.commitments();
  }
  return Ok{};
}

const PedersenGens& detail::r1cs_pedersen() { return shared_pedersen(); }

const BulletproofGens& detail::r1cs_generators(size_t capacity) { return shared_generators(capacity, 1); }

namespace {

const PedersenGens& pedersen() { return detail::r1cs_pedersen(); }
const BulletproofGens& generators(size_t capacity) { return detail::r1cs_generators(capacity); }

R1CSError wrong_count(const GadgetList& list, size_t given) {
  return {R1CSErrorKind::GadgetError, "the list " + list.text() + " takes " + std::to_string(list.commitments()) +
                                          " commitments, not " + std::to_string(given)};
}

}  // namespace

Result<GadgetListProof, R1CSError> prove_gadget_list(const GadgetList& list, std::string_view label,
                                                     std::span<const uint64_t> values,
                                                     std::span<const Scalar> blindings) {
  if (values.size() != list.commitments() || blindings.size() != values.size()) return wrong_count(list, values.size());
  Transcript transcript(label);
  list.append_prefixes(transcript);
  R1CSProver prover(pedersen(), transcript);
  GadgetListProof out;
  std::vector<Variable> vars;
  for (size_t j = 0; j < values.size(); ++j) {
    const auto [V, var] = prover.commit(Scalar::from_u64(values[j]), blindings[j]);
    out.commitments.push_back(V);
    vars.push_back(var);
  }
  if (auto built = list.build(prover, vars, values); !built) return built.error();
  auto proof = std::move(prover).prove(generators(list.generators_capacity()));
  if (!proof) return proof.error();
  out.proof = std::move(*proof);
  return out;
}

Result<GadgetListProof, R1CSError> prove_gadget_list_checked(const GadgetList& list, std::string_view label,
                                                             std::span<const uint64_t> values,
                                                             std::span<const Scalar> blindings) {
  auto proved = prove_gadget_list(list, label, values, blindings);
  if (!proved) return proved;
  // Whether the statement holds is the caller's to learn anyway (the proof is public).
  if (!verify_gadget_list(list, label, proved->commitments, proved->proof))
    return R1CSError{R1CSErrorKind::Unsatisfied, "the values do not satisfy " + list.text()};
  return proved;
}

Result<Ok, R1CSError> verify_gadget_list(const GadgetList& list, std::string_view label,
                                         std::span<const CompressedRistretto> commitments, const R1CSProof& proof) {
  if (commitments.size() != list.commitments()) return wrong_count(list, commitments.size());
  Transcript transcript(label);
  list.append_prefixes(transcript);
  R1CSVerifier verifier(transcript);
  std::vector<Variable> vars;
  for (const auto& V : commitments) vars.push_back(verifier.commit(V));
  if (auto built = list.build(verifier, vars, std::nullopt); !built) return built.error();
  return std::move(verifier).verify(proof, pedersen(), generators(list.generators_capacity()));
}

R1CSBatchOutcome verify_gadget_lists(std::span<const GadgetListStatement> statements) {
  size_t capacity = 1;
  for (const auto& s : statements) capacity = std::max(capacity, s.list->generators_capacity());
  const BulletproofGens& gens = generators(capacity);
  R1CSBatchOutcome out;
  std::vector<R1CSEquation> equations;
  std::vector<size_t> statement_of;  // equation -> statement
  for (size_t k = 0; k < statements.size(); ++k) {
    const auto& s = statements[k];
    Transcript transcript(s.label);
    s.list->append_prefixes(transcript);
    R1CSVerifier verifier(transcript);
    std::vector<Variable> vars;
    for (const auto& V : s.commitments) vars.push_back(verifier.commit(V));
    auto equation = s.commitments.size() == s.list->commitments() && s.list->build(verifier, vars, std::nullopt)
                        ? std::move(verifier).equation(*s.proof, gens)
                        : Result<R1CSEquation, R1CSError>(wrong_count(*s.list, s.commitments.size()));
    if (!equation) {
      out.failed.push_back(k);
      continue;
    }
    equations.push_back(std::move(*equation));
    statement_of.push_back(k);
  }
  for (size_t e : verify_r1cs_batch(equations, pedersen(), gens).failed) out.failed.push_back(statement_of[e]);
  std::sort(out.failed.begin(), out.failed.end());
  return out;
}

}  // namespace bp
