// A range session's kind (session_kind.hpp): its dealer rebuilt from the padding seed and the
// decided rounds, three rounds (bounded values checked against their seats' bounds), the
// final proof to the checker, and the signed result. It decides; session.cpp does the rest.
#include "bp/wire/auth.hpp"
#include "session/inbox.hpp"
#include "session/session_kind.hpp"

namespace bp::server {

namespace {

using Phase = SessionPhase;

class RangeKind final : public SessionKind {
 public:
  RangeKind(const SessionTerms& terms, const SessionEnv& env)
      : terms_(terms), env_(env), params_(terms.params), shapes_(terms.seat_shapes()) {}

  std::variant<Replayed, Abort, std::string> replay(const wire::DealerCheckpoint& restored) override {
    padding_seed_ = restored.padding_seed;
    auto fresh = mpc::DealerAwaitingBitCommitments::create(*env_.bp_gens, *env_.pc_gens, params_, padding_seed_);
    if (!fresh) return Abort{AbortKind::Internal, mpc::describe(fresh.error()), {}};
    dealer_ = std::move(*fresh);
    Replayed out{nullptr, std::vector<std::vector<uint8_t>>(shapes_.size())};
    if (restored.bit_commitments.empty()) return out;
    auto bits = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_))
                    .receive_bit_commitments(restored.bit_commitments);
    if (!bits) return mpc::describe(bits.error());
    dealer_ = std::move(bits->first);
    accepted_bits_ = restored.bit_commitments;
    out.last_broadcast = frame_of(bits->second);
    for (size_t j = 0; j < shapes_.size(); ++j) out.last_accepted[j] = of_seat(j, accepted_bits_);
    if (restored.poly_commitments.empty()) return out;
    auto polys = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_))
                     .receive_poly_commitments(restored.poly_commitments);
    if (!polys) return mpc::describe(polys.error());
    dealer_ = std::move(polys->first);
    accepted_polys_ = restored.poly_commitments;
    out.last_broadcast = frame_of(polys->second);
    for (size_t j = 0; j < shapes_.size(); ++j) out.last_accepted[j] = of_seat(j, accepted_polys_);
    return out;
  }

  Phase phase(bool all_seated) const override {
    if (std::holds_alternative<mpc::DealerAwaitingBitCommitments>(dealer_))
      return all_seated ? Phase::BitCommitments : Phase::Joining;
    if (std::holds_alternative<mpc::DealerAwaitingPolyCommitments>(dealer_)) return Phase::PolyCommitments;
    if (std::holds_alternative<mpc::DealerAwaitingProofShares>(dealer_)) return Phase::ProofShares;
    if (std::holds_alternative<mpc::DealerCheckingProof>(dealer_)) return Phase::Done;
    return Phase::Joining;  // not made yet
  }

  int round_of(Phase now) const override {
    return now == Phase::Joining || now == Phase::BitCommitments ? 1
           : now == Phase::PolyCommitments                       ? 2
           : now == Phase::ProofShares                           ? 3
                                                                 : 0;
  }

  std::optional<std::string> misfit(const SeatShape& seat, const PartyStatement& statement) const override {
    if (statement.states_gadget) return "this session proves ranges; the party states a gadget";
    // A party before 1.4 says nothing: it brings one value and commits to it unshifted, so it
    // may only take a seat of one unbounded value.
    const uint32_t values = statement.values;
    const bool bounded = !terms_.bounds.empty();
    if (values == 0 && seat.values == 1 && !bounded) return std::nullopt;
    if (values == 0)
      return std::string("this seat holds ") + (bounded ? "bounded values" : std::to_string(seat.values) + " values") +
             ": it needs a party of wire version 1.4 or later";
    if (values != seat.values)
      return "this seat holds " + std::to_string(seat.values) + " values; the party brings " + std::to_string(values);
    return std::nullopt;
  }

  std::optional<std::string> message_misfit(const SeatShape&, const wire::Message&) const override {
    return std::nullopt;  // mpc's dealer checks every range message itself
  }

  Decision complete(Phase completed, std::vector<std::optional<wire::Message>>& inbox) override {
    if (completed == Phase::BitCommitments) {
      auto bits = collect<BitCommitment>(inbox);
      if (auto blamed = bad_bounded_positions(bits); !blamed.empty())
        return Abort{AbortKind::InvalidShares,
                     "MalformedBitCommitments: a bounded value's two positions do not add up to (max - min)·B",
                     std::move(blamed)};
      auto next = std::move(std::get<mpc::DealerAwaitingBitCommitments>(dealer_)).receive_bit_commitments(bits);
      if (!next) return blaming(next.error());
      accepted_bits_ = std::move(bits);
      dealer_ = std::move(next->first);
      return NextRound{frame_of(next->second)};
    }
    if (completed == Phase::PolyCommitments) {
      auto polys = collect<PolyCommitment>(inbox);
      auto next = std::move(std::get<mpc::DealerAwaitingPolyCommitments>(dealer_)).receive_poly_commitments(polys);
      if (!next) return blaming(next.error());
      accepted_polys_ = std::move(polys);
      dealer_ = std::move(next->first);
      return NextRound{frame_of(next->second)};
    }
    auto assembled =
        std::move(std::get<mpc::DealerAwaitingProofShares>(dealer_)).assemble_shares(collect<ProofShare>(inbox));
    if (!assembled) return blaming(assembled.error());
    dealer_ = std::move(*assembled);
    return Assembled{};
  }

  void check(ProofChecker* checker, std::function<void(std::optional<Abort>)> done) override {
    auto assembled = std::move(std::get<mpc::DealerCheckingProof>(dealer_));
    dealer_ = std::monostate{};
    const auto decided = [this, done = std::move(done)](mpc::MpcResult<mpc::AggregationResult> result) {
      if (!result) return done(blaming(result.error()));
      result_ = std::move(*result);
      done(std::nullopt);
    };
    if (!checker) return decided(std::move(assembled).check());
    checker->check(std::move(assembled), params_.padded_m(), decided);
  }

  Signed sign(const wire::Identity& dealer, const std::string& session_id, size_t parties) override {
    wire::ResultMsg signed_result{std::move(*result_), std::nullopt, terms_.bounds};
    result_.reset();
    signed_result.attestation =
        wire::Attestation{session_id, dealer.public_key(),
                          dealer.sign(wire::result_statement(dealer.public_key(), session_id, signed_result.result))};
    const size_t proof_bytes = signed_result.result.proof.to_bytes().size();
    Frame frame = frame_of(signed_result);
    return {std::move(frame), SessionOutcome{session_id, params_, true, {}, {}, std::move(signed_result), parties},
            proof_bytes, std::to_string(params_.bits) + "-bit ranges"};
  }

  void checkpoint(wire::DealerCheckpoint& c) const override {
    c.padding_seed = padding_seed_;
    c.bit_commitments = accepted_bits_;
    c.poly_commitments = accepted_polys_;
  }

 private:
  static Abort blaming(const mpc::MpcError& e) { return {AbortKind::InvalidShares, mpc::describe(e), e.blamed}; }

  // Every position of the seats whose bounded values' positions are not what V and the
  // bounds give.
  std::vector<size_t> bad_bounded_positions(const std::vector<BitCommitment>& bits) const {
    std::vector<size_t> blamed;
    if (terms_.bounds.empty()) return blamed;
    for (const SeatShape& shape : shapes_) {
      std::vector<CompressedRistretto> positions;
      for (size_t p = 0; p < shape.positions; ++p) positions.push_back(bits[shape.first_position + p].V_j);
      if (value_commitments_of(*env_.pc_gens, positions, terms_.bounds_of(shape))) continue;
      for (size_t p = 0; p < shape.positions; ++p) blamed.push_back(shape.first_position + p);
    }
    return blamed;
  }

  template <class Item>
  std::vector<uint8_t> of_seat(size_t seat, const std::vector<Item>& accepted) const {
    const auto first = accepted.begin() + static_cast<std::ptrdiff_t>(shapes_[seat].first_position);
    return canonical(std::vector<Item>(first, first + static_cast<std::ptrdiff_t>(shapes_[seat].positions)));
  }

  const SessionTerms& terms_;
  const SessionEnv& env_;
  const mpc::SessionParams& params_;
  const std::vector<SeatShape> shapes_;
  std::array<uint8_t, mpc::kPaddingSeedBytes> padding_seed_{};
  // monostate until replay() makes the dealer, and again once its proof went to the check.
  std::variant<std::monostate, mpc::DealerAwaitingBitCommitments, mpc::DealerAwaitingPolyCommitments,
               mpc::DealerAwaitingProofShares, mpc::DealerCheckingProof>
      dealer_;
  std::vector<BitCommitment> accepted_bits_;    // round 1's commitments, once decided
  std::vector<PolyCommitment> accepted_polys_;  // round 2's
  std::optional<mpc::AggregationResult> result_;
};

}  // namespace

std::unique_ptr<SessionKind> make_range_kind(const SessionTerms& terms, const SessionEnv& env) {
  return std::make_unique<RangeKind>(terms, env);
}

}  // namespace bp::server
