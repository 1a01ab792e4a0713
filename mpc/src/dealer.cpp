#include "bp/mpc/dealer.hpp"

#include "bp/batch_verification.hpp"
#include "bp/transcript_protocol.hpp"
#include "state.hpp"

namespace bp::mpc {

using detail::consumed;

namespace detail {

MpcResult<DealerAwaitingBitCommitments> DealerFactory::create(const BulletproofGens& bp_gens,
                                                              const PedersenGens& pc_gens, const SessionParams& params,
                                                              std::unique_ptr<RandomSource> owned_rng,
                                                              RandomSource* rng) {
  auto ctx = SessionContext::make(bp_gens, pc_gens, params, std::move(owned_rng), rng);
  if (!ctx) return ctx.error();
  auto s = std::make_unique<DealerState>(std::move(*ctx));
  rangeproof_domain_sep(s->transcript, params.bits, params.padded_m());
  // Padding parties commit to 0 with blinding 0; their randomness comes from the dealer.
  for (size_t j = params.positions; j < params.padded_m(); ++j) {
    auto pad = PartyFactory::create(bp_gens, pc_gens, params, 0, Scalar::zero(), nullptr, s->rng, false);
    if (!pad) return pad.error();
    s->padding.emplace_back(std::move(*pad));
  }
  return DealerAwaitingBitCommitments(std::move(s));
}

namespace {

// Moves padding party k one round on, keeping the new state; returns its outgoing message.
template <class From, class Msg>
auto advance(PaddingParty& slot, Msg&& input) {
  auto next = std::move(std::get<From>(slot)).apply_challenge(input);
  auto reply = std::move(next->second);
  slot = std::move(next->first);
  return reply;
}

}  // namespace
}  // namespace detail

// ---- DealerAwaitingBitCommitments ----

MpcResult<DealerAwaitingBitCommitments> DealerAwaitingBitCommitments::create(const BulletproofGens& bp_gens,
                                                                             const PedersenGens& pc_gens,
                                                                             const SessionParams& params) {
  return detail::DealerFactory::create(bp_gens, pc_gens, params, std::make_unique<SystemRandom>(), nullptr);
}

MpcResult<DealerAwaitingBitCommitments> DealerAwaitingBitCommitments::create(
    const BulletproofGens& bp_gens, const PedersenGens& pc_gens, const SessionParams& params,
    std::span<const uint8_t, kPaddingSeedBytes> padding_seed) {
  return detail::DealerFactory::create(bp_gens, pc_gens, params, std::make_unique<SeededRandom>(padding_seed), nullptr);
}

MpcResult<std::pair<DealerAwaitingPolyCommitments, BitChallengeMsg>>
DealerAwaitingBitCommitments::receive_bit_commitments(std::vector<BitCommitment> commitments) && {
  if (!s_) return consumed();
  auto& s = *s_;
  if (commitments.size() != s.params.positions)
    return MpcError{
        MpcErrorKind::WrongNumBitCommitments,
        {},
        "got " + std::to_string(commitments.size()) + " for " + std::to_string(s.params.positions) + " positions"};
  if (auto bad = detail::malformed_bit_commitments(commitments); !bad.empty())
    return MpcError{MpcErrorKind::MalformedBitCommitments, std::move(bad),
                    "a point does not decode or is the identity"};
  s.bit_commitments = std::move(commitments);
  for (size_t k = 0; k < s.padding.size(); ++k) {
    auto assigned = std::move(std::get<PartyAwaitingPosition>(s.padding[k])).assign_position(s.params.positions + k);
    s.bit_commitments.push_back(assigned->second);
    s.padding[k] = std::move(assigned->first);
  }
  auto round = dealer_bit_challenge(s.transcript, s.bit_commitments);
  if (!round) return MpcError{MpcErrorKind::MalformedBitCommitments, {}, "a point does not decode"};
  s.bit_round = *round;
  BitChallengeMsg msg{round->challenge.y, round->challenge.z, s.bit_commitments};
  s.padding_poly.clear();
  for (auto& pad : s.padding) s.padding_poly.push_back(detail::advance<PartyAwaitingBitChallenge>(pad, msg));
  return std::pair{DealerAwaitingPolyCommitments(std::move(s_)), std::move(msg)};
}

const SessionParams& DealerAwaitingBitCommitments::params() const {
  static const SessionParams kEmpty{};
  return s_ ? s_->params : kEmpty;
}

DealerAwaitingBitCommitments::DealerAwaitingBitCommitments(std::unique_ptr<detail::DealerState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(DealerAwaitingBitCommitments)

// ---- DealerAwaitingPolyCommitments ----

MpcResult<std::pair<DealerAwaitingProofShares, PolyChallengeMsg>>
DealerAwaitingPolyCommitments::receive_poly_commitments(std::vector<PolyCommitment> commitments) && {
  if (!s_) return consumed();
  auto& s = *s_;
  if (commitments.size() != s.params.positions)
    return MpcError{
        MpcErrorKind::WrongNumPolyCommitments,
        {},
        "got " + std::to_string(commitments.size()) + " for " + std::to_string(s.params.positions) + " positions"};
  if (auto bad = detail::malformed_poly_commitments(commitments); !bad.empty())
    return MpcError{MpcErrorKind::MalformedPolyCommitments, std::move(bad),
                    "a point does not decode or is the identity"};
  s.poly_commitments = std::move(commitments);
  s.poly_commitments.insert(s.poly_commitments.end(), s.padding_poly.begin(), s.padding_poly.end());
  auto round = dealer_poly_challenge(s.transcript, s.poly_commitments);
  if (!round) return MpcError{MpcErrorKind::MalformedPolyCommitments, {}, "a point does not decode"};
  s.poly_round = *round;
  PolyChallengeMsg msg{round->challenge.x, s.poly_commitments};
  s.padding_shares.clear();
  for (auto& pad : s.padding) s.padding_shares.push_back(detail::advance<PartyAwaitingPolyChallenge>(pad, msg));
  return std::pair{DealerAwaitingProofShares(std::move(s_)), std::move(msg)};
}

DealerAwaitingPolyCommitments::DealerAwaitingPolyCommitments(std::unique_ptr<detail::DealerState> s)
    : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(DealerAwaitingPolyCommitments)

// ---- DealerAwaitingProofShares ----

MpcResult<AggregationResult> DealerAwaitingProofShares::receive_shares(std::vector<ProofShare> shares) && {
  auto assembled = std::move(*this).assemble_shares(std::move(shares));
  if (!assembled) return assembled.error();
  return std::move(*assembled).check();
}

// What a check needs: the dealer's record of the rounds (to audit the shares when the proof
// fails), every share, and the result to give out once the proof verifies.
struct DealerCheckingProof::Assembled {
  std::unique_ptr<detail::DealerState> s;
  std::vector<ProofShare> shares;  // padded_m of them
  AggregationResult result;
};

MpcResult<DealerCheckingProof> DealerAwaitingProofShares::assemble_shares(std::vector<ProofShare> shares) && {
  if (!s_) return consumed();
  auto& s = *s_;
  const size_t n = s.params.bits;
  if (shares.size() != s.params.positions)
    return MpcError{
        MpcErrorKind::WrongNumProofShares,
        {},
        "got " + std::to_string(shares.size()) + " for " + std::to_string(s.params.positions) + " positions"};
  if (auto bad = detail::wrong_size_shares(shares, n); !bad.empty())
    return MpcError{MpcErrorKind::MalformedProofShares, std::move(bad), "l or r does not have n entries"};
  shares.insert(shares.end(), s.padding_shares.begin(), s.padding_shares.end());

  auto a = std::make_unique<DealerCheckingProof::Assembled>();
  AggregationResult& result = a->result;
  result.bits = n;
  result.label = s.params.label;
  for (const auto& c : s.bit_commitments) result.commitments.push_back(c.V_j);
  for (size_t j = s.params.positions; j < s.params.padded_m(); ++j) result.padding_positions.push_back(j);
  result.proof = dealer_assemble(s.transcript, *s.bp_gens, *s.pc_gens, n, s.bit_round, s.poly_round, shares);
  a->shares = std::move(shares);
  a->s = std::move(s_);
  return DealerCheckingProof(std::move(a));
}

DealerAwaitingProofShares::DealerAwaitingProofShares(std::unique_ptr<detail::DealerState> s) : s_(std::move(s)) {}
BP_MPC_DEFAULT_MOVES(DealerAwaitingProofShares)

// ---- DealerCheckingProof ----

MpcResult<AggregationResult> DealerCheckingProof::check() && {
  if (!a_) return consumed();
  const auto& s = *a_->s;
  Transcript verifier(s.params.label);
  return std::move(*this).verdict(
      a_->result.proof.verify_multiple(*s.bp_gens, *s.pc_gens, verifier, a_->result.commitments, s.params.bits).ok());
}

MpcResult<AggregationResult> DealerCheckingProof::verdict(bool verified) && {
  if (!a_) return consumed();
  if (!verified) return blame();
  auto result = std::move(a_->result);
  a_.reset();
  return result;
}

std::vector<MpcResult<AggregationResult>> DealerCheckingProof::check_batch(std::vector<DealerCheckingProof> dealers) {
  std::vector<MpcResult<AggregationResult>> answers;
  answers.reserve(dealers.size());
  // A batch needs one set of generators (a service's dealers share theirs); a batch of one
  // would cost what a verification does.
  std::vector<size_t> live;
  for (size_t k = 0; k < dealers.size(); ++k)
    if (dealers[k].a_) live.push_back(k);
  const auto same_generators = [&] {
    for (size_t k : live)
      if (dealers[k].a_->s->bp_gens != dealers[live[0]].a_->s->bp_gens ||
          dealers[k].a_->s->pc_gens != dealers[live[0]].a_->s->pc_gens)
        return false;
    return true;
  };
  if (live.size() < 2 || !same_generators()) {
    for (auto& d : dealers) answers.push_back(std::move(d).check());
    return answers;
  }
  std::vector<Transcript> transcripts;
  transcripts.reserve(live.size());  // the items point into it
  std::vector<BatchItem> items;
  for (size_t k : live) {
    const auto& a = *dealers[k].a_;
    transcripts.emplace_back(a.s->params.label);
    items.push_back({&a.result.proof, a.result.commitments, a.s->params.bits, &transcripts.back()});
  }
  const auto& first = *dealers[live[0]].a_->s;
  const BatchOutcome outcome = verify_batch(*first.bp_gens, *first.pc_gens, items);
  std::vector<bool> failed(dealers.size(), false);
  for (size_t i : outcome.failed) failed[live[i]] = true;
  for (size_t k = 0; k < dealers.size(); ++k) answers.push_back(std::move(dealers[k]).verdict(!failed[k]));
  return answers;
}

MpcError DealerCheckingProof::blame() const {
  if (!a_) return consumed();
  const auto& s = *a_->s;
  // The proof fails: find the shares that do not match their own party's commitments.
  std::vector<size_t> bad;
  for (size_t j = 0; j < s.params.positions; ++j)
    if (!audit_share_vartime(*s.bp_gens, *s.pc_gens, j, s.params.bits, s.bit_commitments[j], s.bit_round.challenge,
                             s.poly_commitments[j], s.poly_round.challenge, a_->shares[j]))
      bad.push_back(j);
  return MpcError{MpcErrorKind::MalformedProofShares, std::move(bad), "the aggregated proof does not verify"};
}

DealerCheckingProof::DealerCheckingProof(std::unique_ptr<Assembled> a) : a_(std::move(a)) {}
BP_MPC_DEFAULT_MOVES(DealerCheckingProof)

}  // namespace bp::mpc
