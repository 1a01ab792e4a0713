// The real bp-dealer binary and real clients over loopback sockets: happy paths, concurrency,
// misbehaving parties (each blamed, the daemon keeps serving), a dealer killed mid-session,
// HTTP endpoints, and outcomes that survive a SIGKILL and a restart.
#include <doctest/doctest.h>
#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <filesystem>
#include <functional>
#include <mutex>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "bp/bounds.hpp"
#include "bp/hex.hpp"
#include "bp/mpc/party.hpp"
#include "bp/wire/json.hpp"
#include "harness.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;

TEST_CASE("happy paths: m = 1, 2, 8, 32") {
  DealerProcess dealer;
  for (size_t m : {1, 2, 8, 32}) {
    CAPTURE(m);
    const size_t bits = m == 32 ? 32 : 64;
    const std::string session = create_session(dealer, bits, m);
    std::vector<uint64_t> values(m);
    for (size_t j = 0; j < m; ++j) values[j] = (j * 7919) % (uint64_t{1} << 30);
    const Outcomes o = run_parties(dealer, session, values);
    check_all_succeeded(o, m);
    const auto& result = o.results[0]->result;
    CHECK(result.label.find("session=" + session) != std::string::npos);
    Transcript t(result.label);
    const BulletproofGens gens(bits, result.commitments.size());
    CHECK(result.proof.verify_multiple(gens, PedersenGens(), t, result.commitments, bits).ok());
  }
}

TEST_CASE("twenty concurrent sessions") {
  DealerProcess dealer({"--max-connects-per-ip-per-s", "1000"});  // all 60 connections come from 127.0.0.1
  std::vector<std::string> sessions;
  for (int i = 0; i < 20; ++i) sessions.push_back(create_session(dealer, 16, 2));
  boost::asio::io_context ioc;
  std::vector<std::optional<client::ClientResult<client::PartyOutcome>>> results(40);
  SystemRandom rng;
  for (size_t i = 0; i < 40; ++i)
    client::async_join_and_prove(ioc, dealer.endpoint(), sessions[i / 2],
                                 stated(sessions[i / 2], 1000 + i, Scalar::random(rng)), {},
                                 [&results, i](auto r) { results[i].emplace(std::move(r)); });
  ioc.run();
  for (const auto& r : results) {
    REQUIRE(r.has_value());
    CHECK_MESSAGE(r->ok(), client::describe(r->error()));
  }
  const auto [status, body] = http_get(dealer.port(), "/metrics");
  CHECK(status == 200);
  CHECK(body.find("bp_sessions_completed_total 20") != std::string::npos);
}

TEST_CASE("misbehaving parties are blamed and the daemon keeps serving") {
  DealerProcess dealer({"--reconnect-grace-ms", "300", "--max-frame-bytes", "65536"});
  // Each case: one honest party (position 0 joins first) and one raw party that misbehaves.
  struct Case {
    const char* name;
    std::function<void(Seated&)> misbehave;
  };
  const std::vector<Case> cases = {
      {"disconnects mid-round", [](Seated& s) { s.raw().close(); }},
      {"sends garbage bytes",
       [](Seated& s) {
         s.raw().send_bytes({0xde, 0xad, 0xbe, 0xef, 0xff, 0x01});
       }},
      {"sends a truncated frame",
       [](Seated& s) {
         auto bytes = wire::encode(bp::BitCommitment{});  // a well-formed frame, cut short
         bytes.resize(bytes.size() - 5);
         s.raw().send_bytes(bytes);
       }},
      {"speaks protocol version 2",
       [](Seated& s) {
         auto bytes = wire::encode(wire::AbortMsg{"x", {}});
         // field 1 (version), varint: rewrite the version byte that follows the 0x08 tag
         REQUIRE(bytes.size() > 2);
         REQUIRE(bytes[0] == 0x08);
         bytes[1] = 0x02;
         s.raw().send_bytes(bytes);
       }},
      {"sends a frame over the size limit", [](Seated& s) { s.raw().send_bytes(std::vector<uint8_t>(100000, 0x42)); }},
      {"sends a message out of order", [](Seated& s) { s.raw().send(bp::PolyCommitment{}); }},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const std::string session = create_session(dealer, 16, 2, 10000);
    Outcomes honest_outcome;
    const auto started = std::chrono::steady_clock::now();
    std::thread honest([&] { honest_outcome = run_parties(dealer, session, {5}); });
    wait_for_seated(dealer, 1);  // the honest party has position 0
    Seated bad = join_raw(dealer, session);
    CHECK(bad.joined.position == 1);
    c.misbehave(bad);
    check_aborted_with_blame(honest, honest_outcome, {1});
    CHECK(std::chrono::steady_clock::now() - started < 10s);  // before the round deadline
  }
  // Random bytes from a connection that never joined: refused, nothing else disturbed.
  for (int i = 0; i < 20; ++i) {
    RawParty stranger(dealer.port());
    std::vector<uint8_t> noise(1 + static_cast<size_t>(randombytes_uniform(600)));
    randombytes_buf(noise.data(), noise.size());
    stranger.send_bytes(noise);
    auto reply = stranger.receive(5s);
    REQUIRE(reply.has_value());
    CHECK(std::holds_alternative<wire::AbortMsg>(*reply));
  }
  // A normal session still completes afterwards.
  const std::string session = create_session(dealer, 16, 2);
  check_all_succeeded(run_parties(dealer, session, {1, 2}), 2);
}

// A session of two where position 1 runs the real protocol, then flips one byte of t_x in
// its share; the honest party at position 0 must get an abort that blames 1. Returns the id.
static std::string run_session_with_flipped_share(const DealerProcess& dealer) {
  const std::string session = create_session(dealer, 8, 2, 10000);
  Outcomes honest_outcome;
  std::thread honest([&] { honest_outcome = run_parties(dealer, session, {7}); });
  wait_for_seated(dealer, 1);
  Seated bad = join_raw(dealer, session);
  ManualParty manual = commit_manually(bad, 9);
  ProofShare share = answer_challenges(bad, manual).second;
  auto bytes = share.t_x.to_bytes();
  bytes[0] ^= 0x01;
  share.t_x = *Scalar::from_canonical_bytes(bytes);
  bad.raw().send(share);
  check_aborted_with_blame(honest, honest_outcome, {1});
  return session;
}

TEST_CASE("a share with a flipped byte is caught by the dealer's audit and blamed") {
  DealerProcess dealer;
  run_session_with_flipped_share(dealer);
  CHECK(dealer.log().find("MalformedProofShares") != std::string::npos);
}

TEST_CASE("--log-format json: every line is one JSON object; session, position, remote, reason and blame are keys") {
  DealerProcess dealer({"--log-format", "json"});
  // A completed session, one where position 1 sends a corrupted share, and a stranger's noise.
  check_all_succeeded(run_parties(dealer, create_session(dealer, 8, 2), {1, 2}), 2);
  const std::string session = run_session_with_flipped_share(dealer);
  RawParty stranger(dealer.port());
  stranger.send_bytes({0xde, 0xad});
  (void)stranger.receive(5s);
  REQUIRE(dealer.terminate_and_wait() == 0);

  std::istringstream lines(dealer.log());
  std::map<std::string, std::vector<nlohmann::json>> by_message;
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    CAPTURE(line);
    const auto object = nlohmann::json::parse(line, nullptr, false);
    REQUIRE(object.is_object());
    CHECK(object["time"].get<std::string>().back() == 'Z');
    CHECK(std::set<std::string>{"debug", "info", "warn", "error"}.count(object["level"].get<std::string>()) == 1);
    by_message[object["message"].get<std::string>()].push_back(object);
  }
  CHECK(count > 10);
  REQUIRE(by_message["session aborted"].size() == 1);
  const auto& aborted = by_message["session aborted"][0];
  CHECK(aborted["session"] == session);
  CHECK(aborted["level"] == "warn");
  CHECK(aborted["kind"] == "invalid_shares");
  CHECK(aborted["blamed"] == nlohmann::json::array({1}));
  CHECK(aborted["reason"].get<std::string>().find("blamed") == std::string::npos);  // said once, in its key
  REQUIRE(by_message["party joined"].size() == 4);
  for (const auto& joined : by_message["party joined"]) {
    CHECK(joined["position"].is_number_unsigned());
    CHECK(joined["remote"].get<std::string>().rfind("127.0.0.1:", 0) == 0);  // address:port
    CHECK(joined["party_key"] == "anonymous");
  }
  CHECK(by_message["session completed"].size() == 1);
  REQUIRE(by_message["refused"].size() == 1);
  CHECK(by_message["refused"][0]["remote"].get<std::string>().rfind("127.0.0.1:", 0) == 0);
  CHECK(by_message["stopped"].size() == 1);
}

TEST_CASE("a party that reconnects within the grace period resumes its seat and gets the same challenge") {
  DealerProcess dealer({"--reconnect-grace-ms", "5000"});
  const std::string session = create_session(dealer, 8, 2, 20000);
  Outcomes honest_outcome;
  std::thread honest([&] { honest_outcome = run_parties(dealer, session, {11}); });
  wait_for_seated(dealer, 1);
  Seated first = join_raw(dealer, session);
  ManualParty manual = commit_manually(first, 12);
  auto challenge = first.raw().receive();
  REQUIRE(challenge.has_value());
  const auto bit_challenge = std::get<mpc::BitChallengeMsg>(*challenge);
  first.raw().close();  // the connection drops before we answer

  RawParty again(dealer.port());
  again.send(wire::JoinSessionMsg{session, first.joined.resume_token, std::nullopt});
  auto rejoined = again.receive();
  REQUIRE(rejoined.has_value());
  REQUIRE(std::holds_alternative<wire::JoinedMsg>(*rejoined));
  CHECK(std::get<wire::JoinedMsg>(*rejoined).position == first.joined.position);
  auto resent = again.receive();
  REQUIRE(resent.has_value());
  const auto& same = std::get<mpc::BitChallengeMsg>(*resent);
  CHECK((same.y == bit_challenge.y && same.z == bit_challenge.z));
  auto r2 = std::move(*manual.awaiting_bits).apply_challenge(same);
  REQUIRE(r2.ok());
  again.send(r2->second);
  auto poly = again.receive();
  REQUIRE(poly.has_value());
  auto r3 = std::move(r2->first).apply_challenge(std::get<mpc::PolyChallengeMsg>(*poly));
  REQUIRE(r3.ok());
  again.send(r3->second);
  auto result = again.receive();
  REQUIRE(result.has_value());
  REQUIRE(std::holds_alternative<wire::ResultMsg>(*result));
  CHECK(r3->first.check_result(std::get<wire::ResultMsg>(*result).result).ok());
  honest.join();
  REQUIRE(honest_outcome.results[0].ok());
  // A stranger cannot take a seat with a made-up token (once the session has ended, it is
  // shown the public record, as GET /v1/sessions/ID would).
  RawParty stranger(dealer.port());
  stranger.send(wire::JoinSessionMsg{session, std::vector<uint8_t>(16, 0x55), std::nullopt});
  auto refused = stranger.receive();
  REQUIRE(refused.has_value());
  CHECK_FALSE(std::holds_alternative<wire::JoinedMsg>(*refused));
}

TEST_CASE("a dealer killed mid-session: the party tries again within its policy, then says so, no hang") {
  DealerProcess dealer;
  const std::string session = create_session(dealer, 8, 2);
  Outcomes o;
  client::Options patient;
  patient.reconnect.give_up_after = 2s;
  const auto started = std::chrono::steady_clock::now();
  std::thread waiting([&] { o = run_parties_at({"127.0.0.1", dealer.port(), false, ""}, session, {1}, {patient}); });
  wait_for_seated(dealer, 1);
  dealer.kill_hard();
  waiting.join();
  REQUIRE_FALSE(o.results[0].ok());
  CHECK(o.results[0].error().kind == client::ClientErrorKind::Unavailable);
  CHECK(o.results[0].error().detail.find("gave up after") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 10s);
}

TEST_CASE("limits: a silent connection is dropped, a connection flood is refused, sessions are capped") {
  DealerProcess dealer({"--handshake-timeout-ms", "300", "--max-connects-per-ip-per-s", "20", "--max-parties", "4"});
  {
    // Slowloris: connect and never speak; the dealer hangs up after the handshake timeout.
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket socket(ioc);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), dealer.port()});
    const auto started = std::chrono::steady_clock::now();
    char byte;
    boost::system::error_code ec;
    socket.read_some(boost::asio::buffer(&byte, 1), ec);
    CHECK(ec);  // closed by the dealer
    CHECK(std::chrono::steady_clock::now() - started < 5s);
  }
  {
    // A flood: 60 connections at once from one address; past 20 per second they are refused
    // (429 with the reason while refusal slots last, a bare close after that).
    boost::asio::io_context ioc;
    std::vector<std::unique_ptr<boost::asio::ip::tcp::socket>> sockets;
    int refused = 0;
    for (int i = 0; i < 60; ++i) {
      sockets.push_back(std::make_unique<boost::asio::ip::tcp::socket>(ioc));
      sockets.back()->connect({boost::asio::ip::make_address("127.0.0.1"), dealer.port()});
    }
    for (auto& s : sockets) {
      const std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
      boost::system::error_code ec;
      boost::asio::write(*s, boost::asio::buffer(req), ec);
      char buf[64];
      const size_t n = s->read_some(boost::asio::buffer(buf), ec);
      if (ec || n == 0 || std::string(buf, n).rfind("HTTP/1.1 429", 0) == 0) ++refused;
    }
    CHECK(refused >= 30);
  }
  std::this_thread::sleep_for(1100ms);  // a new rate window
  // Over the per-session party limit: refused as over a limit, with a reason.
  auto created = client::create_session(dealer.endpoint(), {8, 5, "too many", 1000, {}, {}});
  REQUIRE_FALSE(created.ok());
  CHECK(created.error().kind == client::ClientErrorKind::OverLimit);
  CHECK(created.error().detail.find("at most 4 parties") != std::string::npos);
  // And a normal session still completes.
  const std::string session = create_session(dealer, 8, 2);
  check_all_succeeded(run_parties(dealer, session, {1, 2}), 2);
}

TEST_CASE("TLS: the whole protocol over wss://, https:// endpoints, and a wrong CA refused") {
  const TestPki pki;
  DealerProcess dealer({"--tls-cert", pki.server_cert, "--tls-key", pki.server_key});
  client::Options options;
  options.ca_file = pki.ca_cert;
  client::Endpoint endpoint = dealer.endpoint();
  endpoint.tls = true;
  auto created = client::create_session(endpoint, {16, 2, "over tls", 20000, {}, {}}, options);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  remember_bits(created->session_id, 16);
  boost::asio::io_context ioc;
  std::vector<std::optional<client::ClientResult<client::PartyOutcome>>> results(2);
  SystemRandom rng;
  for (size_t i = 0; i < 2; ++i)
    client::async_join_and_prove(ioc, endpoint, created->session_id,
                                 stated(created->session_id, 40 + i, Scalar::random(rng)), options,
                                 [&results, i](auto r) { results[i].emplace(std::move(r)); });
  ioc.run();
  for (const auto& r : results) {
    REQUIRE(r.has_value());
    CHECK_MESSAGE(r->ok(), client::describe(r->error()));
  }
  CHECK(https_get(dealer.port(), "/healthz", pki.ca_cert) == std::pair<int, std::string>{200, "ok\n"});
  CHECK(https_get(dealer.port(), "/v1/sessions/" + created->session_id, pki.ca_cert).first == 200);

  // A client that trusts another CA refuses the dealer, with a clear error.
  client::Options wrong = options;
  wrong.ca_file = pki.other_ca_cert;
  auto refused = client::create_session(endpoint, {16, 2, "x", 0, {}, {}}, wrong);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == client::ClientErrorKind::Transport);
  CHECK(refused.error().detail.find("certificate verify failed") != std::string::npos);
  // Plain ws:// to a TLS dealer does not get in either.
  auto plain = client::create_session(dealer.endpoint(), {16, 2, "x", 0, {}, {}}, {});
  REQUIRE_FALSE(plain.ok());
  CHECK_MESSAGE(plain.error().detail.find("is the URL wss://?") != std::string::npos, client::describe(plain.error()));
  // Asking by name to skip verification is the only way past a CA we do not trust.
  wrong.insecure_skip_verify = true;
  CHECK(client::create_session(endpoint, {16, 2, "x", 0, {}, {}}, wrong).ok());
}

TEST_CASE("/healthz, /metrics and unknown paths over HTTP") {
  DealerProcess dealer;
  CHECK(http_get(dealer.port(), "/healthz") == std::pair<int, std::string>{200, "ok\n"});
  const auto [status, metrics] = http_get(dealer.port(), "/metrics");
  CHECK(status == 200);
  for (const char* name : {"bp_sessions_started_total", "bp_sessions_completed_total", "bp_parties_connected",
                           "bp_bytes_in_total", "bp_bytes_out_total"})
    CHECK(metrics.find(name) != std::string::npos);
  CHECK(http_get(dealer.port(), "/nope").first == 404);
  CHECK(http_get(dealer.port(), "/v1/sessions/" + std::string(32, '0')).first == 404);
  CHECK(http_get(dealer.port(), "/v1/sessions/00").first == 400);  // not a session id at all
}

TEST_CASE("outcomes are durable: SIGKILL right after a session, restart, read the proof back") {
  char dir_template[] = "/tmp/bp-db-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string db = std::string(dir_template) + "/outcomes.db";
  std::string session;
  std::string proof_hex;
  {
    DealerProcess dealer({"--record", db});
    session = create_session(dealer, 8, 2);
    const Outcomes o = run_parties(dealer, session, {3, 4});
    check_all_succeeded(o, 2);
    proof_hex = to_hex(o.results[0]->result.proof.to_bytes());
    dealer.kill_hard();
  }
  DealerProcess restarted({"--record", db});
  const auto [status, body] = http_get(restarted.port(), "/v1/sessions/" + session);
  CHECK(status == 200);
  CHECK(body.find("\"status\":\"completed\"") != std::string::npos);
  CHECK(body.find("\"proof\":\"" + proof_hex + "\"") != std::string::npos);
  CHECK(restarted.terminate_and_wait() == 0);  // and SIGTERM exits cleanly
  std::remove(db.c_str());
}

TEST_CASE("the session is named in the URL path, so a load balancer can route create and joins alike") {
  DealerProcess dealer;
  // The operator proposes the id; the client puts it in the path of the create and the joins.
  const std::string id = "0123456789abcdef0123456789abcdef";
  auto endpoint = *client::parse_endpoint("ws://127.0.0.1:" + std::to_string(dealer.port()) + "/bp/");
  CHECK(endpoint.path_prefix == "/bp");
  auto created = client::create_session(endpoint, {8, 2, "routed", 20000, id, {}});
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  CHECK(created->session_id == id);
  remember_bits(id, 8);
  auto again = client::create_session(endpoint, {8, 2, "routed", 20000, id, {}});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().detail == "session id in use");
  // A frame naming another session than its URL is refused.
  RawParty misrouted(dealer.port(), "/bp/v1/session/" + std::string(32, 'a'));
  misrouted.send(wire::JoinSessionMsg{id, {}, std::nullopt});
  auto refused = misrouted.receive();
  REQUIRE(refused.has_value());
  REQUIRE(std::holds_alternative<wire::AbortMsg>(*refused));
  CHECK(std::get<wire::AbortMsg>(*refused).reason.find("the URL names session") != std::string::npos);
  // The parties join through the same prefixed URL.
  check_all_succeeded(run_parties_at(endpoint, id, {7, 8}, {client::Options{}}), 2);
}

TEST_CASE("POST /v1/verify batch-verifies proofs sent as JSON lines") {
  DealerProcess dealer;
  const std::string session = create_session(dealer, 16, 2);
  const auto outcomes = run_parties(dealer, session, {1, 2});
  check_all_succeeded(outcomes, 2);
  const auto& result = outcomes.results[0]->result;
  const std::string line = wire::proof_json(result.bits, result.label, result.commitments, result.proof.to_bytes());
  auto [status, body] = http_post(dealer.port(), "/v1/verify", line + "\n" + line + "\n");
  CHECK(status == 200);
  CHECK(body == "{\"ok\":true,\"proofs\":2,\"failed\":[]}\n");
  // The same proof under another label fails, and is named.
  const std::string wrong = wire::proof_json(result.bits, "another label", result.commitments, result.proof.to_bytes());
  std::tie(status, body) = http_post(dealer.port(), "/v1/verify", line + "\n" + wrong + "\n");
  CHECK(status == 200);
  CHECK(body == "{\"ok\":false,\"proofs\":2,\"failed\":[1]}\n");
  std::tie(status, body) = http_post(dealer.port(), "/v1/verify", "{\"bits\":7}\n");
  CHECK(status == 400);
  CHECK(body.find("line 1: bits") != std::string::npos);

  // A bounded statement (42 in [40, 50]) as bp prove --min/--max prints it: the dealer derives
  // the positions from the commitment and the bounds; against other bounds it fails.
  SystemRandom rng;
  const PedersenGens pc_gens;
  const uint64_t value = 42;
  const Scalar gamma = Scalar::random(rng);
  const std::vector<ValueBounds> bounds{{40, 50}};
  auto witness = bounded_witness({&value, 1}, {&gamma, 1}, bounds, 8);
  REQUIRE(witness.ok());
  Transcript transcript(bounded_label("b", bounds));
  auto proved =
      RangeProof::prove_multiple(BulletproofGens(8, 2), pc_gens, transcript, witness->values, witness->blindings, 8);
  REQUIRE(proved.ok());
  const auto bounded_line = [&](const char* bounds_json) {
    return "{\"bits\":8,\"label\":\"b\",\"bounds\":" + std::string(bounds_json) + ",\"commitments\":[\"" +
           to_hex(pc_gens.commit(Scalar::from_u64(value), gamma).compress().bytes) + "\"],\"proof\":\"" +
           to_hex(proved->proof.to_bytes()) + "\"}\n";
  };
  std::tie(status, body) =
      http_post(dealer.port(), "/v1/verify",
                bounded_line("[{\"min\":40,\"max\":50}]") + line + "\n" + bounded_line("[{\"min\":41,\"max\":50}]"));
  CHECK(status == 200);
  CHECK(body == "{\"ok\":false,\"proofs\":3,\"failed\":[2]}\n");
  std::tie(status, body) = http_post(dealer.port(), "/v1/verify", bounded_line("[{\"min\":60,\"max\":50}]"));
  CHECK(status == 400);
  CHECK(body.find("line 1: bounds") != std::string::npos);
}

TEST_CASE("a party whose connection drops mid-session takes its seat back by itself and the session completes") {
  DealerProcess dealer({"--reconnect-grace-ms", "5000"});
  const std::string session = create_session(dealer, 8, 2, 20000);
  // The proxied party loses its connection as the bit challenge (the dealer's third frame,
  // after Hello and Joined) starts to arrive: it has a seat and has sent its commitment.
  CuttingProxy proxy(dealer.port(), 3);
  client::ClientResult<client::PartyOutcome> cut = client::ClientError{client::ClientErrorKind::Transport, "", {}};
  std::thread through_proxy(
      [&] { cut = client::join_and_prove(proxy.endpoint(), session, stated(session, 21, Scalar::from_u64(5))); });
  wait_for_seated(dealer, 1);
  const auto direct = run_parties(dealer, session, {22});
  through_proxy.join();
  REQUIRE_MESSAGE(cut.ok(), client::describe(cut.error()));
  REQUIRE_MESSAGE(direct.results[0].ok(), client::describe(direct.results[0].error()));
  CHECK(proxy.connections() == 2);
  CHECK(cut->result.proof.to_bytes() == direct.results[0]->result.proof.to_bytes());
  CHECK(dealer.log().find("resumed its seat") != std::string::npos);

  // Without reconnection the same cut is a transport error, and the session is aborted.
  const std::string second = create_session(dealer, 8, 2, 20000);
  CuttingProxy strict(dealer.port(), 3);
  client::Options no_retry;
  no_retry.reconnect.attempts = 0;
  client::ClientResult<client::PartyOutcome> lost = client::ClientError{client::ClientErrorKind::Refused, "", {}};
  std::thread lost_thread([&] {
    lost = client::join_and_prove(strict.endpoint(), second, stated(second, 1, Scalar::from_u64(2)), no_retry);
  });
  wait_for_seated(dealer, 1);
  const auto other = run_parties(dealer, second, {3});
  lost_thread.join();
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.error().kind == client::ClientErrorKind::Transport);
  REQUIRE_FALSE(other.results[0].ok());
  CHECK(other.results[0].error().kind == client::ClientErrorKind::Aborted);
}

TEST_CASE("a dealer restarted on its record, killed or stopped, goes on with its sessions where they were") {
  for (const bool graceful : {false, true}) {
    CAPTURE(graceful);
    char dir_template[] = "/tmp/bp-restart-XXXXXX";
    REQUIRE(mkdtemp(dir_template) != nullptr);
    const std::string db = std::string(dir_template) + "/outcomes.db";
    auto dealer = std::make_unique<DealerProcess>(std::vector<std::string>{"--record", db});
    const uint16_t port = dealer->port();
    const std::string session = create_session(*dealer, 8, 2, 20000);
    // The first party is seated and has committed; the second has not come yet.
    client::Options patient;
    patient.reconnect.first_delay = 100ms;
    patient.reconnect.give_up_after = 20s;
    std::vector<client::PartyEvent> events;
    std::mutex events_mutex;
    patient.on_event = [&](const client::PartyEvent& e) {
      std::lock_guard lock(events_mutex);
      events.push_back(e);
    };
    Outcomes first;
    std::thread waiting([&] { first = run_parties_at(dealer->endpoint(), session, {5}, {patient}); });
    wait_for_seated(*dealer, 1);
    // Seated on the dealer's side is not yet seated on the party's: until its Joined arrives,
    // a lost dealer makes it join afresh rather than resume, and the check below needs a resume.
    const auto party_joined = [&] {
      std::lock_guard lock(events_mutex);
      return std::any_of(events.begin(), events.end(),
                         [](const client::PartyEvent& e) { return e.kind == client::PartyEvent::Kind::Joined; });
    };
    for (int i = 0; i < 400 && !party_joined(); ++i) std::this_thread::sleep_for(25ms);
    REQUIRE(party_joined());
    if (graceful)
      CHECK(dealer->terminate_and_wait() == 0);  // a rolling restart: released, parties sent away
    else
      dealer->kill_hard();  // the machine lost
    dealer = std::make_unique<DealerProcess>(
        std::vector<std::string>{"--record", db, "--listen", "127.0.0.1:" + std::to_string(port)});
    const Outcomes second = run_parties(*dealer, session, {7});
    waiting.join();
    REQUIRE_MESSAGE(first.results[0].ok(), client::describe(first.results[0].error()));
    REQUIRE_MESSAGE(second.results[0].ok(), client::describe(second.results[0].error()));
    CHECK(first.results[0]->result.proof.to_bytes() == second.results[0]->result.proof.to_bytes());
    CHECK(first.results[0]->position == 0);
    CHECK(dealer->log().find("session taken over") != std::string::npos);
    const auto [status, body] = http_get(port, "/v1/sessions/" + session);
    CHECK(status == 200);
    CHECK(body.find("\"proof\":\"" + to_hex(first.results[0]->result.proof.to_bytes()) + "\"") != std::string::npos);
    // The first party joined once, resumed its seat after the restart, and answered each
    // challenge once (a replay, if any, of the same challenge).
    std::lock_guard lock(events_mutex);
    std::map<int, std::set<std::string>> answered;
    int joined = 0, resumed = 0;
    for (const auto& e : events) {
      joined += e.kind == client::PartyEvent::Kind::Joined;
      resumed += e.kind == client::PartyEvent::Kind::Resumed;
      if (e.kind == client::PartyEvent::Kind::Answered || e.kind == client::PartyEvent::Kind::Replayed)
        answered[e.round].insert(e.challenge);
    }
    CHECK(joined == 1);
    CHECK(resumed >= 1);
    CHECK(answered[1].size() == 1);
    CHECK(answered[2].size() == 1);
    std::filesystem::remove_all(dir_template);
  }
}

TEST_CASE("a party that comes back after its session ended gets the outcome from the record") {
  DealerProcess dealer({"--reconnect-grace-ms", "5000"});
  const std::string session = create_session(dealer, 8, 1, 20000);
  Seated seated = join_raw(dealer, session);
  ManualParty manual = commit_manually(seated, 12);
  auto [awaiting, share] = answer_challenges(seated, manual);
  seated.raw().send(share);
  auto result = seated.raw().receive();
  REQUIRE(result.has_value());
  REQUIRE(std::holds_alternative<wire::ResultMsg>(*result));
  // As if the result had been lost with the connection: the seat's token gets the record.
  RawParty back(dealer.port());
  back.send(wire::JoinSessionMsg{session, seated.joined.resume_token, std::nullopt});
  auto answer = back.receive();
  REQUIRE(answer.has_value());
  REQUIRE(std::holds_alternative<wire::ResultMsg>(*answer));
  const auto& from_record = std::get<wire::ResultMsg>(*answer);
  CHECK(wire::attestation_valid(from_record));
  CHECK(from_record.result.proof.to_bytes() == std::get<wire::ResultMsg>(*result).result.proof.to_bytes());
  CHECK(awaiting.check_result(from_record.result).ok());
  // Without a token: only that the session has ended.
  RawParty stranger(dealer.port());
  stranger.send(wire::JoinSessionMsg{session, {}, std::nullopt});
  auto refused = stranger.receive();
  REQUIRE(refused.has_value());
  REQUIRE(std::holds_alternative<wire::AbortMsg>(*refused));
  CHECK(std::get<wire::AbortMsg>(*refused).reason == "the session has ended");
}

TEST_CASE("the largest bounded session fits every decoder: 256 positions, recorded, taken over mid-session") {
  char dir_template[] = "/tmp/bp-wide-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string db = std::string(dir_template) + "/outcomes.db";
  const std::vector<std::string> flags = {"--record", db, "--max-positions", "256"};
  auto dealer = std::make_unique<DealerProcess>(flags);
  const uint16_t port = dealer->port();
  // Two parties of 64 values, each value within wide two-sided bounds: 128 values, 256
  // positions, about 42 bytes of label per value.
  const std::vector<ValueBounds> bounds(128, ValueBounds{1000000000000000000, UINT64_MAX - 1});
  client::SessionRequest request{64, 2, "wide", 60000, {}, {}};
  request.values_per_party = {64, 64};
  request.bounds = bounds;
  auto created = client::create_session(dealer->endpoint(), request);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  CHECK(created->transcript_label.size() > 5000);
  const auto party_values = [&](uint64_t first) {
    client::PartyValues input;
    input.bounds = std::vector<ValueBounds>(bounds.begin(), bounds.begin() + 64);
    SystemRandom rng;
    for (uint64_t i = 0; i < 64; ++i) {
      input.values.push_back(1000000000000000000 + first + i * 1000003);
      input.blindings.push_back(Scalar::random(rng));
    }
    return input;
  };
  client::Options patient;
  patient.timeout = 120s;
  patient.reconnect.first_delay = 100ms;
  patient.reconnect.give_up_after = 30s;
  std::atomic<bool> joined{false};
  patient.on_event = [&](const client::PartyEvent& e) {
    joined = joined || e.kind == client::PartyEvent::Kind::Joined;
  };
  client::ClientResult<client::PartyOutcome> first = client::ClientError{client::ClientErrorKind::Transport, "", {}};
  std::thread waiting(
      [&] { first = client::join_and_prove(dealer->endpoint(), created->session_id, party_values(2), patient); });
  // Before its Joined event the party builds the generators of 256 positions: about 4 s of
  // CPU on a 2-core VM, many times that under ThreadSanitizer.
  for (int i = 0; i < 3600 && !joined; ++i) std::this_thread::sleep_for(25ms);
  REQUIRE(joined);
  dealer->kill_hard();  // mid-session: the first party has committed, the second not come
  std::vector<std::string> again = flags;
  again.insert(again.end(), {"--listen", "127.0.0.1:" + std::to_string(port)});
  dealer = std::make_unique<DealerProcess>(again);
  client::Options options;
  options.timeout = 120s;
  auto second = client::join_and_prove(dealer->endpoint(), created->session_id, party_values(7), options);
  waiting.join();
  REQUIRE_MESSAGE(first.ok(), client::describe(first.error()));
  REQUIRE_MESSAGE(second.ok(), client::describe(second.error()));
  CHECK(first->positions == 128);
  CHECK(second->position == 128);
  CHECK(first->result.proof.to_bytes() == second->result.proof.to_bytes());
  CHECK(first->result.label == created->transcript_label);
  CHECK(dealer->log().find("session taken over") != std::string::npos);
  const auto [status, body] = http_get(port, "/v1/sessions/" + created->session_id);
  CHECK(status == 200);
  CHECK(body.find("\"proof\":\"" + to_hex(first->result.proof.to_bytes()) + "\"") != std::string::npos);
  std::filesystem::remove_all(dir_template);
}

TEST_CASE("a join whose last step ran off its connection's thread returns with its result, not at its deadline") {
  // n = 64 over 32 positions: past the size from which a party's steps run on a thread of
  // their own. The connection must still be closed when the result's check hands its step
  // back (it had let go of it), or the join waits out its whole deadline holding the result.
  DealerProcess dealer;
  client::SessionRequest request{64, 2, "offloaded", 30000, {}, {}};
  request.values_per_party = {16, 16};
  auto created = client::create_session(dealer.endpoint(), request);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  client::Options options;
  options.timeout = 90s;
  SystemRandom rng;
  const auto values = [&] {
    client::PartyValues input;
    for (uint64_t i = 0; i < 16; ++i) {
      input.values.push_back(1000 + i);
      input.blindings.push_back(Scalar::random(rng));
    }
    return input;
  };
  auto a_values = values(), b_values = values();
  const auto t0 = std::chrono::steady_clock::now();
  client::ClientResult<client::PartyOutcome> a = client::ClientError{client::ClientErrorKind::Transport, "", {}};
  std::thread first([&] { a = client::join_and_prove(dealer.endpoint(), created->session_id, a_values, options); });
  auto b = client::join_and_prove(dealer.endpoint(), created->session_id, b_values, options);
  first.join();
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE_MESSAGE(a.ok(), client::describe(a.error()));
  REQUIRE_MESSAGE(b.ok(), client::describe(b.error()));
  // The session is done in well under a second here (tens under the sanitizers); the
  // deadline is 90 s.
  CHECK(took < 45s);
}

// A party of wire 1.6 reads an Abort's reason, culprits and retry, and drops the successor
// (a field it does not know). In a quorum session the abort that starts a successor must
// therefore end such a party plainly, in words, while the 1.7 parties go on without it.
TEST_CASE("a party that reads only wire 1.6's fields is told in words that it cannot follow a successor") {
  DealerProcess dealer({"--reconnect-grace-ms", "500"});
  client::SessionRequest request;
  request.bits = 8;
  request.parties = 4;
  request.label = "older";
  request.round_timeout_ms = 1500;
  request.min_parties = 2;
  request.join_window_ms = 5000;
  auto created = client::create_session(dealer.endpoint(), request, {});
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  const std::string session = created->session_id;
  remember_bits(session, 8);
  Outcomes followers;  // two 1.7 parties, which follow a successor by themselves
  std::thread current([&] { followers = run_parties(dealer, session, {5, 6}, 20s); });
  // The set is fixed once all four are present: the silent party and the old one join
  // together, and each is told its seat only then.
  std::optional<Seated> silent;
  std::thread silent_joins([&] { silent.emplace(join_raw(dealer, session)); });
  Seated old = join_raw(dealer, session);
  silent_joins.join();
  REQUIRE(silent.has_value());
  auto manual = commit_manually(old, 7);  // the old party commits; the silent one never does
  auto told = old.raw().receive();
  REQUIRE(told.has_value());
  REQUIRE(std::holds_alternative<wire::AbortMsg>(*told));
  const auto& abort = std::get<wire::AbortMsg>(*told);
  // What a 1.6 party acts on: the culprit is the silent party, the old one is not blamed, no
  // retry is offered, and the reason names the successor and says it cannot follow it.
  CHECK(abort.blamed == std::vector<size_t>{silent->joined.position});
  CHECK(abort.reconnect_after_ms == 0);
  REQUIRE_FALSE(abort.successor.empty());
  CHECK(abort.reason.find("go on in successor session " + abort.successor +
                          ", which a party before wire 1.7 cannot follow") != std::string::npos);
  old.raw().close();
  silent->raw().close();
  current.join();
  // The successor's window ends without the old party: the two 1.7 parties prove alone.
  check_all_succeeded(followers, 2);
  for (const auto& r : followers.results) CHECK(r->chain == std::vector<std::string>{session});
}
