#include <sodium.h>

#include "bp/mpc/party.hpp"
#include "bp/transcript_protocol.hpp"
#include "state.hpp"

namespace bp::mpc {

using detail::consumed;
using detail::malicious_dealer;

namespace detail {

PartyState::~PartyState() {
  sodium_memzero(&value, sizeof value);
  blinding.wipe();
}

MpcResult<SessionContext> SessionContext::make(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                               const SessionParams& params, std::unique_ptr<RandomSource> owned_rng,
                                               RandomSource* rng) {
  if (!params.valid() || bp_gens.gens_capacity() < params.bits || bp_gens.party_capacity() < params.padded_m())
    return MpcError{MpcErrorKind::InvalidParameters, {}, "n, m or the generators do not fit this session"};
  SessionContext ctx;
  ctx.bp_gens = &bp_gens;
  ctx.pc_gens = &pc_gens;
  ctx.params = params;
  ctx.owned_rng = std::move(owned_rng);
  ctx.rng = rng != nullptr ? rng : ctx.owned_rng.get();
  return ctx;
}

MpcResult<PartyAwaitingPosition> PartyFactory::create(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                                      const SessionParams& params, uint64_t value,
                                                      const Scalar& blinding, std::unique_ptr<RandomSource> owned_rng,
                                                      RandomSource* rng, bool allow_out_of_range) {
  auto ctx = SessionContext::make(bp_gens, pc_gens, params, std::move(owned_rng), rng);
  if (!ctx) return ctx.error();
  // Whether the value fits is the one bit the caller is told anyway.
  if (!allow_out_of_range && params.bits < 64 && (value >> params.bits) != 0)
    return MpcError{MpcErrorKind::ValueOutOfRange, {}, "the value is not below 2^n"};
  auto s = std::make_unique<PartyState>(std::move(*ctx));
  s->value = value;
  s->blinding = blinding;
  rangeproof_domain_sep(s->transcript, params.bits, params.padded_m());
  return PartyAwaitingPosition(std::move(s));
}

}  // namespace detail

// ---- PartyAwaitingPosition ----

MpcResult<PartyAwaitingPosition> PartyAwaitingPosition::create(const BulletproofGens& bp_gens,
                                                               const PedersenGens& pc_gens, const SessionParams& params,
                                                               uint64_t value, const Scalar& blinding) {
  return detail::PartyFactory::create(bp_gens, pc_gens, params, value, blinding, std::make_unique<SystemRandom>(),
                                      nullptr, false);
}

MpcResult<std::pair<PartyAwaitingBitChallenge, BitCommitment>> PartyAwaitingPosition::assign_position(
    size_t position) && {
  if (!s_) return consumed();
  auto& s = *s_;
  if (position >= s.params.padded_m())
    return MpcError{
        MpcErrorKind::InvalidPosition, {}, "position " + std::to_string(position) + " is outside the session"};
  s.position = position;
  s.bit_commitment =
      party_commit_bits(*s.bp_gens, *s.pc_gens, position, s.params.bits, s.value, s.blinding, *s.rng, s.bit_secrets);
  BitCommitment reply = s.bit_commitment;
  return std::pair{PartyAwaitingBitChallenge(std::move(s_)), reply};
}

PartyAwaitingPosition::PartyAwaitingPosition(std::unique_ptr<detail::PartyState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(PartyAwaitingPosition)

// ---- PartyAwaitingBitChallenge ----

MpcResult<std::pair<PartyAwaitingPolyChallenge, PolyCommitment>> PartyAwaitingBitChallenge::apply_challenge(
    const BitChallengeMsg& c) && {
  if (!s_) return consumed();
  auto& s = *s_;
  if (c.bit_commitments.size() != s.params.padded_m())
    return malicious_dealer("the bit challenge lists " + std::to_string(c.bit_commitments.size()) +
                            " commitments for a session of " + std::to_string(s.params.padded_m()));
  if (!(c.bit_commitments[s.position] == s.bit_commitment))
    return malicious_dealer("the bit challenge does not carry our own commitment at our position");
  if (!detail::malformed_bit_commitments(c.bit_commitments).empty())
    return malicious_dealer("the bit challenge forwards a commitment that does not decode");
  Transcript t = s.transcript;
  const auto round = dealer_bit_challenge(t, c.bit_commitments);
  if (!round || !(round->challenge.y == c.y) || !(round->challenge.z == c.z))
    return malicious_dealer("y or z is not the transcript's challenge");
  if (c.y.is_zero() || c.z.is_zero()) return malicious_dealer("a zero challenge");
  s.transcript = t;
  s.poly_reply = party_commit_poly(std::move(s.bit_secrets), *s.pc_gens, round->challenge, *s.rng, s.poly_secrets);
  s.answered_bit = c;
  PolyCommitment reply = s.poly_reply;
  return std::pair{PartyAwaitingPolyChallenge(std::move(s_)), reply};
}

size_t PartyAwaitingBitChallenge::position() const { return s_ ? s_->position : 0; }
PartyAwaitingBitChallenge::PartyAwaitingBitChallenge(std::unique_ptr<detail::PartyState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(PartyAwaitingBitChallenge)

// ---- PartyAwaitingPolyChallenge ----

namespace {
bool same_challenge(const BitChallengeMsg& a, const BitChallengeMsg& b) {
  return a.y == b.y && a.z == b.z && a.bit_commitments == b.bit_commitments;
}
bool same_challenge(const PolyChallengeMsg& a, const PolyChallengeMsg& b) {
  return a.x == b.x && a.poly_commitments == b.poly_commitments;
}
}  // namespace

MpcResult<std::pair<PartyAwaitingResult, ProofShare>> PartyAwaitingPolyChallenge::apply_challenge(
    const PolyChallengeMsg& c) && {
  if (!s_) return consumed();
  auto& s = *s_;
  if (c.poly_commitments.size() != s.params.padded_m())
    return malicious_dealer("the poly challenge lists " + std::to_string(c.poly_commitments.size()) +
                            " commitments for a session of " + std::to_string(s.params.padded_m()));
  if (!(c.poly_commitments[s.position] == s.poly_reply))
    return malicious_dealer("the poly challenge does not carry our own commitment at our position");
  if (!detail::malformed_poly_commitments(c.poly_commitments).empty())
    return malicious_dealer("the poly challenge forwards a commitment that does not decode");
  Transcript t = s.transcript;
  const auto round = dealer_poly_challenge(t, c.poly_commitments);
  if (!round || !(round->challenge.x == c.x)) return malicious_dealer("x is not the transcript's challenge");
  if (c.x.is_zero()) return malicious_dealer("a zero challenge");
  s.transcript = t;
  s.share = party_prove_share(std::move(s.poly_secrets), round->challenge);
  s.answered_poly = c;
  ProofShare reply = s.share;
  return std::pair{PartyAwaitingResult(std::move(s_)), std::move(reply)};
}

MpcResult<PolyCommitment> PartyAwaitingPolyChallenge::replay(const BitChallengeMsg& c) const {
  if (!s_) return consumed();
  if (!s_->answered_bit || !same_challenge(*s_->answered_bit, c))
    return malicious_dealer("a second, different bit challenge for a round already answered");
  return s_->poly_reply;
}

size_t PartyAwaitingPolyChallenge::position() const { return s_ ? s_->position : 0; }
PartyAwaitingPolyChallenge::PartyAwaitingPolyChallenge(std::unique_ptr<detail::PartyState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(PartyAwaitingPolyChallenge)

// ---- PartyAwaitingResult ----

MpcResult<ProofShare> PartyAwaitingResult::replay(const PolyChallengeMsg& c) const {
  if (!s_) return consumed();
  if (!s_->answered_poly || !same_challenge(*s_->answered_poly, c))
    return malicious_dealer("a second, different poly challenge for a round already answered");
  return s_->share;
}

MpcResult<Ok> PartyAwaitingResult::check_placement(const AggregationResult& r) const {
  if (!s_) return consumed();
  const auto& s = *s_;
  if (r.bits != s.params.bits || r.label != s.params.label)
    return malicious_dealer("the result is for other session parameters");
  if (r.commitments.size() != s.params.padded_m() || !(r.commitments[s.position] == s.bit_commitment.V_j))
    return malicious_dealer("the result does not carry our commitment at our position");
  return Ok{};
}

MpcResult<Ok> PartyAwaitingResult::check_result(const AggregationResult& r) const {
  if (auto placed = check_placement(r); !placed) return placed.error();
  const auto& s = *s_;
  Transcript t(r.label);
  const auto status = r.proof.verify_multiple(*s.bp_gens, *s.pc_gens, t, r.commitments, r.bits);
  if (!status) return malicious_dealer("the aggregated proof does not verify");
  return Ok{};
}

size_t PartyAwaitingResult::position() const { return s_ ? s_->position : 0; }
PartyAwaitingResult::PartyAwaitingResult(std::unique_ptr<detail::PartyState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(PartyAwaitingResult)

}  // namespace bp::mpc
