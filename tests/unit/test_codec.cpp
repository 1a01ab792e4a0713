// The wire codec: every message round-trips, and every malformed field is refused with a
// typed error (never an exception, never a crash).
#include <doctest/doctest.h>
#include <sodium.h>

#include "aggregation.pb.h"
#include "bp/mpc/dealer.hpp"
#include "bp/mpc/party.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_aggregation.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/checkpoint.hpp"
#include "bp/wire/codec.hpp"

using namespace bp;
using namespace bp::wire;

namespace {

const BulletproofGens& gens() {
  static const BulletproofGens g(16, 4);
  return g;
}

// One honest 3-party, 16-bit session, keeping one message of every kind.
struct Sample {
  BitCommitment bit;
  mpc::BitChallengeMsg bit_challenge;
  PolyCommitment poly;
  mpc::PolyChallengeMsg poly_challenge;
  ProofShare share;
  mpc::AggregationResult result;
};

const Sample& sample() {
  static const Sample s = [] {
    static const PedersenGens pc;
    SystemRandom rng;
    const mpc::SessionParams params{16, 3, mpc::session_label("codec", 16, 3, "wire")};
    std::vector<mpc::PartyAwaitingBitChallenge> r1;
    std::vector<BitCommitment> bits;
    for (size_t j = 0; j < 3; ++j) {
      auto p = mpc::PartyAwaitingPosition::create(gens(), pc, params, 1000 + j, Scalar::random(rng));
      auto a = std::move(*p).assign_position(j);
      bits.push_back(a->second);
      r1.push_back(std::move(a->first));
    }
    auto dealer = mpc::DealerAwaitingBitCommitments::create(gens(), pc, params);
    auto d1 = std::move(*dealer).receive_bit_commitments(bits);
    std::vector<mpc::PartyAwaitingPolyChallenge> r2;
    std::vector<PolyCommitment> polys;
    for (auto& p : r1) {
      auto a = std::move(p).apply_challenge(d1->second);
      polys.push_back(a->second);
      r2.push_back(std::move(a->first));
    }
    auto d2 = std::move(d1->first).receive_poly_commitments(polys);
    std::vector<ProofShare> shares;
    for (auto& p : r2) shares.push_back(std::move(p).apply_challenge(d2->second)->second);
    auto result = std::move(d2->first).receive_shares(shares);
    return Sample{bits[0], d1->second, polys[0], d2->second, shares[0], *result};
  }();
  return s;
}

template <class T>
T round_trip(const T& message) {
  const auto bytes = encode(Message{message});
  auto decoded = decode(bytes);
  REQUIRE(decoded.ok());
  REQUIRE(std::holds_alternative<T>(*decoded));
  return std::get<T>(*decoded);
}

CodecErrorKind decode_error(const bp::wire::v1::Envelope& env, const Limits& limits = {}) {
  std::string bytes;
  env.SerializeToString(&bytes);
  auto r = decode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), limits);
  REQUIRE_FALSE(r.ok());
  return r.error().kind;
}

bp::wire::v1::Envelope envelope_of(const Message& m) {
  const auto bytes = encode(m);
  bp::wire::v1::Envelope env;
  REQUIRE(env.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  return env;
}

}  // namespace

TEST_CASE("every message round-trips") {
  const Sample& s = sample();
  CHECK(round_trip(s.bit) == s.bit);
  CHECK(round_trip(s.poly) == s.poly);
  CHECK(round_trip(s.share) == s.share);
  const auto bc = round_trip(s.bit_challenge);
  CHECK((bc.y == s.bit_challenge.y && bc.z == s.bit_challenge.z &&
         bc.bit_commitments == s.bit_challenge.bit_commitments));
  const auto pcm = round_trip(s.poly_challenge);
  CHECK((pcm.x == s.poly_challenge.x && pcm.poly_commitments == s.poly_challenge.poly_commitments));
  const auto signed_result = round_trip(ResultMsg{s.result, std::nullopt});
  CHECK_FALSE(signed_result.attestation.has_value());
  const auto r = signed_result.result;
  CHECK(r.bits == s.result.bits);
  CHECK(r.label == s.result.label);
  CHECK(r.commitments == s.result.commitments);
  CHECK(r.padding_positions == std::vector<size_t>{3});
  CHECK(r.proof.to_bytes() == s.result.proof.to_bytes());
  const AbortMsg abort{"MalformedProofShares: audit failed", {0, 2}};
  CHECK(round_trip(abort) == abort);
  AbortMsg succeeded = abort;  // 1.7: the session of the parties not blamed goes on
  succeeded.successor = std::string(32, 'f');
  CHECK(round_trip(succeeded) == succeeded);
  succeeded.successor = "not an id";
  CHECK(decode(encode(Message{succeeded})).error().kind == CodecErrorKind::BadLength);
  succeeded.successor = std::string(32, 'f');
  succeeded.blamed.clear();  // nobody excluded: no successor
  CHECK(decode(encode(Message{succeeded})).error().kind == CodecErrorKind::BadLength);
  const CreateSessionMsg create{32, 5, "payroll", 2500, {}, std::nullopt, {}};
  CHECK(round_trip(create) == create);
  CreateSessionMsg listed{16,
                          2,
                          "payroll",
                          0,
                          {PublicKey{1}, PublicKey{2}},
                          KeySignature{PublicKey{3}, Signature{4}},
                          std::string(32, 'e')};
  CHECK(round_trip(listed) == listed);
  listed.min_parties = 1;  // 1.7: a quorum and its window
  listed.join_window_ms = 4000;
  CHECK(round_trip(listed) == listed);
  listed.min_parties = 3;  // more than the parties
  CHECK(decode(encode(Message{listed})).error().kind == CodecErrorKind::BadLength);
  listed.min_parties = 1;
  listed.gadget_successors = true;  // for a gadget session only
  CHECK(decode(encode(Message{listed})).error().kind == CodecErrorKind::BadLength);
  listed.bits = 0;
  listed.gadgets = "range:8;range:8";
  CHECK(round_trip(listed) == listed);
  listed.min_parties = 0;  // and one with a quorum
  CHECK(decode(encode(Message{listed})).error().kind == CodecErrorKind::BadLength);
  const HelloMsg hello{{5, 6}, PublicKey{7}, true, true};
  CHECK(round_trip(hello) == hello);
  const std::string id(32, 'a');
  const SessionCreatedMsg created{id, "bp-agg/v1 session=aaaa"};
  CHECK(round_trip(created) == created);
  const JoinSessionMsg join{id, std::vector<uint8_t>(16, 7), std::nullopt};
  CHECK(round_trip(join) == join);
  const JoinSessionMsg signed_join{id, {}, KeySignature{PublicKey{8}, Signature{9}}};
  CHECK(round_trip(signed_join) == signed_join);
  const Attestation attestation{id, PublicKey{10}, Signature{11}};
  CHECK(round_trip(ResultMsg{s.result, attestation}).attestation == attestation);
  const JoinedMsg joined{3, 32, 5, "label", std::vector<uint8_t>(16, 9)};
  CHECK(round_trip(joined) == joined);
  JoinedMsg counted = joined;  // 1.7: the session's parties, at most its positions
  counted.session_parties = 4;
  CHECK(round_trip(counted) == counted);
  counted.session_parties = 6;
  CHECK(decode(encode(Message{counted})).error().kind == CodecErrorKind::BadLength);
  const ManageSessionsMsg manage{{id, std::string(32, 'b')}, KeySignature{PublicKey{12}, Signature{13}}};
  CHECK(round_trip(manage) == manage);
  CHECK(round_trip(ManageSessionsMsg{}) == ManageSessionsMsg{});
  const SessionListMsg list{{{id, 64, 4, 2, "join", "dealer-0"}, {std::string(32, 'c'), 8, 1, 1, "proof_shares", ""}},
                            {std::string(32, 'd')}};
  CHECK(round_trip(list) == list);
}

TEST_CASE("session management messages are validated") {
  CHECK(decode(encode(Message{ManageSessionsMsg{{"not-an-id"}, std::nullopt}})).error().kind ==
        CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{ManageSessionsMsg{std::vector<std::string>(65, std::string(32, 'a')), std::nullopt}}))
            .error()
            .kind == CodecErrorKind::TooMany);
  auto manage = envelope_of(ManageSessionsMsg{{}, KeySignature{}});
  manage.mutable_manage_sessions()->clear_signature();
  CHECK(decode_error(manage) == CodecErrorKind::BadLength);  // a key without its signature
  CHECK(decode(encode(Message{SessionListMsg{{{"short", 64, 1, 0, "join", ""}}, {}}})).error().kind ==
        CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{SessionListMsg{{{std::string(32, 'a'), 64, 1, 0, std::string(33, 'p'), ""}}, {}}}))
            .error()
            .kind == CodecErrorKind::TooMany);
  CHECK(decode(encode(Message{SessionListMsg{{}, {"zz"}}})).error().kind == CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{SessionListMsg{{{std::string(32, 'a'), 64, 1, 0, "join", std::string(129, 'r')}}, {}}}))
            .error()
            .kind == CodecErrorKind::TooMany);  // 1.2: a replica name is at most 128 bytes
}

TEST_CASE("session set-up messages are validated") {
  CHECK(decode(encode(Message{CreateSessionMsg{12, 2, "x", 0, {}, {}, {}}})).error().kind == CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{CreateSessionMsg{64, 257, "x", 0, {}, {}, {}}})).error().kind == CodecErrorKind::TooMany);
  CHECK(decode(encode(Message{CreateSessionMsg{64, 0, "x", 0, {}, {}, {}}})).error().kind == CodecErrorKind::TooMany);
  // An allow-list names every party or none.
  CHECK(decode(encode(Message{CreateSessionMsg{64, 3, "x", 0, {PublicKey{1}}, {}, {}}})).error().kind ==
        CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{JoinSessionMsg{"not-hex", {}, {}}})).error().kind == CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{JoinSessionMsg{std::string(32, 'b'), {1, 2, 3}, {}}})).error().kind ==
        CodecErrorKind::BadLength);
  // Keys, signatures and nonces of the wrong length, or a key without its signature.
  auto join = envelope_of(JoinSessionMsg{std::string(32, 'b'), {}, KeySignature{}});
  join.mutable_join_session()->set_party_key(std::string(31, 'k'));
  CHECK(decode_error(join) == CodecErrorKind::BadLength);
  join.mutable_join_session()->set_party_key(std::string(32, 'k'));
  join.mutable_join_session()->clear_signature();
  CHECK(decode_error(join) == CodecErrorKind::BadLength);
  auto create = envelope_of(CreateSessionMsg{64, 1, "x", 0, {PublicKey{}}, {}, {}});
  create.mutable_create_session()->set_allowed_parties(0, std::string(33, 'k'));
  CHECK(decode_error(create) == CodecErrorKind::BadLength);
  auto proposed = envelope_of(CreateSessionMsg{64, 1, "x", 0, {}, {}, "not-a-session-id"});
  CHECK(decode_error(proposed) == CodecErrorKind::BadLength);
  auto hello = envelope_of(HelloMsg{});
  hello.mutable_hello()->set_nonce(std::string(16, 'n'));
  CHECK(decode_error(hello) == CodecErrorKind::BadLength);
  auto attested = envelope_of(ResultMsg{sample().result, Attestation{std::string(32, 'c'), {}, {}}});
  attested.mutable_result()->set_dealer_signature(std::string(63, 's'));
  CHECK(decode_error(attested) == CodecErrorKind::BadLength);
  attested.mutable_result()->set_dealer_signature(std::string(64, 's'));
  attested.mutable_result()->set_session_id("short");
  CHECK(decode_error(attested) == CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{JoinedMsg{5, 64, 5, "x", std::vector<uint8_t>(16)}})).error().kind ==
        CodecErrorKind::BadLength);
}

TEST_CASE("garbage, empty, oversized and wrong-version frames are refused") {
  const std::vector<uint8_t> garbage = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
  CHECK(decode(garbage).error().kind == CodecErrorKind::Unparseable);
  CHECK(decode({}).error().kind == CodecErrorKind::UnsupportedVersion);  // version 0
  std::vector<uint8_t> big(70 * 1024, 0);
  CHECK(decode(big).error().kind == CodecErrorKind::FrameTooLarge);
  auto env = envelope_of(Message{sample().bit});
  env.set_version(2);
  CHECK(decode_error(env) == CodecErrorKind::UnsupportedVersion);
  bp::wire::v1::Envelope empty;
  empty.set_version(kWireVersion);
  CHECK(decode_error(empty) == CodecErrorKind::MissingBody);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> random(randombytes_uniform(300));
    if (!random.empty()) randombytes_buf(random.data(), random.size());
    (void)decode(random);  // any answer but a crash
  }
}

TEST_CASE("points and scalars of the wrong length or non-canonical are refused") {
  auto env = envelope_of(Message{sample().bit});
  env.mutable_bit_commitment()->set_a(std::string(31, '\x01'));
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  env = envelope_of(Message{sample().bit});
  std::string s = env.bit_commitment().s();
  s[31] = static_cast<char>(s[31] | 0x80);  // top bit: not canonical
  env.mutable_bit_commitment()->set_s(s);
  CHECK(decode_error(env) == CodecErrorKind::NonCanonical);

  env = envelope_of(Message{sample().share});
  env.mutable_proof_share()->set_t_x(std::string(32, '\xff'));  // >= l
  CHECK(decode_error(env) == CodecErrorKind::NonCanonical);
  env = envelope_of(Message{sample().share});
  env.mutable_proof_share()->set_l(env.proof_share().l() + "x");
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  env = envelope_of(Message{sample().share});
  env.mutable_proof_share()->set_r(std::string(65 * 32, '\0'));
  CHECK(decode_error(env) == CodecErrorKind::TooMany);
}

TEST_CASE("oversized vectors and inconsistent results are refused") {
  auto env = envelope_of(Message{sample().bit_challenge});
  while (env.bit_challenge().commitments_size() <= 256)
    *env.mutable_bit_challenge()->add_commitments() = env.bit_challenge().commitments(0);
  CHECK(decode_error(env) == CodecErrorKind::TooMany);

  env = envelope_of(Message{ResultMsg{sample().result, std::nullopt}});
  env.mutable_result()->set_bits(12);
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  env = envelope_of(Message{ResultMsg{sample().result, std::nullopt}});
  env.mutable_result()->mutable_proof()->pop_back();
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  env = envelope_of(Message{ResultMsg{sample().result, std::nullopt}});
  env.mutable_result()->add_commitments(env.result().commitments(0));  // 5: not a power of two
  CHECK(decode_error(env) == CodecErrorKind::TooMany);
  env = envelope_of(Message{ResultMsg{sample().result, std::nullopt}});
  env.mutable_result()->set_padding_positions(0, 9);
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
}

TEST_CASE("1.3: a seat token in a join, the dealer's minor version in Hello") {
  const JoinSessionMsg join{std::string(32, 'a'), {}, std::nullopt, std::vector<uint8_t>(16, 4)};
  CHECK(round_trip(join) == join);
  CHECK(decode(encode(Message{JoinSessionMsg{std::string(32, 'a'), {}, std::nullopt, {1, 2}}})).error().kind ==
        CodecErrorKind::BadLength);
  const HelloMsg hello{{5}, PublicKey{7}, false, false, kWireMinorVersion};
  CHECK(round_trip(hello).minor_version == kWireMinorVersion);
  // The join statement signs a seat token when there is one, and is a 1.2 statement without.
  const ChannelContext channel{{1}, PublicKey{2}, {}, 3};
  JoinSessionMsg without{std::string(32, 'a'), {}, std::nullopt};
  CHECK(join_statement(channel, without, PublicKey{9}) != join_statement(channel, join, PublicKey{9}));
}

TEST_CASE("1.3: an abort that asks the party to join again, and its limits") {
  const AbortMsg again{"the session moves on: this dealer replica is shutting down; join again", {}, 250};
  CHECK(round_trip(again) == again);
  CHECK(decode(encode(Message{AbortMsg{"x", {}, kMaxReconnectAfterMs + 1}})).error().kind == CodecErrorKind::BadLength);
  CHECK(decode(encode(Message{AbortMsg{"x", {1}, 250}})).error().kind ==
        CodecErrorKind::BadLength);  // it blames nobody
  // A 1.2 abort (no field 3) reads as an end, as it always did.
  auto env = envelope_of(Message{AbortMsg{"round deadline passed", {2}}});
  CHECK(env.abort().reconnect_after_ms() == 0);
}

TEST_CASE("1.6: a refusal says its kind, and a kind from a newer dealer reads as none") {
  for (auto kind : {RefusalKind::NotAllowed, RefusalKind::NoSuchSession, RefusalKind::OverLimit}) {
    const AbortMsg refused{"no", {}, 0, kind};
    CHECK(round_trip(refused) == refused);
  }
  auto env = envelope_of(Message{AbortMsg{"no", {}, 0, RefusalKind::NotAllowed}});
  CHECK(env.abort().refusal() == 1);
  env.mutable_abort()->set_refusal(static_cast<bp::wire::v1::Refusal>(99));
  std::string bytes;
  REQUIRE(env.SerializeToString(&bytes));
  const auto decoded = decode(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  REQUIRE(decoded.ok());
  CHECK(std::get<AbortMsg>(*decoded).refusal == RefusalKind::None);
  CHECK(std::get<AbortMsg>(*decoded).reason == "no");
}

TEST_CASE("a dealer checkpoint round-trips, and every field read back from a record is checked") {
  const Sample& s = sample();
  DealerCheckpoint c;
  c.bits = 16;
  c.positions = 3;
  c.transcript_label = mpc::session_label(std::string(32, 'a'), 16, 3, "wire");
  c.round_timeout_ms = 30000;
  c.allowed_parties = {PublicKey{1}, PublicKey{2}, PublicKey{3}};
  c.owner_key = PublicKey{4};
  c.owner_address = "10.0.0.7";
  c.padding_seed[0] = 9;
  c.seats = {{true, hash_resume_token(std::vector<uint8_t>(16, 1)), "10.0.0.8:5000"}, {true, {}, ""}, {true, {}, ""}};
  c.bit_commitments = s.bit_challenge.bit_commitments;
  c.bit_commitments.resize(3);
  auto back = decode_checkpoint(encode_checkpoint(c));
  REQUIRE(back.ok());
  CHECK(*back == c);
  c.poly_commitments = {s.poly, s.poly, s.poly};
  CHECK(*decode_checkpoint(encode_checkpoint(c)) == c);

  auto refused = [&](auto change) {
    DealerCheckpoint bad = c;
    change(bad);
    return !decode_checkpoint(encode_checkpoint(bad)).ok();
  };
  CHECK(refused([](DealerCheckpoint& b) { b.bits = 7; }));
  CHECK(refused([](DealerCheckpoint& b) { b.positions = 65; }));
  CHECK(refused([](DealerCheckpoint& b) { b.seats.pop_back(); }));
  CHECK(refused([](DealerCheckpoint& b) { b.allowed_parties.pop_back(); }));
  CHECK(refused([](DealerCheckpoint& b) { b.bit_commitments.pop_back(); }));  // a round is every party's or none
  CHECK(refused([](DealerCheckpoint& b) { b.bit_commitments.clear(); }));     // round 2 without round 1
  CHECK(refused([](DealerCheckpoint& b) { b.seats[1].taken = false; }));      // round 1 with a free seat
  CHECK(refused([](DealerCheckpoint& b) { b.bit_commitments[0].A_j.bytes[31] = 0xff; }));  // not a point
  // 1.7: a fixed quorum set: three seated of five listed, two left out with their keys.
  DealerCheckpoint fixed = c;
  fixed.min_parties = 2;
  fixed.join_window_ms = 1000;
  fixed.listed_parties = 5;
  fixed.not_joined = {1, 4};
  fixed.not_joined_keys = {PublicKey{5}, PublicKey{6}};
  CHECK(*decode_checkpoint(encode_checkpoint(fixed)) == fixed);
  auto quorum_refused = [&](auto change) {
    DealerCheckpoint bad = fixed;
    change(bad);
    return !decode_checkpoint(encode_checkpoint(bad)).ok();
  };
  CHECK(quorum_refused([](DealerCheckpoint& b) { b.listed_parties = 6; }));   // seated and left out: five
  CHECK(quorum_refused([](DealerCheckpoint& b) { b.not_joined = {1, 5}; }));  // beyond those listed
  CHECK(quorum_refused([](DealerCheckpoint& b) { b.not_joined_keys.pop_back(); }));
  CHECK(quorum_refused([](DealerCheckpoint& b) { b.min_parties = 0; }));  // fixed without a quorum
  CHECK(quorum_refused([](DealerCheckpoint& b) { b.min_parties = 6; }));
  // Before the set is fixed nothing is decided: no round, nobody left out.
  DealerCheckpoint gathering = c;
  gathering.min_parties = 2;
  CHECK_FALSE(decode_checkpoint(encode_checkpoint(gathering)).ok());  // it holds round 1
  gathering.bit_commitments.clear();
  gathering.poly_commitments.clear();
  CHECK(decode_checkpoint(encode_checkpoint(gathering)).ok());
  gathering.not_joined = {0};
  CHECK_FALSE(decode_checkpoint(encode_checkpoint(gathering)).ok());
  CHECK_FALSE(decode_checkpoint(std::vector<uint8_t>{0xff, 0x01}).ok());
  CHECK(hash_resume_token(std::vector<uint8_t>(16, 1)) != hash_resume_token(std::vector<uint8_t>(16, 2)));
}

TEST_CASE("1.4: several positions per party, values per party and bounds") {
  const auto s = sample();
  const BitCommitments bits{{s.bit, s.bit}};
  CHECK(round_trip(bits) == bits);
  const PolyCommitments polys{{s.poly}};
  CHECK(round_trip(polys) == polys);
  const ProofShares shares{{s.share, s.share}};
  CHECK(round_trip(shares) == shares);
  CHECK(decode_error(envelope_of(Message{BitCommitments{}})) == CodecErrorKind::TooMany);  // no items

  const JoinedMsg joined{2, 16, 6, "l", std::vector<uint8_t>(16, 1), 3, {{5, 9}, {7, std::nullopt}}};
  CHECK(round_trip(joined) == joined);
  auto env = envelope_of(Message{joined});
  env.mutable_joined()->set_positions(2);  // the bounds take three
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  env = envelope_of(Message{joined});
  env.mutable_joined()->set_positions(5);  // past the session's positions
  CHECK(decode_error(env) == CodecErrorKind::BadLength);
  // A one-position seat's frame is the one a 1.3 dealer sends, and a 1.3 Joined means one.
  const JoinedMsg one{1, 64, 2, "l", std::vector<uint8_t>(16, 1)};
  CHECK(envelope_of(Message{one}).joined().positions() == 0);
  CHECK(round_trip(one).positions == 1);

  const CreateSessionMsg create{64, 2, "x", 0, {}, std::nullopt, {}, {2, 1}, {{0, 10}, {0, 10}, {3, std::nullopt}}};
  CHECK(round_trip(create) == create);
  CHECK(decode(encode(Message{CreateSessionMsg{64, 2, "x", 0, {}, std::nullopt, {}, {2}, {}}})).error().kind ==
        CodecErrorKind::BadLength);  // a count for each party
  CHECK(decode(encode(Message{CreateSessionMsg{64, 1, "x", 0, {}, std::nullopt, {}, {}, {{0, 1}, {0, 1}}}}))
            .error()
            .kind == CodecErrorKind::TooMany);  // more bounds than values
  CHECK(decode(encode(Message{CreateSessionMsg{64, 1, "x", 0, {}, std::nullopt, {}, {}, {{9, 1}}}})).error().kind ==
        CodecErrorKind::BadLength);  // min above max
  CHECK(decode(encode(Message{CreateSessionMsg{64, 2, "x", 0, {}, std::nullopt, {}, {200, 57}, {}}})).error().kind ==
        CodecErrorKind::TooMany);  // 257 positions
  // The operator's signature covers the values and bounds: changing them changes the statement.
  ChannelContext here;
  const auto op = Identity::generate();
  auto other = create;
  other.bounds[2].min = 4;
  CHECK(create_statement(here, create, op.public_key()) != create_statement(here, other, op.public_key()));
  other = create;
  other.values_per_party = {1, 2};
  CHECK(create_statement(here, create, op.public_key()) != create_statement(here, other, op.public_key()));
  // A one-value session's statement is the one a 1.3 dealer checks.
  CHECK(create_statement(here, CreateSessionMsg{64, 1, "x", 0, {}, {}, {}}, op.public_key()).size() <
        create_statement(here, CreateSessionMsg{64, 1, "x", 0, {}, {}, {}, {1}, {}}, op.public_key()).size());

  ResultMsg bounded{s.result, std::nullopt, {{0, 5}, {0, 5}}};  // the sample's 4 positions
  CHECK(round_trip(bounded).bounds == bounded.bounds);
  bounded.bounds = {{0, 5}, {0, 5}, {0, 5}};  // 6 positions (8 padded), not the result's 4
  CHECK(decode_error(envelope_of(Message{bounded})) == CodecErrorKind::BadLength);
}

namespace {

// One real run of a two-seat gadget session, for its messages.
struct GadgetSample {
  std::vector<R1CSFirstPhaseShare> first;
  std::vector<R1CSSecondPhaseShare> second;
  std::vector<R1CSPolyShare> polys;
  std::vector<R1CSProofShare> shares;
  R1CSAggregate aggregate;
};
const GadgetSample& gadget_sample() {
  static const GadgetSample s = [] {
    const auto list = *GadgetList::parse("shuffle:2;range:8");
    const std::string label = "codec";
    std::vector<R1CSPartySlice> parties;
    parties.push_back(std::move(*R1CSPartySlice::create(
        list, 0, label, std::vector<uint64_t>{1, 2, 2, 1},
        std::vector<Scalar>{Scalar::from_u64(1), Scalar::from_u64(2), Scalar::from_u64(3), Scalar::from_u64(4)})));
    parties.push_back(std::move(
        *R1CSPartySlice::create(list, 1, label, std::vector<uint64_t>{200}, std::vector<Scalar>{Scalar::from_u64(5)})));
    GadgetSample out;
    for (auto& p : parties) out.first.push_back(p.first_phase());
    for (auto& p : parties) out.second.push_back(*p.second_phase(out.first));
    for (auto& p : parties) out.polys.push_back(*p.poly(out.second));
    for (auto& p : parties) out.shares.push_back(*p.share(out.polys));
    out.aggregate = *aggregate_r1cs(list, label, out.first, out.second, out.polys, out.shares);
    return out;
  }();
  return s;
}

}  // namespace

TEST_CASE("1.5: a gadget session's messages round-trip, and their sizes are checked") {
  const auto& g = gadget_sample();
  CHECK(round_trip(g.first[0]) == g.first[0]);
  CHECK(round_trip(g.second[1]) == g.second[1]);
  CHECK(round_trip(g.polys[0]) == g.polys[0]);
  const auto share = round_trip(g.shares[0]);
  CHECK(encode(Message{share}) == encode(Message{g.shares[0]}));
  CHECK(round_trip(R1CSFirstPhases{g.first}).items == g.first);
  CHECK(round_trip(R1CSSecondPhases{g.second}).items == g.second);
  CHECK(round_trip(R1CSPolyShares{g.polys}).items == g.polys);
  R1CSResultMsg result{"shuffle:2;range:8", "codec", g.aggregate.commitments, g.aggregate.proof,
                       Attestation{std::string(32, 'a'), PublicKey{3}, Signature{4}}};
  const auto back = round_trip(result);
  CHECK(back.gadgets == result.gadgets);
  CHECK(back.commitments == result.commitments);
  CHECK(back.proof.to_bytes() == result.proof.to_bytes());
  CHECK(back.attestation == result.attestation);

  // A first phase of no commitment, or more than a session holds; l and r of other lengths.
  auto empty = envelope_of(Message{g.first[0]});
  empty.mutable_r1cs_first_phase()->clear_v();
  CHECK(decode_error(empty) == CodecErrorKind::TooMany);
  Limits few;
  few.max_r1cs_commitments = 3;
  CHECK(decode_error(envelope_of(Message{g.first[0]}), few) == CodecErrorKind::TooMany);  // four V
  CHECK(decode_error(envelope_of(Message{R1CSFirstPhases{g.first}}), few) == CodecErrorKind::TooMany);
  auto uneven = envelope_of(Message{g.shares[0]});
  uneven.mutable_r1cs_proof_share()->mutable_r()->resize(32);
  CHECK(decode_error(uneven) == CodecErrorKind::BadLength);
  Limits narrow;
  narrow.max_r1cs_multipliers = 1;
  CHECK(decode_error(envelope_of(Message{g.shares[0]}), narrow) == CodecErrorKind::TooMany);
  CHECK(decode_error(envelope_of(Message{R1CSSecondPhases{}})) == CodecErrorKind::TooMany);  // no seat
  auto bad_proof = envelope_of(Message{result});
  bad_proof.mutable_r1cs_result()->mutable_proof()->resize(31);
  CHECK(decode_error(bad_proof) == CodecErrorKind::NonCanonical);

  // The set-up messages: a gadget session states no bits, values or bounds.
  CreateSessionMsg create{0, 2, "l", 0, {}, std::nullopt, "", {}, {}, "shuffle:2;range:8"};
  CHECK(round_trip(create) == create);
  create.bits = 64;
  CHECK(decode_error(envelope_of(Message{create})) == CodecErrorKind::BadLength);
  create.bits = 0;
  create.gadgets.assign(kMaxGadgetsBytes + 1, 'x');
  CHECK(decode_error(envelope_of(Message{create})) == CodecErrorKind::TooMany);
  JoinSessionMsg join{std::string(32, 'a'), {}, std::nullopt, {}, 4, "shuffle:2"};
  CHECK(round_trip(join) == join);
  JoinedMsg joined{1, 0, 2, "l", std::vector<uint8_t>(16, 1), 1, {}, "shuffle:2;range:8"};
  CHECK(round_trip(joined) == joined);
  joined.bits = 8;
  CHECK(decode_error(envelope_of(Message{joined})) == CodecErrorKind::BadLength);
}

TEST_CASE("1.5: a gadget session's checkpoint round-trips, its rounds in order and one per seat") {
  const auto& g = gadget_sample();
  DealerCheckpoint c;
  c.bits = 0;
  c.positions = 2;
  c.gadgets = "shuffle:2;range:8";
  c.transcript_label = mpc::gadget_session_label(std::string(32, 'a'), c.gadgets, "wire");
  c.seats = {{true, hash_resume_token(std::vector<uint8_t>(16, 1)), "p"}, {true, {}, ""}};
  c.r1cs_first_phases = g.first;
  CHECK(*decode_checkpoint(encode_checkpoint(c)) == c);
  c.r1cs_second_phases = g.second;
  c.r1cs_poly_commitments = g.polys;
  CHECK(*decode_checkpoint(encode_checkpoint(c)) == c);
  const auto refused = [&](auto change) {
    DealerCheckpoint bad = c;
    change(bad);
    CHECK_FALSE(decode_checkpoint(encode_checkpoint(bad)).ok());
  };
  refused([](DealerCheckpoint& b) { b.r1cs_second_phases.pop_back(); });  // not one per seat
  refused([](DealerCheckpoint& b) { b.r1cs_first_phases.clear(); });      // round 2 before round 1
  refused([](DealerCheckpoint& b) { b.bits = 64; });                      // a range session's field
  refused([&](DealerCheckpoint& b) { b.bit_commitments = sample().bit_challenge.bit_commitments; });
  refused([](DealerCheckpoint& b) { b.seats[1].taken = false; });  // round 1 with a free seat
}
