#include "r1cs/constraints.hpp"

#include "bp/transcript_protocol.hpp"

namespace bp {

std::string_view describe(R1CSErrorKind kind) {
  switch (kind) {
    case R1CSErrorKind::InvalidGeneratorsLength: return "the generators are too few for the multipliers";
    case R1CSErrorKind::FormatError: return "the proof bytes are malformed";
    case R1CSErrorKind::VerificationError: return "the proof does not verify";
    case R1CSErrorKind::MissingAssignment: return "a variable was allocated without its value";
    case R1CSErrorKind::GadgetError: return "a gadget refused its inputs";
    case R1CSErrorKind::Unsatisfied: return "the values do not satisfy their gadget";
  }
  return "unknown error";
}

std::string describe(const R1CSError& e) {
  std::string out(describe(e.kind));
  if (!e.detail.empty()) out += ": " + e.detail;
  return out;
}

LinearCombination& LinearCombination::operator+=(const LinearCombination& o) {
  terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
  return *this;
}

LinearCombination& LinearCombination::operator-=(const LinearCombination& o) {
  for (const auto& [v, c] : o.terms_) terms_.emplace_back(v, -c);
  return *this;
}

LinearCombination& LinearCombination::operator*=(const Scalar& c) {
  for (auto& term : terms_) term.second *= c;
  return *this;
}

namespace detail {

R1CSMetrics ConstraintList::metrics(size_t multipliers) const {
  const size_t first = in_phase_two ? phase_one : constraints.size();
  return R1CSMetrics{multipliers, constraints.size(), first, constraints.size() - first};
}

bool names_known_variables(const LinearCombination& lc, size_t multipliers, size_t commitments) {
  for (const auto& term : lc.terms()) {
    const Variable& v = term.first;
    if (v.kind == Variable::Kind::Committed && v.index >= commitments) return false;
    if (v.kind != Variable::Kind::Committed && v.kind != Variable::Kind::One && v.index >= multipliers) return false;
  }
  return true;
}

std::optional<FlattenedConstraints> flatten(const std::vector<LinearCombination>& constraints, const Scalar& z,
                                            size_t multipliers, size_t commitments) {
  for (const auto& lc : constraints)
    if (!names_known_variables(lc, multipliers, commitments)) return std::nullopt;
  FlattenedConstraints f;
  f.w_L.assign(multipliers, Scalar::zero());
  f.w_R.assign(multipliers, Scalar::zero());
  f.w_O.assign(multipliers, Scalar::zero());
  f.w_V.assign(commitments, Scalar::zero());
  // Most coefficients are 1 or -1 (a gadget's plain sums and differences): those add or
  // subtract z^q itself instead of multiplying by it. The coefficients are the constraint
  // system's, public like the variables' kinds the loop already branches on.
  const Scalar one = Scalar::one(), minus_one = -one;
  Scalar exp_z = z;
  for (const auto& lc : constraints) {
    for (const auto& [var, coefficient] : lc.terms()) {
      Scalar* slot = &f.w_c;  // the constant's weight, and the commitments', enter negated
      bool subtract = true;
      switch (var.kind) {
        case Variable::Kind::MultiplierLeft: slot = &f.w_L[var.index], subtract = false; break;
        case Variable::Kind::MultiplierRight: slot = &f.w_R[var.index], subtract = false; break;
        case Variable::Kind::MultiplierOutput: slot = &f.w_O[var.index], subtract = false; break;
        case Variable::Kind::Committed: slot = &f.w_V[var.index]; break;
        case Variable::Kind::One: break;
      }
      if (coefficient == one) {
        *slot = subtract ? *slot - exp_z : *slot + exp_z;
      } else if (coefficient == minus_one) {
        *slot = subtract ? *slot + exp_z : *slot - exp_z;
      } else {
        const Scalar weighted = exp_z * coefficient;
        *slot = subtract ? *slot - weighted : *slot + weighted;
      }
    }
    exp_z *= z;
  }
  return f;
}

namespace {
std::span<const uint8_t> text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
}  // namespace

void r1cs_domain_sep(Transcript& t) { t.append_message("dom-sep", text("r1cs v1")); }
void r1cs_one_phase_domain_sep(Transcript& t) { t.append_message("dom-sep", text("r1cs-1phase")); }
void r1cs_two_phase_domain_sep(Transcript& t) { t.append_message("dom-sep", text("r1cs-2phase")); }

size_t next_power_of_two(size_t n) {
  size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

Scalar RandomizingSystem::challenge_scalar(std::string_view label) { return bp::challenge_scalar(transcript_, label); }

Result<Ok, R1CSError> run_second_phase(ConstraintList& list, ConstraintSystem& system, Transcript& transcript) {
  list.pending_multiplier.reset();  // committed in the first phase as it is
  list.phase_one = list.constraints.size();
  list.in_phase_two = true;
  if (list.deferred.empty()) {
    r1cs_one_phase_domain_sep(transcript);
    return Ok{};
  }
  r1cs_two_phase_domain_sep(transcript);
  auto callbacks = std::move(list.deferred);
  list.deferred.clear();
  RandomizingSystem phase_two(system, transcript);
  for (auto& callback : callbacks)
    if (auto done = callback(phase_two); !done) return done;
  return Ok{};
}

std::vector<Scalar> powers(const Scalar& x, size_t n) {
  std::vector<Scalar> out;
  out.reserve(n);
  Scalar p = Scalar::one();
  for (size_t i = 0; i < n; ++i) {
    out.push_back(p);
    p *= x;
  }
  return out;
}

}  // namespace detail
}  // namespace bp
