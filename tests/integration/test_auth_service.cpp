// Who may join, against the real daemon: operators' keys create sessions, parties' keys
// take their listed seats, signatures are bound to one connection, results carry the
// dealer's signature; and the adversarial cases (unknown key, replayed join, seat theft,
// a join from another session, a lying dealer) each end in their documented error while a
// normal session still completes.
#include <doctest/doctest.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <algorithm>
#include <csignal>
#include <future>
#include <cstdio>
#include <thread>

#include "bp/hex.hpp"
#include "bp/mpc/dealer.hpp"
#include "harness.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;

namespace {

using IdentityPtr = std::shared_ptr<const wire::Identity>;
IdentityPtr new_identity() { return std::make_shared<const wire::Identity>(wire::Identity::generate()); }

// A dealer that admits only what its operator signs, with a dealer key from a file.
struct KeyedDealer {
  std::string dir;
  IdentityPtr op = new_identity();
  wire::PublicKey dealer_key{};
  std::unique_ptr<DealerProcess> process;

  explicit KeyedDealer(std::vector<std::string> extra = {}) {
    char tmpl[] = "/tmp/bp-auth-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    const auto dealer = wire::Identity::generate();
    REQUIRE_FALSE(dealer.save(dir + "/dealer.key").has_value());
    dealer_key = dealer.public_key();
    std::vector<std::string> flags = {"--operator-key", wire::public_key_hex(op->public_key()), "--dealer-key",
                                      dir + "/dealer.key"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    process = std::make_unique<DealerProcess>(flags);
  }
  ~KeyedDealer() { std::system(("rm -rf " + dir).c_str()); }

  client::ClientResult<client::SessionInfo> create(const std::vector<IdentityPtr>& parties, IdentityPtr signer,
                                                   size_t bits = 8) {
    client::SessionRequest request{bits, parties.size(), "auth", 20000, {}, {}};
    for (const auto& p : parties) request.allowed_parties.push_back(p->public_key());
    client::Options options;
    options.identity = std::move(signer);
    auto created = client::create_session(process->endpoint(), request, options);
    if (created) remember_bits(created->session_id, bits);
    return created;
  }
  std::string create_ok(const std::vector<IdentityPtr>& parties) {
    auto created = create(parties, op);
    REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
    return created->session_id;
  }
};

// The dealer's answer to one frame on a fresh connection: the Abort reason, or "" if it was
// not an abort.
std::string refusal(RawParty& raw) {
  auto reply = raw.receive(10s);
  REQUIRE(reply.has_value());
  auto* abort = std::get_if<wire::AbortMsg>(&*reply);
  return abort ? abort->reason : "";
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string json_field(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  REQUIRE_MESSAGE(at != std::string::npos, key << " missing in " << json);
  auto start = at + key.size() + 3;
  if (json[start] == '"') return json.substr(start + 1, json.find('"', start + 1) - start - 1);
  if (json[start] == '[') return json.substr(start + 1, json.find(']', start) - start - 1);
  return json.substr(start, json.find_first_of(",}", start) - start);
}

}  // namespace

TEST_CASE("listed parties sit at their keys' positions and the result carries the dealer's signature") {
  KeyedDealer dealer;
  const std::vector<IdentityPtr> parties = {new_identity(), new_identity(), new_identity()};
  const std::string session = dealer.create_ok(parties);
  // Started in reverse order: positions still follow the allow-list.
  const auto outcomes =
      run_parties(*dealer.process, session, {3, 2, 1}, 60s, std::vector<IdentityPtr>{parties.begin(), parties.end()});
  check_all_succeeded(outcomes, 3);
  for (size_t i = 0; i < 3; ++i) {
    const auto& r = outcomes.results[i];
    CHECK(r->position == i);
    CHECK(r->attestation.dealer_key == dealer.dealer_key);
    CHECK(r->attestation.session_id == session);
    CHECK(wire::attestation_valid(wire::ResultMsg{r->result, r->attestation}));
  }
  const auto stored = http_get(dealer.process->port(), "/v1/sessions/" + session).second;
  CHECK(stored.find(to_hex(outcomes.results[0]->attestation.signature)) != std::string::npos);

  // A party that pins another dealer key refuses before saying anything.
  client::Options pinned;
  pinned.identity = parties[0];
  pinned.dealer_key = wire::Identity::generate().public_key();
  auto refused = client::join_and_prove(dealer.process->endpoint(), session, 1, Scalar::from_u64(1), pinned);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == client::ClientErrorKind::MaliciousDealer);
}

TEST_CASE("over wss:// the signatures carry the TLS channel binding, and both ends agree on it") {
  TestPki pki;
  KeyedDealer dealer({"--tls-cert", pki.server_cert, "--tls-key", pki.server_key});
  client::Endpoint endpoint = dealer.process->endpoint();
  endpoint.tls = true;
  const std::vector<IdentityPtr> parties = {new_identity(), new_identity()};
  client::SessionRequest request{16, 2, "tls", 20000, {}, {parties[0]->public_key(), parties[1]->public_key()}};
  client::Options as_operator;
  as_operator.ca_file = pki.ca_cert;
  as_operator.identity = dealer.op;
  auto created = client::create_session(endpoint, request, as_operator);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  remember_bits(created->session_id, 16);
  std::vector<client::Options> options(2);
  for (size_t i = 0; i < 2; ++i) {
    options[i].ca_file = pki.ca_cert;
    options[i].identity = parties[i];
  }
  check_all_succeeded(run_parties_at(endpoint, created->session_id, {100, 101}, options), 2);
}

TEST_CASE("creating a session needs a configured operator's signature for this connection") {
  KeyedDealer dealer;
  const std::vector<IdentityPtr> parties = {new_identity()};
  // A refusal for want of an admitted key is its own kind (wire 1.6); a malformed request
  // stays an abort.
  auto describe_refusal = [](const client::ClientResult<client::SessionInfo>& r, client::ClientErrorKind kind) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == kind);
    return r.error().detail;
  };
  using Kind = client::ClientErrorKind;
  CHECK(describe_refusal(dealer.create(parties, nullptr), Kind::NotAllowed).find("needs an operator's signature") !=
        std::string::npos);
  CHECK(describe_refusal(dealer.create(parties, new_identity()), Kind::NotAllowed).find("unknown operator key") !=
        std::string::npos);
  client::Options as_operator;
  as_operator.identity = dealer.op;
  CHECK(describe_refusal(client::create_session(dealer.process->endpoint(), {8, 1, "x", 0, {}, {}}, as_operator),
                         Kind::Aborted)
            .find("needs the parties' keys") != std::string::npos);

  // A key the session does not list, and a session nobody created.
  const std::string session = dealer.create_ok(parties);
  client::Options stranger;
  stranger.identity = new_identity();
  auto not_listed =
      client::join_and_prove(dealer.process->endpoint(), session, stated(session, 1, Scalar::one()), stranger);
  REQUIRE_FALSE(not_listed.ok());
  CHECK(not_listed.error().kind == Kind::NotAllowed);
  CHECK(client::describe(not_listed.error()).rfind("not allowed: ", 0) == 0);
  auto nowhere = client::join_and_prove(dealer.process->endpoint(), std::string(32, 'a'),
                                        stated(session, 1, Scalar::one()), stranger);
  REQUIRE_FALSE(nowhere.ok());
  CHECK(nowhere.error().kind == Kind::NoSuchSession);

  // A signed request replayed on another connection.
  RawParty first(dealer.process->port());
  wire::CreateSessionMsg create{8, 1, "x", 0, {parties[0]->public_key()}, std::nullopt, {}};
  create.operator_auth =
      wire::KeySignature{dealer.op->public_key(),
                         dealer.op->sign(wire::create_statement(first.channel(), create, dealer.op->public_key()))};
  RawParty second(dealer.process->port());
  second.send(create);
  CHECK(refusal(second).find("does not verify for this connection") != std::string::npos);
  first.send(create);  // where it was signed, it works
  auto created = first.receive();
  REQUIRE(created.has_value());
  CHECK(std::holds_alternative<wire::SessionCreatedMsg>(*created));
}

TEST_CASE(
    "unknown keys, replayed joins, seat theft and joins from another session are refused; the session "
    "still completes") {
  KeyedDealer dealer({"--reconnect-grace-ms", "10000"});
  const auto alice = new_identity(), bob = new_identity(), mallory = new_identity();
  const std::string session = dealer.create_ok({alice, bob});
  const std::string other_session = dealer.create_ok({alice, mallory});
  const auto port = dealer.process->port();

  // Alice takes seat 0 through a raw connection.
  Seated first = join_raw(*dealer.process, session, alice.get());
  CHECK(first.joined.position == 0);

  {  // A key the session does not list (with a valid signature).
    RawParty raw(port);
    raw.send(raw.join_message(session, {}, mallory.get()));
    CHECK(refusal(raw) == "this key is not allowed in the session");
  }
  {  // No key at all.
    RawParty raw(port);
    raw.send(raw.join_message(session, {}, nullptr));
    CHECK(refusal(raw).find("admits only the parties it lists") != std::string::npos);
  }
  {  // Alice's join, captured and replayed on another connection.
    RawParty raw(port);
    raw.send(first.raw().join_message(session, {}, alice.get()));
    CHECK(refusal(raw).find("does not verify for this connection") != std::string::npos);
  }
  {  // Mallory claims Bob's key but can only sign with her own.
    RawParty raw(port);
    auto join = raw.join_message(session, {}, mallory.get());
    join.party_auth->key = bob->public_key();
    raw.send(join);
    CHECK(refusal(raw).find("does not verify") != std::string::npos);
  }
  {  // A join Alice signed for the other session, presented to this one.
    RawParty raw(port);
    auto join = raw.join_message(other_session, {}, alice.get());
    join.session_id = session;
    raw.send(join);
    CHECK(refusal(raw).find("does not verify") != std::string::npos);
  }
  {  // Alice again while she is seated: she must resume with her token instead.
    RawParty raw(port);
    raw.send(raw.join_message(session, {}, alice.get()));
    CHECK(refusal(raw).find("joined already") != std::string::npos);
  }
  // Alice's connection drops. Bob, holding Alice's resume token, cannot take her seat.
  first.raw().close();
  wait_for_seated(*dealer.process, 0);
  {
    RawParty raw(port);
    raw.send(raw.join_message(session, first.joined.resume_token, bob.get()));
    CHECK(refusal(raw) == "no vacant seat for this resume token");
  }
  // Alice comes back with her key and token, commits, and Bob joins normally.
  Seated resumed{std::make_unique<RawParty>(port), {}};
  resumed.raw().send(resumed.raw().join_message(session, first.joined.resume_token, alice.get()));
  auto joined = resumed.raw().receive();
  REQUIRE(joined.has_value());
  REQUIRE(std::holds_alternative<wire::JoinedMsg>(*joined));
  resumed.joined = std::get<wire::JoinedMsg>(*joined);
  CHECK(resumed.joined.position == 0);
  ManualParty manual = commit_manually(resumed, 77);
  Outcomes bob_outcome;
  std::thread bob_thread([&] { bob_outcome = run_parties(*dealer.process, session, {78}, 60s, {bob}); });
  resumed.raw().send(answer_challenges(resumed, manual).second);
  auto result = resumed.raw().receive();
  bob_thread.join();
  REQUIRE(result.has_value());
  REQUIRE(std::holds_alternative<wire::ResultMsg>(*result));
  CHECK(wire::attestation_valid(std::get<wire::ResultMsg>(*result)));
  REQUIRE_MESSAGE(bob_outcome.results[0].ok(), client::describe(bob_outcome.results[0].error()));
  CHECK(bob_outcome.results[0]->position == 1);
}

namespace {

// A dealer that lies, for the parties' side of the protocol: it speaks the real wire format
// and runs the real dealer states, then departs from them as `mode` says.
enum class Lie { ZeroChallenge, RecomputedWrongChallenge, ForgedSignature };

class LyingDealer {
 public:
  explicit LyingDealer(Lie lie) : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this, lie] { serve(lie); });
  }
  ~LyingDealer() { thread_.join(); }
  client::Endpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port(), false, ""}; }

 private:
  void serve(Lie lie) {
    namespace websocket = boost::beast::websocket;
    websocket::stream<boost::beast::tcp_stream> ws(acceptor_.accept());
    boost::beast::get_lowest_layer(ws).expires_after(30s);
    ws.accept();
    ws.binary(true);
    const auto key = wire::Identity::generate();
    auto send = [&](const wire::Message& m) { ws.write(boost::asio::buffer(wire::encode(m))); };
    auto receive = [&]() -> std::optional<wire::Message> {
      boost::beast::flat_buffer buffer;
      boost::beast::error_code ec;
      ws.read(buffer, ec);
      if (ec) return std::nullopt;
      auto d = wire::decode({static_cast<const uint8_t*>(buffer.data().data()), buffer.data().size()});
      return d ? std::optional<wire::Message>(std::move(*d)) : std::nullopt;
    };
    send(wire::HelloMsg{{9}, key.public_key(), true, false});
    if (!receive()) return;  // the join
    const std::string id(32, 'f');
    const mpc::SessionParams params{8, 1, mpc::session_label(id, 8, 1, "lie")};
    static const BulletproofGens gens(8, 1);
    static const PedersenGens pc;
    send(wire::JoinedMsg{0, 8, 1, params.label, std::vector<uint8_t>(16, 1)});
    auto commitment = receive();
    if (!commitment) return;
    auto d0 = mpc::DealerAwaitingBitCommitments::create(gens, pc, params);
    auto d1 = std::move(*d0).receive_bit_commitments({std::get<BitCommitment>(*commitment)});
    REQUIRE(d1.ok());
    auto challenge = d1->second;
    if (lie == Lie::ZeroChallenge) challenge.y = Scalar::zero();
    if (lie == Lie::RecomputedWrongChallenge) challenge.z = challenge.z + Scalar::one();
    send(challenge);
    if (lie != Lie::ForgedSignature) {
      receive();  // the party hangs up
      return;
    }
    auto poly = receive();
    if (!poly) return;
    auto d2 = std::move(d1->first).receive_poly_commitments({std::get<PolyCommitment>(*poly)});
    REQUIRE(d2.ok());
    send(d2->second);
    auto share = receive();
    if (!share) return;
    auto result = std::move(d2->first).receive_shares({std::get<ProofShare>(*share)});
    REQUIRE(result.ok());
    // A genuine proof, signed by a key other than the one in Hello.
    const auto other = wire::Identity::generate();
    send(wire::ResultMsg{*result,
                         wire::Attestation{id, other.public_key(),
                                           other.sign(wire::result_statement(other.public_key(), id, *result))}});
    receive();
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("a lying dealer over the network: the party aborts with MaliciousDealer") {
  for (const Lie lie : {Lie::ZeroChallenge, Lie::RecomputedWrongChallenge, Lie::ForgedSignature}) {
    LyingDealer liar(lie);
    client::Options options;
    options.timeout = 30s;
    options.identity = new_identity();
    auto outcome = client::join_and_prove(liar.endpoint(), std::string(32, 'f'),
                                          client::PartyValues{{5}, {Scalar::from_u64(9)}, std::nullopt, 8}, options);
    REQUIRE_FALSE(outcome.ok());
    CHECK_MESSAGE(outcome.error().kind == client::ClientErrorKind::MaliciousDealer, client::describe(outcome.error()));
  }
}

namespace {

// A dealer that answers the party's bit commitment, drops the connection once the party has
// answered, and on the party's return (with its resume token) sends a different, well-formed
// bit challenge: another second party's commitments, so other y and z. Answering it too would
// give two replies to two challenges from one set of secrets.
class ChallengeSwappingDealer {
 public:
  ChallengeSwappingDealer() : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ChallengeSwappingDealer() { thread_.join(); }
  client::Endpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port(), false, ""}; }
  bool got_the_same_answer_again = false;

 private:
  using Ws = boost::beast::websocket::stream<boost::beast::tcp_stream>;
  static std::optional<wire::Message> receive(Ws& ws) {
    boost::beast::flat_buffer buffer;
    boost::beast::error_code ec;
    ws.read(buffer, ec);
    if (ec) return std::nullopt;
    auto d = wire::decode({static_cast<const uint8_t*>(buffer.data().data()), buffer.data().size()});
    return d ? std::optional<wire::Message>(std::move(*d)) : std::nullopt;
  }
  static void send(Ws& ws, const wire::Message& m) { ws.write(boost::asio::buffer(wire::encode(m))); }
  // The challenge for the party's commitment beside a fresh second party's.
  static mpc::BitChallengeMsg challenge_with_a_new_second_party(const mpc::SessionParams& params,
                                                                const BitCommitment& ours) {
    static const BulletproofGens gens(8, 2);
    static const PedersenGens pc;
    SystemRandom rng;
    auto other = mpc::PartyAwaitingPosition::create(gens, pc, params, 1, Scalar::random(rng));
    auto seated = std::move(*other).assign_position(1);
    auto dealer = mpc::DealerAwaitingBitCommitments::create(gens, pc, params);
    auto decided = std::move(*dealer).receive_bit_commitments({ours, seated->second});
    REQUIRE(decided.ok());
    return decided->second;
  }

  void serve() {
    const auto key = wire::Identity::generate();
    const std::string id(32, 'f');
    const mpc::SessionParams params{8, 2, mpc::session_label(id, 8, 2, "swap")};
    const std::vector<uint8_t> token(16, 3);
    BitCommitment ours;
    std::optional<wire::Message> answer;
    for (int connection = 0; connection < 2; ++connection) {
      Ws ws(acceptor_.accept());
      boost::beast::get_lowest_layer(ws).expires_after(30s);
      ws.accept();
      ws.binary(true);
      send(ws, wire::HelloMsg{{9}, key.public_key(), true, false});
      if (!receive(ws)) return;  // the join (the second one with our token)
      send(ws, wire::JoinedMsg{0, 8, 2, params.label, token});
      if (connection == 0) {
        auto commitment = receive(ws);
        if (!commitment) return;
        ours = std::get<BitCommitment>(*commitment);
        send(ws, challenge_with_a_new_second_party(params, ours));
        answer = receive(ws);  // the poly commitment; then the connection "drops"
        if (!answer) return;
        boost::beast::get_lowest_layer(ws).socket().close();
        continue;
      }
      auto resent = receive(ws);  // the party's last message again, byte for byte
      got_the_same_answer_again = resent && wire::encode(*resent) == wire::encode(*answer);
      send(ws, challenge_with_a_new_second_party(params, ours));
      receive(ws);  // the party refuses and hangs up
    }
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("after a resume, a party replays its answer and refuses a different challenge for the same round") {
  ChallengeSwappingDealer dealer;
  client::Options options;
  options.timeout = 30s;
  options.reconnect.first_delay = 50ms;
  std::vector<client::PartyEvent> events;
  options.on_event = [&events](const client::PartyEvent& e) { events.push_back(e); };
  auto outcome = client::join_and_prove(dealer.endpoint(), std::string(32, 'f'),
                                        client::PartyValues{{5}, {Scalar::from_u64(9)}, std::nullopt, 8}, options);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().kind == client::ClientErrorKind::MaliciousDealer);
  CHECK(outcome.error().detail.find("a second, different bit challenge") != std::string::npos);
  CHECK(dealer.got_the_same_answer_again);
  int answered = 0, resumed = 0;
  for (const auto& e : events) {
    answered += e.kind == client::PartyEvent::Kind::Answered;
    resumed += e.kind == client::PartyEvent::Kind::Resumed;
  }
  CHECK(answered == 1);  // one challenge answered, never the second
  CHECK(resumed == 1);
}

TEST_CASE("the command-line flow: keygen, a signed session, joins with keys, bp verify checks the signature") {
  char tmpl[] = "/tmp/bp-auth-cli-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, party = BP_PARTY_PATH, bp = BP_CLI_PATH;
  for (const char* name : {"operator", "dealer", "p0", "p1"})
    REQUIRE(run(party + " keygen --out " + dir + "/" + name + ".key").size() == 64);
  struct stat st {};
  REQUIRE(::stat((dir + "/p0.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(run(party + " keygen --out " + dir + "/p0.key 2>&1").find("cannot create") != std::string::npos);

  DealerProcess dealer({"--operator-key", dir + "/operator.key.pub", "--dealer-key", dir + "/dealer.key"});
  const std::string url = " --dealer ws://127.0.0.1:" + std::to_string(dealer.port());
  const std::string session = run(party + " create-session" + url + " --bits 16 --parties 2 --label cli --key " + dir +
                                  "/operator.key --allow " + dir + "/p0.key.pub," + dir + "/p1.key.pub");
  REQUIRE(session.size() == 32);
  const std::string pin = " --dealer-key " + dir + "/dealer.key.pub";
  FILE* p0 =
      popen((party + " join" + url + " --bits 16 --session " + session + " --value 1000 --key " + dir + "/p0.key" + pin)
                .c_str(),
            "r");
  const std::string out1 =
      run(party + " join" + url + " --bits 16 --session " + session + " --value 2000 --key " + dir + "/p1.key" + pin);
  char buf[8192];
  const size_t n0 = fread(buf, 1, sizeof buf, p0);
  pclose(p0);
  const std::string out0(buf, n0);
  REQUIRE_MESSAGE(out1.find("dealer_signature") != std::string::npos, out1);
  CHECK(json_field(out0, "position") == "0");
  CHECK(json_field(out1, "position") == "1");

  std::string commitments = json_field(out1, "commitments");
  commitments.erase(std::remove(commitments.begin(), commitments.end(), '"'), commitments.end());
  const std::string verify = bp + " verify --bits 16 --commitments " + commitments + " --proof " +
                             json_field(out1, "proof") + " --label '" + json_field(out1, "label") + "' --session " +
                             json_field(out1, "session") + " --dealer-key " + dir + "/dealer.key.pub";
  CHECK(run(verify + " --signature " + json_field(out1, "dealer_signature")) == "ok");
  std::string forged = json_field(out1, "dealer_signature");
  forged[0] = forged[0] == '0' ? '1' : '0';
  CHECK(run(verify + " --signature " + forged) == "fail: the dealer signature does not verify");
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("a party restarted without its state is told so, and its seat is named as having lost it") {
  KeyedDealer dealer;
  const std::vector<IdentityPtr> parties = {new_identity(), new_identity()};
  const std::string session = dealer.create_ok(parties);
  {
    // The first party's earlier self: seated, committed, then its process died.
    Seated seated = join_raw(*dealer.process, session, parties[0].get());
    commit_manually(seated, 5);
    seated.raw().close();
  }
  wait_for_seated(*dealer.process, 0);
  // The second party takes its seat and commits; then the first one's restart, with the same
  // key and nothing else.
  std::vector<client::Options> options(2);
  for (size_t i = 0; i < 2; ++i) {
    options[i].identity = parties[i];
    options[i].timeout = 30s;
  }
  Outcomes second;
  std::thread waiting([&] { second = run_parties_at(dealer.process->endpoint(), session, {7}, {options[1]}); });
  wait_for_seated(*dealer.process, 1);
  const Outcomes restarted = run_parties_at(dealer.process->endpoint(), session, {5}, {options[0]});
  waiting.join();
  // And a party that comes after the end hears why it ended.
  const Outcomes late = run_parties_at(dealer.process->endpoint(), session, {5}, {options[0]});
  for (const auto& outcome : {restarted.results[0], second.results[0], late.results[0]}) {
    REQUIRE_FALSE(outcome.ok());
    CHECK_MESSAGE(outcome.error().kind == client::ClientErrorKind::Aborted, client::describe(outcome.error()));
    CHECK_MESSAGE(outcome.error().detail.find("came back without its state") != std::string::npos,
                  client::describe(outcome.error()));
    CHECK(outcome.error().blamed == std::vector<size_t>{0});
    CHECK(outcome.error().detail.find("different") == std::string::npos);  // not a liar
  }
  const auto [status, body] = http_get(dealer.process->port(), "/v1/sessions/" + session);
  CHECK(status == 200);
  CHECK(body.find("came back without its state") != std::string::npos);
}

TEST_CASE("a party's withdrawal reaches the record as its kind only, never the party's words") {
  KeyedDealer dealer;
  const std::vector<IdentityPtr> parties = {new_identity()};
  client::SessionRequest request{64, 1, "bounded", 20000, {}, {}};
  request.allowed_parties.push_back(parties[0]->public_key());
  request.bounds = {{0, 1000}};
  client::Options as_operator;
  as_operator.identity = dealer.op;
  auto created = client::create_session(dealer.process->endpoint(), request, as_operator);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  client::Options options;
  options.identity = parties[0];
  options.timeout = 30s;
  // The party states no bounds: the seat is not its statement.
  auto outcome = client::join_and_prove(dealer.process->endpoint(), created->session_id,
                                        client::PartyValues{{5}, {Scalar::from_u64(3)}, std::nullopt, 64}, options);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().kind == client::ClientErrorKind::Refused);
  CHECK(outcome.error().detail.find("bounds") != std::string::npos);
  std::string body;
  for (int i = 0; i < 100 && body.find("aborted") == std::string::npos; ++i) {
    body = http_get(dealer.process->port(), "/v1/sessions/" + created->session_id).second;
    std::this_thread::sleep_for(50ms);
  }
  CHECK(body.find("a party withdrew before committing") != std::string::npos);
  CHECK(body.find("bounds [") == std::string::npos);
  CHECK(body.find(outcome.error().detail) == std::string::npos);
}

TEST_CASE("SIGHUP reloads operator keys and session limits from the config file while a session runs") {
  char tmpl[] = "/tmp/bp-reload-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, config = dir + "/dealer.conf";
  const IdentityPtr first_operator = new_identity(), second_operator = new_identity();
  const auto write_config = [&](const std::string& text) {
    FILE* f = std::fopen(config.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  const auto hex = [](const IdentityPtr& id) { return wire::public_key_hex(id->public_key()); };
  write_config("operator-key = " + hex(first_operator) + "\nmax-sessions-per-operator = 5\n");
  DealerProcess dealer({"--config", config});
  const auto create = [&](const IdentityPtr& signer, const std::vector<IdentityPtr>& parties) {
    client::SessionRequest request{8, parties.size(), "reload", 20000, {}, {}};
    for (const auto& p : parties) request.allowed_parties.push_back(p->public_key());
    client::Options options;
    options.identity = signer;
    return client::create_session(dealer.endpoint(), request, options);
  };
  const auto wait_for_log = [&](const std::string& text, size_t occurrences) {
    for (int i = 0; i < 200; ++i) {
      const std::string log = dealer.log();
      size_t count = 0;
      for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++count;
      if (count >= occurrences) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  };

  // A session of the first operator's, one of its two parties seated and waiting.
  const std::vector<IdentityPtr> parties = {new_identity(), new_identity()};
  auto running = create(first_operator, parties);
  REQUIRE_MESSAGE(running.ok(), client::describe(running.error()));
  remember_bits(running->session_id, 8);
  const auto join = [&](size_t index, uint64_t value) {
    client::Options options;
    options.identity = parties[index];
    SystemRandom rng;
    return client::join_and_prove(dealer.endpoint(), running->session_id,
                                  stated(running->session_id, value, Scalar::random(rng)), options);
  };
  auto seated = std::async(std::launch::async, [&] { return join(0, 7); });
  const auto refused = create(second_operator, {new_identity()});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail.find("unknown operator key") != std::string::npos);

  // The second operator added, its limit lowered, and one option that needs a restart.
  write_config("operator-key = " + hex(first_operator) + "," + hex(second_operator) +
               "\nmax-sessions-per-operator = 1\nmax-frame-bytes = 70000\n");
  REQUIRE(kill(dealer.pid(), SIGHUP) == 0);
  REQUIRE_MESSAGE(wait_for_log("SIGHUP: configuration reloaded", 1), dealer.log());
  CHECK(dealer.log().find("max-frame-bytes") != std::string::npos);  // named as needing a restart
  auto second = create(second_operator, {new_identity()});
  REQUIRE_MESSAGE(second.ok(), client::describe(second.error()));
  const auto over = create(second_operator, {new_identity()});
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == client::ClientErrorKind::OverLimit);
  CHECK(over.error().detail.find("this operator has 1 open sessions, its limit") != std::string::npos);

  // The session created before the reload finishes under its own terms.
  const auto other = join(1, 9);
  const auto first = seated.get();
  REQUIRE_MESSAGE(first.ok(), client::describe(first.error()));
  REQUIRE_MESSAGE(other.ok(), client::describe(other.error()));
  CHECK(first->result.proof.to_bytes() == other->result.proof.to_bytes());

  // A config that does not parse changes nothing and says why.
  write_config("operator-key = not-a-key\n");
  REQUIRE(kill(dealer.pid(), SIGHUP) == 0);
  REQUIRE_MESSAGE(wait_for_log("the configuration was not reloaded", 1), dealer.log());
  CHECK(dealer.log().find("not-a-key") != std::string::npos);
  const auto still = create(first_operator, {new_identity()});
  CHECK_MESSAGE(still.ok(), client::describe(still.error()));
  const auto still_over = create(second_operator, {new_identity()});
  REQUIRE_FALSE(still_over.ok());
  CHECK(still_over.error().detail.find("its limit") != std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}

// The port --metrics-listen 127.0.0.1:0 picked, as the dealer's log says it (0: none within 5 s).
static uint16_t metrics_port_of(const DealerProcess& dealer) {
  for (int i = 0; i < 100; ++i) {
    const std::string log = dealer.log();
    const auto at = log.find("metrics listening");
    const auto address = at == std::string::npos ? std::string::npos : log.find("address=127.0.0.1:", at);
    if (address != std::string::npos) return static_cast<uint16_t>(std::stoi(log.substr(address + 18)));
    std::this_thread::sleep_for(50ms);
  }
  return 0;
}

TEST_CASE("--metrics-listen: metrics, health and a paged session listing on the operator's own port") {
  DealerProcess dealer({"--metrics-listen", "127.0.0.1:0"});
  const uint16_t metrics_port = metrics_port_of(dealer);
  REQUIRE_MESSAGE(metrics_port != 0, dealer.log());
  std::vector<std::string> ids;
  for (size_t bits : {8, 16, 32}) {
    auto created = client::create_session(dealer.endpoint(), {bits, 2, "listing", 20000, {}, {}});
    REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
    ids.push_back(created->session_id);
  }
  std::sort(ids.begin(), ids.end());

  const auto listed = http_get(metrics_port, "/v1/sessions");
  CHECK(listed.first == 200);
  const std::string& all = listed.second;
  for (const auto& id : ids) CHECK(all.find("\"id\":\"" + id + "\",\"phase\":\"join\"") != std::string::npos);
  CHECK(all.find("\"next\":null") != std::string::npos);
  const auto first_page = http_get(metrics_port, "/v1/sessions?limit=2").second;
  CHECK(first_page.find(ids[0]) != std::string::npos);
  CHECK(first_page.find(ids[2]) == std::string::npos);
  CHECK(first_page.find("\"next\":\"" + ids[1] + "\"") != std::string::npos);
  const auto second_page = http_get(metrics_port, "/v1/sessions?limit=2&after=" + ids[1]).second;
  CHECK(second_page.find(ids[2]) != std::string::npos);
  CHECK(second_page.find(ids[0]) == std::string::npos);
  CHECK(second_page.find("\"next\":null") != std::string::npos);
  CHECK(http_get(metrics_port, "/v1/sessions?phase=proof_shares").second.find("\"sessions\":[]") != std::string::npos);
  CHECK(http_get(metrics_port, "/v1/sessions?min_running_s=3600").second.find("\"sessions\":[]") != std::string::npos);
  const auto bad = http_get(metrics_port, "/v1/sessions?colour=blue");
  CHECK(bad.first == 400);
  CHECK(bad.second.find("unknown parameter 'colour'") != std::string::npos);

  // /metrics and health live on the operator's port; the parties' port keeps only lookups.
  const auto metrics = http_get(metrics_port, "/metrics");
  CHECK(metrics.first == 200);
  CHECK(metrics.second.find("bp_sessions_started_total 3") != std::string::npos);
  CHECK(http_get(metrics_port, "/readyz").first == 200);
  CHECK(http_get(dealer.port(), "/metrics").first == 404);
  CHECK(http_get(dealer.port(), "/v1/sessions").first == 404);
  CHECK(http_get(dealer.port(), "/v1/sessions/" + ids[0]).first == 200);
  CHECK(http_get(metrics_port, "/v1/sessions/" + ids[0]).first == 404);
  CHECK(http_post(metrics_port, "/v1/verify", "{}").first == 405);

  // The admin request for a reload: SIGHUP's work, said in the log the same way.
  CHECK(http_post(metrics_port, "/v1/reload", "").first == 202);
  bool reloaded = false;
  for (int i = 0; i < 100 && !reloaded; ++i) {
    reloaded = dealer.log().find("SIGHUP: configuration reloaded") != std::string::npos;
    if (!reloaded) std::this_thread::sleep_for(50ms);
  }
  CHECK_MESSAGE(reloaded, dealer.log());
  CHECK(http_post(dealer.port(), "/v1/reload", "").first == 405);  // never on the parties' port
}

TEST_CASE("--metrics-token-file: the operator's port answers only requests bearing the token") {
  char tmpl[] = "/tmp/bp-token-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, token_file = dir + "/metrics.token", token = "a-token-of-some-length-0123456789";
  FILE* f = std::fopen(token_file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs((token + "\n").c_str(), f);
  std::fclose(f);
  REQUIRE(chmod(token_file.c_str(), 0600) == 0);
  DealerProcess dealer({"--metrics-listen", "127.0.0.1:0", "--metrics-token-file", token_file});
  const uint16_t metrics_port = metrics_port_of(dealer);
  REQUIRE_MESSAGE(metrics_port != 0, dealer.log());
  const auto ask = [&](const std::string& authorization) {
    return http_status(
        http_raw(metrics_port, "GET /metrics HTTP/1.1\r\nHost: x\r\n" + authorization + "Connection: close\r\n\r\n"));
  };
  CHECK(ask("") == 401);
  CHECK(ask("Authorization: Bearer wrong-token-of-the-same-size-0123\r\n") == 401);
  CHECK(ask("Authorization: Bearer " + token + "\r\n") == 200);
  CHECK(http_post(metrics_port, "/v1/reload", "").first == 401);

  // A token file others may read: the dealer does not start.
  REQUIRE(chmod(token_file.c_str(), 0644) == 0);
  const std::string command = "timeout 20 " + std::string(BP_DEALER_PATH) +
                              " --listen 127.0.0.1:0 --allow-anonymous --metrics-listen "
                              "127.0.0.1:0 --metrics-token-file " +
                              token_file + " 2>&1";
  CHECK(run(command).find("readable by others") != std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}
