// Writes one honest frame of every message kind into a directory: the fuzzer's seed corpus
// (committed under tests/fuzz/corpus/envelope; rerun this to refresh it).
#include <sodium.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "bp/wire/codec.hpp"

int main(int argc, char** argv) {
  if (argc != 2 || sodium_init() < 0) return 2;
  const std::string dir = argv[1];
  int count = 0;
  auto write = [&](const bp::wire::Message& m, const char* name) {
    const auto bytes = bp::wire::encode(m);
    std::ofstream(dir + "/" + name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    ++count;
  };
  const bp::BulletproofGens gens(8, 2);
  const bp::PedersenGens pc;
  bp::SystemRandom rng;
  const bp::mpc::SessionParams params{8, 2, bp::mpc::session_label("seed", 8, 2, "fuzz")};
  auto p0 = bp::mpc::PartyAwaitingPosition::create(gens, pc, params, 3, bp::Scalar::random(rng));
  auto p1 = bp::mpc::PartyAwaitingPosition::create(gens, pc, params, 4, bp::Scalar::random(rng));
  auto a0 = std::move(*p0).assign_position(0);
  auto a1 = std::move(*p1).assign_position(1);
  auto dealer = bp::mpc::DealerAwaitingBitCommitments::create(gens, pc, params);
  auto d1 = std::move(*dealer).receive_bit_commitments({a0->second, a1->second});
  auto b0 = std::move(a0->first).apply_challenge(d1->second);
  auto b1 = std::move(a1->first).apply_challenge(d1->second);
  auto d2 = std::move(d1->first).receive_poly_commitments({b0->second, b1->second});
  auto c0 = std::move(b0->first).apply_challenge(d2->second);
  auto c1 = std::move(b1->first).apply_challenge(d2->second);
  auto result = std::move(d2->first).receive_shares({c0->second, c1->second});
  write(a0->second, "bit_commitment");
  write(d1->second, "bit_challenge");
  write(b0->second, "poly_commitment");
  write(d2->second, "poly_challenge");
  write(c0->second, "proof_share");
  write(bp::wire::ResultMsg{*result, std::nullopt}, "result");
  write(bp::wire::ResultMsg{*result, bp::wire::Attestation{std::string(bp::wire::kSessionIdChars, 'd'), {3}, {4}}},
        "signed_result");
  write(bp::wire::HelloMsg{{1, 2, 3}, {4, 5}, false, true}, "hello");
  write(bp::wire::AbortMsg{"MalformedProofShares: audit failed", {1}}, "abort");
  const std::string id(bp::wire::kSessionIdChars, 'c');
  write(bp::wire::CreateSessionMsg{64, 4, "fuzz", 1000, {}, std::nullopt, {}}, "create_session");
  write(bp::wire::CreateSessionMsg{64, 2, "fuzz", 0, {{1}, {2}}, bp::wire::KeySignature{{3}, {4}}, id},
        "create_session_signed");
  write(bp::wire::SessionCreatedMsg{id, params.label}, "session_created");
  write(bp::wire::JoinSessionMsg{id, std::vector<uint8_t>(bp::wire::kResumeTokenBytes, 1), std::nullopt},
        "join_session");
  write(bp::wire::JoinSessionMsg{id, {}, bp::wire::KeySignature{{5}, {6}}}, "join_session_signed");
  write(bp::wire::JoinedMsg{1, 8, 2, params.label, std::vector<uint8_t>(bp::wire::kResumeTokenBytes, 2)}, "joined");
  write(bp::wire::ManageSessionsMsg{{id}, bp::wire::KeySignature{{7}, {8}}}, "manage_sessions");
  write(bp::wire::SessionListMsg{{{id, 64, 4, 1, "join", "dealer-0"}}, {id}}, "session_list");
  std::printf("wrote %d seeds to %s\n", count, dir.c_str());
  return 0;
}
