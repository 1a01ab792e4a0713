#include "in_process.hpp"

#include <chrono>

#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "bp/wire/codec.hpp"

namespace bp::cli {
namespace {

// One hop: encode, count the bytes, decode as the receiver would, insist on the type.
template <class T>
std::optional<T> hop(const wire::Message& m, size_t& bytes, std::string& error) {
  const auto frame = wire::encode(m);
  bytes += frame.size();
  auto decoded = wire::decode(frame);
  if (!decoded) {
    error = wire::describe(decoded.error());
    return std::nullopt;
  }
  if (!std::holds_alternative<T>(*decoded)) {
    error = "unexpected message type";
    return std::nullopt;
  }
  return std::get<T>(std::move(*decoded));
}

}  // namespace

InProcessRun aggregate_in_process(const BulletproofGens& bp_gens, const PedersenGens& pc_gens,
                                  const mpc::SessionParams& params, const std::vector<uint64_t>& values,
                                  const std::vector<Scalar>& blindings, DealerMeter* dealer_meter) {
  InProcessRun run;
  // Runs one of the dealer's steps, timed (and tallied) when a meter is given.
  const auto dealer_step = [dealer_meter](auto step) {
    if (dealer_meter == nullptr) return step();
    detail::OpTally* before = detail::install_op_tally(dealer_meter->tally);
    const auto t0 = std::chrono::steady_clock::now();
    auto out = step();
    dealer_meter->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    detail::install_op_tally(before);
    return out;
  };
  const size_t m = params.positions;
  auto fail = [&](std::string why) {
    run.error = std::move(why);
    return run;
  };
  size_t up = 0, down = 0;  // totals over all parties; divided at the end

  auto dealer = dealer_step([&] { return mpc::DealerAwaitingBitCommitments::create(bp_gens, pc_gens, params); });
  if (!dealer) return fail(mpc::describe_with_blame(dealer.error()));
  std::vector<mpc::PartyAwaitingBitChallenge> round1;
  std::vector<BitCommitment> bits;
  for (size_t j = 0; j < m; ++j) {
    auto party = mpc::PartyAwaitingPosition::create(bp_gens, pc_gens, params, values[j], blindings[j]);
    if (!party) return fail(mpc::describe_with_blame(party.error()));
    auto next = std::move(*party).assign_position(j);
    if (!next) return fail(mpc::describe_with_blame(next.error()));
    auto received = hop<BitCommitment>(next->second, up, run.error);
    if (!received) return run;
    bits.push_back(*received);
    round1.push_back(std::move(next->first));
  }
  auto d1 = dealer_step([&] { return std::move(*dealer).receive_bit_commitments(std::move(bits)); });
  if (!d1) return fail(mpc::describe_with_blame(d1.error()));

  std::vector<mpc::PartyAwaitingPolyChallenge> round2;
  std::vector<PolyCommitment> polys;
  for (auto& party : round1) {
    auto challenge = hop<mpc::BitChallengeMsg>(d1->second, down, run.error);
    if (!challenge) return run;
    auto next = std::move(party).apply_challenge(*challenge);
    if (!next) return fail(mpc::describe_with_blame(next.error()));
    auto received = hop<PolyCommitment>(next->second, up, run.error);
    if (!received) return run;
    polys.push_back(*received);
    round2.push_back(std::move(next->first));
  }
  auto d2 = dealer_step([&] { return std::move(d1->first).receive_poly_commitments(std::move(polys)); });
  if (!d2) return fail(mpc::describe_with_blame(d2.error()));

  std::vector<mpc::PartyAwaitingResult> round3;
  std::vector<ProofShare> shares;
  for (auto& party : round2) {
    auto challenge = hop<mpc::PolyChallengeMsg>(d2->second, down, run.error);
    if (!challenge) return run;
    auto next = std::move(party).apply_challenge(*challenge);
    if (!next) return fail(mpc::describe_with_blame(next.error()));
    auto received = hop<ProofShare>(next->second, up, run.error);
    if (!received) return run;
    shares.push_back(std::move(*received));
    round3.push_back(std::move(next->first));
  }
  auto result = dealer_step([&] { return std::move(d2->first).receive_shares(std::move(shares)); });
  if (!result) return fail(mpc::describe_with_blame(result.error()));

  const wire::Message result_message = wire::ResultMsg{*result, std::nullopt};
  for (auto& party : round3) {
    auto received = hop<wire::ResultMsg>(result_message, down, run.error);
    if (!received) return run;
    auto checked = party.check_result(received->result);
    if (!checked) return fail(mpc::describe_with_blame(checked.error()));
  }
  run.ok = true;
  run.result = std::move(*result);
  run.bytes_up_per_party = up / m;
  run.bytes_down_per_party = down / m;
  return run;
}

}  // namespace bp::cli
