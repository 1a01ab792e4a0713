// A party proves only what it agreed to, against a dealer run by someone else: a scripted
// dealer on loopback offers seats that differ from the party's statement, labels for other
// sessions or bounds, results that are not the session's, frames no dealer should send, and
// a line that keeps dropping. The party's answer before it commits must be the same whatever
// its values are; everything else must end the join at once, with the cause named.
#include <doctest/doctest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "bp/client/party_client.hpp"
#include "bp/mpc/dealer.hpp"
#include "bp/mpc/session.hpp"
#include "bp/random.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"
#include "bp/wire/identity.hpp"
#include "scripted_dealer.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

const std::string kSession(32, 'a');

// A seat as a dealer would offer it: the label it would compose for these terms.
wire::JoinedMsg seat(size_t bits, size_t positions_in_session, size_t position, std::vector<ValueBounds> all_bounds,
                     size_t own_values = 1, std::string session = kSession) {
  wire::JoinedMsg joined;
  joined.position = position;
  joined.bits = bits;
  joined.session_positions = positions_in_session;
  joined.transcript_label = mpc::session_transcript_label(session, bits, positions_in_session, "fake", all_bounds);
  joined.resume_token.assign(16, 1);
  if (all_bounds.empty()) {
    joined.positions = own_values;
  } else {
    size_t at = 0, value = 0;
    while (at < position) at += all_bounds[value++].positions();
    joined.bounds.assign(all_bounds.begin() + static_cast<std::ptrdiff_t>(value),
                         all_bounds.begin() + static_cast<std::ptrdiff_t>(value + own_values));
    joined.positions = bounded_positions(joined.bounds);
  }
  return joined;
}

struct Answer {
  std::vector<uint8_t> reply;  // the party's first frame after the seat (empty: none)
  client::ClientResult<client::PartyOutcome> outcome{client::ClientError{}};
};

// The party's answer to one seat offer, for these values and this statement.
Answer answer_to(const wire::JoinedMsg& offer, client::PartyValues input) {
  Answer answer;
  {
    ScriptedDealer dealer([&](Connection& c, int index) {
      if (index != 0) return;
      c.hello(dealer.key);
      if (!c.receive()) return;
      c.send(offer);
      answer.reply = c.receive_bytes();
    });
    answer.outcome = client::join_and_prove(dealer.endpoint(), kSession, std::move(input), quick_options());
  }  // the dealer's thread has read the reply
  return answer;
}

client::PartyValues values_of(std::vector<uint64_t> values, std::optional<std::vector<ValueBounds>> bounds = {},
                              size_t bits = 64) {
  std::vector<Scalar> blindings;
  for (size_t i = 0; i < values.size(); ++i) blindings.push_back(Scalar::from_u64(1000 + i));
  return client::PartyValues{std::move(values), std::move(blindings), std::move(bounds), bits};
}

}  // namespace

TEST_CASE("a seat that is not the party's statement is refused alike whatever the values") {
  struct Offer {
    const char* what;
    wire::JoinedMsg joined;
    std::optional<std::vector<ValueBounds>> stated;
    uint64_t inside, outside;  // a value the offer would admit, and one it would not
  };
  const std::vector<Offer> offers = {
      {"bounds [0, 1000] for a party that stated none", seat(64, 2, 0, {{0, 1000}}), std::nullopt, 5, 5000},
      {"bounds [42, 42]: a guess confirmed in one session", seat(64, 2, 0, {{42, 42}}), std::nullopt, 42, 43},
      {"a minimum of 1000", seat(64, 1, 0, {{1000, std::nullopt}}), std::nullopt, 2000, 5},
      {"n = 8 for a party that proves 64 bits", seat(8, 1, 0, {}), std::nullopt, 5, 300},
      {"other bounds than the stated [100, 10^6]", seat(64, 2, 0, {{100, 500}}),
       std::vector<ValueBounds>{{100, 1000000}}, 200, 900},
      {"a seat of two values for a party of one", seat(64, 2, 0, {}, 2), std::nullopt, 5, 300},
  };
  for (const auto& offer : offers) {
    CAPTURE(std::string(offer.what));
    const Answer in = answer_to(offer.joined, values_of({offer.inside}, offer.stated));
    const Answer out = answer_to(offer.joined, values_of({offer.outside}, offer.stated));
    REQUIRE_FALSE(in.outcome.ok());
    REQUIRE_FALSE(out.outcome.ok());
    // Not a commitment: the party withdrew, and said the same thing either way.
    auto reply = wire::decode(in.reply);
    REQUIRE(reply.ok());
    CHECK(std::holds_alternative<wire::AbortMsg>(*reply));
    CHECK(in.reply == out.reply);
    CHECK(in.outcome.error().kind == client::ClientErrorKind::Refused);
    CHECK(in.outcome.error().kind == out.outcome.error().kind);
    CHECK(in.outcome.error().detail == out.outcome.error().detail);
  }
}

TEST_CASE("a value outside the party's own statement is refused before connecting") {
  ScriptedDealer dealer([](Connection&, int) {});
  const std::vector<std::pair<client::PartyValues, const char*>> cases = {
      {values_of({300}, std::nullopt, 8), "not below 2^8"},
      {values_of({99}, std::vector<ValueBounds>{{100, 1000}}), "outside its bounds"},
      {values_of({100 + 256}, std::vector<ValueBounds>{{100, std::nullopt}}, 8), "outside its bounds"},
  };
  for (const auto& [input, why] : cases) {
    auto outcome = client::join_and_prove(dealer.endpoint(), kSession, input, quick_options());
    REQUIRE_FALSE(outcome.ok());
    CHECK(outcome.error().kind == client::ClientErrorKind::Refused);
    CHECK(outcome.error().detail.find(why) != std::string::npos);
  }
  CHECK(dealer.connections() == 0);
}

TEST_CASE("a transcript label that is not the session's is refused before committing") {
  const ValueBounds ours{100, 1000};
  struct Lie {
    const char* what;
    wire::JoinedMsg joined;
  };
  std::vector<Lie> lies;
  {
    auto other_session = seat(64, 2, 0, {ours});
    other_session.transcript_label = mpc::session_transcript_label(std::string(32, 'b'), 64, 2, "fake", {{ours}});
    lies.push_back({"another session's label", other_session});
    auto shifted = seat(64, 2, 0, {ours});  // bounds a+d..b+d: the pair still adds up
    shifted.transcript_label =
        mpc::session_transcript_label(kSession, 64, 2, "fake", std::vector<ValueBounds>{{150, 1050}});
    lies.push_back({"a label for other bounds", shifted});
    auto other_bits = seat(64, 2, 0, {ours});
    other_bits.transcript_label = mpc::session_transcript_label(kSession, 32, 2, "fake", {{ours}});
    lies.push_back({"a label for another bit size", other_bits});
    auto unbounded = seat(64, 2, 0, {ours});
    unbounded.transcript_label = mpc::session_label(kSession, 64, 2, "fake");
    lies.push_back({"a label without the bounds", unbounded});
  }
  for (const auto& lie : lies) {
    CAPTURE(std::string(lie.what));
    const Answer answer = answer_to(lie.joined, values_of({500}, std::vector<ValueBounds>{ours}));
    REQUIRE_FALSE(answer.outcome.ok());
    CHECK(answer.outcome.error().kind == client::ClientErrorKind::MaliciousDealer);
    CHECK(answer.outcome.error().detail.find("label") != std::string::npos);
    auto reply = wire::decode(answer.reply);
    REQUIRE(reply.ok());
    CHECK(std::holds_alternative<wire::AbortMsg>(*reply));
  }
}

namespace {

// A party's items of one round, sent alone or batched.
template <class Item, class Batch>
std::vector<Item> items_of(const std::optional<wire::Message>& m) {
  if (!m) return {};
  if (auto* one = std::get_if<Item>(&*m)) return {*one};
  if (auto* many = std::get_if<Batch>(&*m)) return many->items;
  return {};
}

enum class Tamper { None, DropBounds, OtherCommitment, OtherLabel };

// Runs the real protocol with the party as the session's only seat, then hands it the
// result as `tamper` says, signed by the dealer's key.
client::ClientResult<client::PartyOutcome> run_with_result(Tamper tamper) {
  const std::vector<ValueBounds> bounds{{100, 1000}};
  const wire::JoinedMsg joined = seat(64, 2, 0, bounds);
  ScriptedDealer dealer([&](Connection& c, int index) {
    if (index != 0) return;
    c.hello(dealer.key);
    if (!c.receive()) return;
    c.send(joined);
    static const BulletproofGens gens(64, 2);
    static const PedersenGens pc;
    const mpc::SessionParams params{64, 2, joined.transcript_label};
    auto d0 = mpc::DealerAwaitingBitCommitments::create(gens, pc, params);
    auto d1 = std::move(*d0).receive_bit_commitments(items_of<BitCommitment, wire::BitCommitments>(c.receive()));
    if (!d1) return;
    c.send(d1->second);
    auto d2 =
        std::move(d1->first).receive_poly_commitments(items_of<PolyCommitment, wire::PolyCommitments>(c.receive()));
    if (!d2) return;
    c.send(d2->second);
    auto result = std::move(d2->first).receive_shares(items_of<ProofShare, wire::ProofShares>(c.receive()));
    if (!result) return;
    wire::ResultMsg message{*result, std::nullopt, bounds};
    if (tamper == Tamper::DropBounds) message.bounds.clear();
    if (tamper == Tamper::OtherCommitment) message.result.commitments[0] = message.result.commitments[1];
    if (tamper == Tamper::OtherLabel) message.result.label += " ";
    message.attestation =
        wire::Attestation{kSession, dealer.key.public_key(),
                          dealer.key.sign(wire::result_statement(dealer.key.public_key(), kSession, message.result))};
    c.send(message);
    c.receive_bytes();
  });
  return client::join_and_prove(dealer.endpoint(), kSession, values_of({500}, bounds), quick_options());
}

}  // namespace

TEST_CASE("the result must be the session's: its bounds, its label, our commitments") {
  auto honest = run_with_result(Tamper::None);
  REQUIRE_MESSAGE(honest.ok(), client::describe(honest.error()));
  CHECK(honest->bounds == std::vector<ValueBounds>{{100, 1000}});
  for (const Tamper tamper : {Tamper::DropBounds, Tamper::OtherCommitment, Tamper::OtherLabel}) {
    CAPTURE(static_cast<int>(tamper));
    auto outcome = run_with_result(tamper);
    REQUIRE_FALSE(outcome.ok());
    CHECK_MESSAGE(outcome.error().kind == client::ClientErrorKind::MaliciousDealer, client::describe(outcome.error()));
  }
}

TEST_CASE("a frame no dealer should send ends the join at once, as a protocol error that says why") {
  struct Bad {
    const char* what;
    std::vector<uint8_t> frame;
    const char* named;
  };
  const std::vector<Bad> bad = {
      {"a 4 MiB frame", std::vector<uint8_t>(4 << 20, 0x42), "over our limit"},
      {"bytes that are no Envelope", {0xff, 0xff, 0xff, 0x01}, ""},
  };
  for (const auto& b : bad) {
    CAPTURE(std::string(b.what));
    ScriptedDealer dealer([&](Connection& c, int) {
      c.hello(dealer.key);
      if (!c.receive()) return;
      c.send_bytes(b.frame);
      c.receive_bytes();
    });
    client::Options options;
    options.timeout = 6s;  // reconnections as by default
    const auto started = std::chrono::steady_clock::now();
    auto outcome = client::join_and_prove(dealer.endpoint(), kSession, values_of({5}), options);
    const auto took = std::chrono::steady_clock::now() - started;
    REQUIRE_FALSE(outcome.ok());
    CHECK_MESSAGE(outcome.error().kind == client::ClientErrorKind::Protocol, client::describe(outcome.error()));
    CHECK(outcome.error().detail.find(b.named) != std::string::npos);
    CHECK(dealer.connections() == 1);
    CHECK(took < 3s);
  }
}

TEST_CASE("--timeout-ms bounds the whole join, reconnections included") {
  // A dealer whose line drops right after its Hello, every time: a loss of the path, retried.
  ScriptedDealer dealer([&](Connection& c, int) {
    c.hello(dealer.key);
    c.receive();
    c.drop();
  });
  client::Options options;
  options.timeout = 1500ms;
  options.reconnect.first_delay = 100ms;
  const auto started = std::chrono::steady_clock::now();
  auto outcome = client::join_and_prove(dealer.endpoint(), kSession, values_of({5}), options);
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(outcome.ok());
  CHECK_MESSAGE(outcome.error().kind == client::ClientErrorKind::Timeout, client::describe(outcome.error()));
  CHECK(outcome.error().detail.find("the whole join") != std::string::npos);
  CHECK(dealer.connections() >= 2);
  CHECK(took < 3s);
}
