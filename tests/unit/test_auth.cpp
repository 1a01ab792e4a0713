// Identities and the statements parties, operators and the dealer sign: key files are
// private and round-trip, every field of a statement is covered by its signature, and no
// statement verifies on another connection.
#include <doctest/doctest.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "bp/mpc/dealer.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"

using namespace bp;
using namespace bp::wire;

namespace {

std::string temp_path(const char* name) { return "/tmp/bp-test-auth-" + std::to_string(::getpid()) + "-" + name; }

ChannelContext channel(uint8_t seed) {
  ChannelContext c;
  c.nonce.fill(seed);
  c.dealer_key.fill(static_cast<uint8_t>(seed + 1));
  return c;
}

}  // namespace

TEST_CASE("a key file is written 0600, never overwritten, and loads back to the same key") {
  const auto path = temp_path("party.key");
  const auto identity = Identity::generate();
  REQUIRE_FALSE(identity.save(path).has_value());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(identity.save(path).has_value());  // refuses to overwrite

  auto loaded = Identity::load(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->public_key() == identity.public_key());
  const std::vector<uint8_t> message = {1, 2, 3};
  CHECK(verify_signature(identity.public_key(), message, loaded->sign(message)));
  CHECK(parse_public_key(path + ".pub") == identity.public_key());
  CHECK(parse_public_key(public_key_hex(identity.public_key())) == identity.public_key());
  CHECK_FALSE(parse_public_key("00").has_value());
  CHECK_FALSE(parse_public_key("/nonexistent.pub").has_value());
  // A path that happens to be 64 characters long is still a path (found by the Go tests,
  // whose temporary directory made one).
  std::string long_path = "/tmp/bp-test-";
  long_path += std::string(64 - long_path.size() - 4, 'x') + ".pub";
  REQUIRE(long_path.size() == 64);
  std::ofstream(long_path) << public_key_hex(identity.public_key()) << "\n";
  CHECK(parse_public_key(long_path) == identity.public_key());
  std::remove(long_path.c_str());

  ::chmod(path.c_str(), 0644);
  auto exposed = Identity::load(path);
  REQUIRE_FALSE(exposed.ok());
  CHECK(exposed.error().find("readable by others") != std::string::npos);

  const auto garbage = temp_path("garbage.key");
  { std::ofstream(garbage) << "not a key\n"; }
  ::chmod(garbage.c_str(), 0600);
  CHECK_FALSE(Identity::load(garbage).ok());
  CHECK_FALSE(Identity::load(temp_path("missing.key")).ok());
  for (const auto& p : {path, path + ".pub", garbage}) std::remove(p.c_str());
}

TEST_CASE("a join signature covers every field and only this connection") {
  const auto party = Identity::generate();
  const JoinSessionMsg join{std::string(32, 'a'), {}, std::nullopt};
  const auto here = channel(1);
  const auto sig = party.sign(join_statement(here, join, party.public_key()));
  CHECK(verify_signature(party.public_key(), join_statement(here, join, party.public_key()), sig));

  // Another connection (nonce), another dealer, another TLS channel: all refuse it.
  CHECK_FALSE(verify_signature(party.public_key(), join_statement(channel(2), join, party.public_key()), sig));
  auto other_dealer = here;
  other_dealer.dealer_key[0] ^= 1;
  CHECK_FALSE(verify_signature(party.public_key(), join_statement(other_dealer, join, party.public_key()), sig));
  auto other_tls = here;
  other_tls.channel_binding.assign(32, 7);
  CHECK_FALSE(verify_signature(party.public_key(), join_statement(other_tls, join, party.public_key()), sig));
  // Another session or a resume token added.
  auto other_session = join;
  other_session.session_id[0] = 'b';
  CHECK_FALSE(verify_signature(party.public_key(), join_statement(here, other_session, party.public_key()), sig));
  auto with_token = join;
  with_token.resume_token.assign(16, 1);
  CHECK_FALSE(verify_signature(party.public_key(), join_statement(here, with_token, party.public_key()), sig));
}

TEST_CASE("a create signature covers the parameters and the allow-list") {
  const auto op = Identity::generate();
  const CreateSessionMsg create{
      64, 2, "payroll", 1000, {PublicKey{1}, PublicKey{2}}, std::nullopt, std::string(32, 'c')};
  const auto here = channel(3);
  const auto sig = op.sign(create_statement(here, create, op.public_key()));
  CHECK(verify_signature(op.public_key(), create_statement(here, create, op.public_key()), sig));
  auto changed = [&](auto mutate) {
    auto c = create;
    mutate(c);
    return verify_signature(op.public_key(), create_statement(here, c, op.public_key()), sig);
  };
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.bits = 32; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.session_id[5] = 'd'; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.parties = 3; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.label = "payrolL"; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.round_timeout_ms = 1001; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { std::swap(c.allowed_parties[0], c.allowed_parties[1]); }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.allowed_parties[1][31] ^= 1; }));
  // 1.7: a quorum and its window are signed; a request without one signs as a 1.6 one did.
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.min_parties = 1; }));
  CHECK_FALSE(changed([](CreateSessionMsg& c) { c.join_window_ms = 5000; }));
  auto gadget_quorum = create;
  gadget_quorum.min_parties = 1;
  const auto gadget_sig = op.sign(create_statement(here, gadget_quorum, op.public_key()));
  gadget_quorum.gadget_successors = true;  // opting in changes what was signed
  CHECK_FALSE(verify_signature(op.public_key(), create_statement(here, gadget_quorum, op.public_key()), gadget_sig));
  auto quorum = create;
  quorum.min_parties = 1;
  const auto quorum_sig = op.sign(create_statement(here, quorum, op.public_key()));
  quorum.min_parties = 2;
  CHECK_FALSE(verify_signature(op.public_key(), create_statement(here, quorum, op.public_key()), quorum_sig));
  // Length prefixes: moving a byte from the label into the next field is a different statement.
  CHECK(create_statement(here, CreateSessionMsg{64, 1, "ab", 0, {}, {}, {}}, op.public_key()) !=
        create_statement(here, CreateSessionMsg{64, 1, "a", 0, {}, {}, {}}, op.public_key()));
}

TEST_CASE("a manage signature covers every id to cancel and only this connection") {
  const auto op = Identity::generate();
  const ManageSessionsMsg manage{{std::string(32, 'a'), std::string(32, 'b')}, std::nullopt};
  const auto here = channel(4);
  const auto sig = op.sign(manage_statement(here, manage, op.public_key()));
  CHECK(verify_signature(op.public_key(), manage_statement(here, manage, op.public_key()), sig));
  CHECK_FALSE(verify_signature(op.public_key(), manage_statement(channel(5), manage, op.public_key()), sig));
  auto changed = [&](auto mutate) {
    auto m = manage;
    mutate(m);
    return verify_signature(op.public_key(), manage_statement(here, m, op.public_key()), sig);
  };
  CHECK_FALSE(changed([](ManageSessionsMsg& m) { m.cancel.pop_back(); }));
  CHECK_FALSE(changed([](ManageSessionsMsg& m) { std::swap(m.cancel[0], m.cancel[1]); }));
  CHECK_FALSE(changed([](ManageSessionsMsg& m) { m.cancel[0][3] = 'c'; }));
  // No statement of another kind reads as this one.
  CHECK(manage_statement(here, ManageSessionsMsg{}, op.public_key()) !=
        create_statement(here, CreateSessionMsg{64, 1, "", 0, {}, {}, {}}, op.public_key()));
}

TEST_CASE("the dealer's attestation covers the result and names the session") {
  static const BulletproofGens gens(8, 1);
  static const PedersenGens pc;
  const auto dealer = Identity::generate();
  mpc::AggregationResult result;
  result.bits = 8;
  result.label = "bp-agg/v1 session=x";
  result.commitments = {pc.commit(Scalar::from_u64(5), Scalar::from_u64(6)).compress()};
  const auto statement_key = dealer.public_key();
  ResultMsg message{result, Attestation{std::string(32, 'e'), statement_key, {}}};
  message.attestation->signature =
      dealer.sign(result_statement(statement_key, message.attestation->session_id, result));
  CHECK(attestation_valid(message));

  auto tampered = message;
  tampered.attestation->session_id[0] = 'f';
  CHECK_FALSE(attestation_valid(tampered));
  tampered = message;
  tampered.result.label += " ";
  CHECK_FALSE(attestation_valid(tampered));
  tampered = message;
  tampered.result.commitments[0].bytes[0] ^= 1;
  CHECK_FALSE(attestation_valid(tampered));
  tampered = message;
  tampered.attestation->dealer_key = Identity::generate().public_key();
  CHECK_FALSE(attestation_valid(tampered));
  CHECK_FALSE(attestation_valid(ResultMsg{result, std::nullopt}));
}
