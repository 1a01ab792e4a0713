// Gadget sessions (wire 1.5): each party proves its own gadget over its own values and the
// dealer aggregates one R1CS proof of the whole list. Against the real bp-dealer: the proof
// the list verifies, a party stating another gadget refused before it commits, a party
// sending items of another size named, a dealer restarted on its record mid-session. Against
// a scripted dealer: the party's refusals of seats, labels and broadcasts it never agreed to,
// the same whatever its values are.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <sqlite3.h>

#include "bp/hex.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/wire/json.hpp"
#include "harness.hpp"
#include "scripted_dealer.hpp"
#include "scripted_gadget_seat.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;

namespace {

const std::string kList = "shuffle:3;range:32;range:64;example:9";

// Party j's statement under kList: values that satisfy its item, blindings of its own.
client::PartyGadget party_of(size_t seat) {
  static const std::vector<std::pair<std::string, std::vector<uint64_t>>> statements = {
      {"shuffle:3", {3, 9, 4, 9, 4, 3}},
      {"range:32", {77}},
      {"range:64", {UINT64_MAX}},
      {"example:9", {1, 2, 3, 4, 12}},  // (1 + 2)(3 + 4) = 12 + 9
  };
  client::PartyGadget p{statements[seat].first, statements[seat].second, {}};
  for (size_t k = 0; k < p.values.size(); ++k) p.blindings.push_back(Scalar::from_u64(100 * seat + k + 1));
  return p;
}

std::string create_gadget_session(const DealerProcess& dealer, const std::string& list, uint32_t timeout_ms = 20000) {
  client::SessionRequest request;
  request.parties = GadgetList::parse(list)->items().size();
  request.label = "exchanges";
  request.round_timeout_ms = timeout_ms;
  request.gadgets = list;
  auto created = client::create_session(dealer.endpoint(), request);
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  return created->session_id;
}

using GadgetResult = client::ClientResult<client::GadgetOutcome>;
GadgetResult not_yet() { return client::ClientError{client::ClientErrorKind::Transport, "not run", {}}; }

}  // namespace

TEST_CASE("a gadget session through the real dealer: one proof of the whole list, signed, in the record") {
  DealerProcess dealer;
  const std::string session = create_gadget_session(dealer, kList);
  std::vector<GadgetResult> results(4, not_yet());
  std::vector<std::thread> parties;
  for (size_t j = 0; j < 4; ++j)
    parties.emplace_back([&, j] { results[j] = client::join_gadget_session(dealer.endpoint(), session, party_of(j)); });
  for (auto& t : parties) t.join();
  const auto list = GadgetList::parse(kList);
  REQUIRE(list.ok());
  size_t first_commitment = 0;
  for (size_t j = 0; j < 4; ++j) {
    CAPTURE(j);
    REQUIRE_MESSAGE(results[j].ok(), client::describe(results[j].error()));
    const auto& r = results[j]->result;
    CHECK(results[j]->seat == j);
    CHECK(r.gadgets == list->text());
    CHECK(r.label == mpc::gadget_session_label(session, list->text(), "exchanges"));
    CHECK(r.proof.to_bytes() == results[0]->result.proof.to_bytes());
    CHECK(wire::attestation_valid(r));
    CHECK(verify_gadget_list(*list, r.label, r.commitments, r.proof).ok());
    // Our commitments in our seat's place: those of our own values and blindings.
    const auto mine = party_of(j);
    const PedersenGens pc;
    for (size_t k = 0; k < mine.values.size(); ++k)
      CHECK(r.commitments[first_commitment + k] ==
            pc.commit(Scalar::from_u64(mine.values[k]), mine.blindings[k]).compress());
    first_commitment += mine.values.size();
    CHECK(results[j]->bytes_sent > 0);
  }
  const auto [status, body] = http_get(dealer.port(), "/v1/sessions/" + session);
  CHECK(status == 200);
  CHECK(body.find("\"gadgets\":\"" + list->text() + "\"") != std::string::npos);
  CHECK(body.find("\"proof\":\"" + to_hex(results[0]->result.proof.to_bytes()) + "\"") != std::string::npos);
  // The result as the party prints it is a line POST /v1/verify checks, beside a range proof;
  // the same line under another label fails alone.
  const std::string line = wire::r1cs_result_json(results[0]->result, 0);
  auto relabelled = results[0]->result;
  relabelled.label += " (not it)";
  const auto [verified, answer] =
      http_post(dealer.port(), "/v1/verify", line + "\n" + wire::r1cs_result_json(relabelled) + "\n" + line + "\n");
  CHECK(verified == 200);
  CHECK(answer.find("\"ok\":false") != std::string::npos);
  CHECK(answer.find("\"proofs\":3") != std::string::npos);
  CHECK(answer.find("\"failed\":[1]") != std::string::npos);
  CHECK(http_post(dealer.port(), "/v1/verify", line).second.find("\"ok\":true") != std::string::npos);
}

TEST_CASE("a party stating another gadget than its seat's is refused before it commits, whatever its values") {
  DealerProcess dealer;
  const std::string session = create_gadget_session(dealer, "range:32;range:8");
  // Anonymous seats go to the first that fits: range:16 fits none.
  std::vector<std::string> reasons;
  for (uint64_t value : {5, 60000}) {
    auto refused =
        client::join_gadget_session(dealer.endpoint(), session, {"range:16", {value}, {Scalar::from_u64(1)}});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().kind == client::ClientErrorKind::Aborted);
    reasons.push_back(refused.error().detail);
  }
  CHECK(reasons[0] == reasons[1]);
  CHECK(reasons[0].find("the party states range:16") != std::string::npos);
  // A party that does not satisfy its own gadget never connects.
  auto outside = client::join_gadget_session(dealer.endpoint(), session, {"range:8", {300}, {Scalar::from_u64(1)}});
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().kind == client::ClientErrorKind::Refused);
  // A range party is not seated in a gadget session, nor a gadget party in a range session.
  auto ranged = client::join_and_prove(dealer.endpoint(), session, 5, Scalar::from_u64(2));
  REQUIRE_FALSE(ranged.ok());
  CHECK(ranged.error().detail.find("gadget session") != std::string::npos);
  const std::string ranges = create_session(dealer, 32, 1);
  auto gadget_in_ranges =
      client::join_gadget_session(dealer.endpoint(), ranges, {"range:32", {5}, {Scalar::from_u64(1)}});
  REQUIRE_FALSE(gadget_in_ranges.ok());
  CHECK(gadget_in_ranges.error().detail.find("proves ranges") != std::string::npos);
  // The refusals took no seat: the right parties still complete the session.
  GadgetResult a = not_yet(), b = not_yet();
  std::thread first([&] {
    a = client::join_gadget_session(dealer.endpoint(), session, {"range:32", {7}, {Scalar::from_u64(3)}});
  });
  b = client::join_gadget_session(dealer.endpoint(), session, {"range:8", {200}, {Scalar::from_u64(4)}});
  first.join();
  REQUIRE_MESSAGE(a.ok(), client::describe(a.error()));
  REQUIRE_MESSAGE(b.ok(), client::describe(b.error()));
  CHECK(b->seat == 1);
}

// When the honest party of a session with a lying one joins: the abort's reason and culprit
// reach it in every case, from the session or from the record, never a bare refusal.
enum class HonestJoins { WithTheLiar, AsTheLieArrives, AfterTheAbort };

TEST_CASE("a party whose first phase is not its gadget's size is named, and so is its share") {
  for (const auto when : {HonestJoins::WithTheLiar, HonestJoins::AsTheLieArrives, HonestJoins::AfterTheAbort}) {
    CAPTURE(static_cast<int>(when));
    DealerProcess dealer;
    const std::string session = create_gadget_session(dealer, "range:8;range:8");
    GadgetResult honest = not_yet();
    const auto join_honestly = [&] {
      honest = client::join_gadget_session(dealer.endpoint(), session, {"range:8", {7}, {Scalar::from_u64(3)}});
    };
    std::thread party;
    if (when == HonestJoins::WithTheLiar) party = std::thread(join_honestly);
    RawParty raw(dealer.port());
    auto join = raw.join_message(session, {}, nullptr);
    join.gadget = "range:8";
    raw.send(join);
    std::optional<wire::Message> joined;
    do joined = raw.receive();
    while (joined && !std::holds_alternative<wire::JoinedMsg>(*joined));
    REQUIRE(joined.has_value());
    const size_t seat = std::get<wire::JoinedMsg>(*joined).position;
    // A real first phase of range:8, with a second commitment its gadget does not have.
    auto slice =
        mpc::R1CSPartyAwaitingSeat::create(GadgetList::parse("range:8")->items().front(), {9}, {Scalar::from_u64(5)});
    REQUIRE(slice.ok());
    auto list = GadgetList::parse("range:8;range:8");
    auto first = std::move(*slice).take_seat(*list, seat, std::get<wire::JoinedMsg>(*joined).transcript_label);
    REQUIRE(first.ok());
    R1CSFirstPhaseShare lying = first->second;
    lying.V.push_back(lying.V.front());
    raw.send(lying);
    if (when == HonestJoins::AsTheLieArrives) party = std::thread(join_honestly);
    if (when == HonestJoins::AfterTheAbort) {
      // The liar hears its abort once the record holds it; by then the session is the record's.
      auto told = raw.receive();
      REQUIRE(told.has_value());
      REQUIRE(std::holds_alternative<wire::AbortMsg>(*told));
      CHECK(std::get<wire::AbortMsg>(*told).blamed == std::vector<size_t>{seat});
      party = std::thread(join_honestly);
    }
    party.join();
    REQUIRE_FALSE(honest.ok());
    INFO(client::describe(honest.error()));
    CHECK(honest.error().kind == client::ClientErrorKind::Aborted);
    CHECK(honest.error().blamed == std::vector<size_t>{seat});
    CHECK(honest.error().detail.find("MalformedPhaseShares") != std::string::npos);
  }
}

namespace {

// The next message of type T a raw party receives (skipping nothing else: any other ends it).
template <class T>
std::optional<T> next_of(RawParty& raw) {
  auto m = raw.receive();
  if (!m || !std::holds_alternative<T>(*m)) return std::nullopt;
  return std::get<T>(std::move(*m));
}

}  // namespace

namespace {

// A party on a raw connection that runs the real R1CS rounds for seat `gadget` of `list`,
// and may change its share before sending it; what it was told last, and its Joined.
struct RawGadgetRun {
  std::optional<wire::JoinedMsg> joined;
  std::optional<wire::Message> last;
};
RawGadgetRun run_raw_gadget(RawParty& raw, const std::string& session, const std::string& list_text,
                            const std::string& gadget, uint64_t value,
                            const std::function<void(R1CSProofShare&)>& tamper = {}) {
  RawGadgetRun out;
  auto join = raw.join_message(session, {}, nullptr);
  join.gadget = gadget;
  raw.send(join);
  out.joined = next_of<wire::JoinedMsg>(raw);
  REQUIRE(out.joined.has_value());
  const auto list = GadgetList::parse(list_text);
  auto seat = mpc::R1CSPartyAwaitingSeat::create(list->items()[out.joined->position], {value}, {Scalar::from_u64(8)});
  REQUIRE(seat.ok());
  auto first = std::move(*seat).take_seat(*list, out.joined->position, out.joined->transcript_label);
  REQUIRE(first.ok());
  raw.send(first->second);
  auto firsts = next_of<wire::R1CSFirstPhases>(raw);
  REQUIRE(firsts.has_value());
  auto second = std::move(first->first).apply(firsts->items);
  REQUIRE(second.ok());
  raw.send(second->second);
  auto seconds = next_of<wire::R1CSSecondPhases>(raw);
  REQUIRE(seconds.has_value());
  auto polys = std::move(second->first).apply(seconds->items);
  REQUIRE(polys.ok());
  raw.send(polys->second);
  auto all_polys = next_of<wire::R1CSPolyShares>(raw);
  REQUIRE(all_polys.has_value());
  auto share = std::move(polys->first).apply(all_polys->items);
  REQUIRE(share.ok());
  if (tamper) tamper(share->second);
  raw.send(share->second);
  out.last = raw.receive();
  return out;
}

client::PartyGadget shuffle_of_four_and_five() {
  return {
      "shuffle:2", {4, 5, 5, 4}, {Scalar::from_u64(1), Scalar::from_u64(2), Scalar::from_u64(3), Scalar::from_u64(4)}};
}

}  // namespace

TEST_CASE("a party whose share does not fit its own commitments is named, and nothing is handed out") {
  DealerProcess dealer;
  const std::string list_text = "shuffle:2;range:16";
  const std::string session = create_gadget_session(dealer, list_text);
  GadgetResult honest = not_yet();
  std::thread party(
      [&] { honest = client::join_gadget_session(dealer.endpoint(), session, shuffle_of_four_and_five()); });
  // The liar runs the real protocol on range:16, then changes its t_x before sending it.
  RawParty raw(dealer.port());
  const auto run = run_raw_gadget(raw, session, list_text, "range:16", 300,
                                  [](R1CSProofShare& share) { share.t_x = share.t_x + Scalar::from_u64(1); });
  party.join();
  REQUIRE(run.last.has_value());
  REQUIRE(std::holds_alternative<wire::AbortMsg>(*run.last));
  const auto& verdict = std::get<wire::AbortMsg>(*run.last);
  CHECK(verdict.blamed == std::vector<size_t>{run.joined->position});
  CHECK(verdict.reason.find("MalformedProofShares") != std::string::npos);
  REQUIRE_FALSE(honest.ok());
  CHECK(honest.error().blamed == std::vector<size_t>{run.joined->position});
  const auto [status, body] = http_get(dealer.port(), "/v1/sessions/" + session);
  CHECK(status == 200);
  CHECK(body.find("\"status\":\"aborted\"") != std::string::npos);
}

TEST_CASE("a gadget party back after its session ended gets the signed result from the record") {
  DealerProcess dealer;
  const std::string list_text = "shuffle:2;range:16";
  const std::string session = create_gadget_session(dealer, list_text);
  GadgetResult other = not_yet();
  std::thread party(
      [&] { other = client::join_gadget_session(dealer.endpoint(), session, shuffle_of_four_and_five()); });
  RawParty raw(dealer.port());
  const auto run = run_raw_gadget(raw, session, list_text, "range:16", 300);
  party.join();
  REQUIRE_MESSAGE(other.ok(), client::describe(other.error()));
  REQUIRE(run.last.has_value());
  REQUIRE(std::holds_alternative<wire::R1CSResultMsg>(*run.last));
  // As if the result had been lost with the connection: the seat's token gets the record's.
  RawParty back(dealer.port());
  back.send(wire::JoinSessionMsg{session, run.joined->resume_token, std::nullopt});
  auto answer = back.receive();
  REQUIRE(answer.has_value());
  REQUIRE(std::holds_alternative<wire::R1CSResultMsg>(*answer));
  const auto& from_record = std::get<wire::R1CSResultMsg>(*answer);
  CHECK(wire::attestation_valid(from_record));
  CHECK(from_record.proof.to_bytes() == other->result.proof.to_bytes());
  CHECK(from_record.commitments == other->result.commitments);
  CHECK(from_record.gadgets == list_text);
  CHECK(verify_gadget_list(*GadgetList::parse(list_text), from_record.label, from_record.commitments, from_record.proof)
            .ok());
}

TEST_CASE("a dealer restarted on its record mid-session goes on with a gadget session where it was") {
  char dir_template[] = "/tmp/bp-gadget-restart-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string db = std::string(dir_template) + "/outcomes.db";
  auto dealer = std::make_unique<DealerProcess>(std::vector<std::string>{"--record", db});
  const uint16_t port = dealer->port();
  const std::string session = create_gadget_session(*dealer, "shuffle:3;range:32");
  client::Options patient;
  patient.reconnect.first_delay = 100ms;
  patient.reconnect.give_up_after = 20s;
  std::atomic<bool> joined{false};
  std::mutex events_mutex;
  std::vector<client::PartyEvent> events;
  patient.on_event = [&](const client::PartyEvent& e) {
    std::lock_guard lock(events_mutex);
    events.push_back(e);
    joined = joined || e.kind == client::PartyEvent::Kind::Joined;
  };
  GadgetResult first = not_yet();
  std::thread waiting([&] { first = client::join_gadget_session(dealer->endpoint(), session, party_of(0), patient); });
  for (int i = 0; i < 400 && !joined; ++i) std::this_thread::sleep_for(25ms);
  REQUIRE(joined);
  dealer->kill_hard();  // the first party has committed its first phase; the second has not come
  dealer = std::make_unique<DealerProcess>(
      std::vector<std::string>{"--record", db, "--listen", "127.0.0.1:" + std::to_string(port)});
  const GadgetResult second = client::join_gadget_session(dealer->endpoint(), session, party_of(1));
  waiting.join();
  REQUIRE_MESSAGE(first.ok(), client::describe(first.error()));
  REQUIRE_MESSAGE(second.ok(), client::describe(second.error()));
  CHECK(first->result.proof.to_bytes() == second->result.proof.to_bytes());
  CHECK(dealer->log().find("session taken over") != std::string::npos);
  // The first party answered each round's broadcast once (a replay, if any, of the same one).
  std::lock_guard lock(events_mutex);
  std::map<int, std::set<std::string>> answered;
  for (const auto& e : events)
    if (e.kind == client::PartyEvent::Kind::Answered || e.kind == client::PartyEvent::Kind::Replayed)
      answered[e.round].insert(e.challenge);
  for (int round = 1; round <= 3; ++round) CHECK(answered[round].size() == 1);
  std::filesystem::remove_all(dir_template);
}

namespace {

const std::string& kScripted = kScriptedSession;

}  // namespace

TEST_CASE("a gadget seat, list or label the party did not state is refused alike whatever the values") {
  struct Offer {
    const char* what;
    wire::JoinedMsg joined;
    client::ClientErrorKind kind;
  };
  auto other_session = gadget_seat("range:32;range:32", 0, std::string(32, 'd'));
  auto not_canonical = gadget_seat("range:32;range:32", 0);
  not_canonical.gadgets = "range:32; range:32";
  auto ranged = gadget_seat("range:32", 0);
  ranged.gadgets.clear();
  ranged.bits = 32;
  const std::vector<Offer> offers = {
      {"a seat of range:8 for a party of range:32", gadget_seat("range:8;range:32", 0),
       client::ClientErrorKind::Refused},
      {"another session's label", other_session, client::ClientErrorKind::MaliciousDealer},
      {"a list that is not canonical", not_canonical, client::ClientErrorKind::MaliciousDealer},
      {"a range seat", ranged, client::ClientErrorKind::Refused},
  };
  for (const auto& offer : offers) {
    CAPTURE(std::string(offer.what));
    const auto small = gadget_answer_to(offer.joined, {"range:32", {5}, {Scalar::from_u64(9)}});
    const auto large = gadget_answer_to(offer.joined, {"range:32", {4000000000}, {Scalar::from_u64(9)}});
    REQUIRE_FALSE(small.outcome.ok());
    REQUIRE_FALSE(large.outcome.ok());
    CHECK(small.outcome.error().kind == offer.kind);
    CHECK(small.outcome.error().detail == large.outcome.error().detail);
    auto reply = wire::decode(small.reply);
    REQUIRE(reply.ok());
    CHECK(std::holds_alternative<wire::AbortMsg>(*reply));  // withdrawn: nothing committed
    CHECK(small.reply == large.reply);
  }
}

TEST_CASE("a second, different broadcast for a round the party answered is refused") {
  const auto offer = gadget_seat("range:8", 0);
  std::vector<uint8_t> after_second;
  ScriptedDealer dealer([&](Connection& c, int index) {
    if (index != 0) return;
    c.hello(dealer.key, wire::kWireMinorVersion);
    if (!c.receive()) return;
    c.send(offer);
    auto first = c.receive();
    if (!first || !std::holds_alternative<R1CSFirstPhaseShare>(*first)) return;
    wire::R1CSFirstPhases all{{std::get<R1CSFirstPhaseShare>(*first)}};
    c.send(all);
    if (!c.receive()) return;  // its second phase
    c.send(all);               // the same again: the same answer
    if (!c.receive()) return;
    all.items[0].S1 = all.items[0].A_I1;  // another broadcast for the same round
    c.send(all);
    after_second = c.receive_bytes();
  });
  auto outcome = client::join_gadget_session(dealer.endpoint(), kScripted, {"range:8", {5}, {Scalar::from_u64(9)}},
                                             quick_options());
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().kind == client::ClientErrorKind::MaliciousDealer);
  CHECK(outcome.error().detail.find("different broadcast") != std::string::npos);
}

TEST_CASE("a party that joins while an abort is being recorded hears it, with its culprit, once recorded") {
  // The test holds the SQLite record's write lock: the abort cannot reach the record until it
  // lets go, so the honest party's join falls in that window every time.
  char dir_template[] = "/tmp/bp-db-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string db = std::string(dir_template) + "/outcomes.db";
  DealerProcess dealer({"--record", db});
  const std::string session = create_gadget_session(dealer, "range:8;range:8");
  RawParty raw(dealer.port());
  auto join = raw.join_message(session, {}, nullptr);
  join.gadget = "range:8";
  raw.send(join);
  auto joined = next_of<wire::JoinedMsg>(raw);
  REQUIRE(joined.has_value());
  sqlite3* holder = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &holder) == SQLITE_OK);
  REQUIRE(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
  R1CSFirstPhaseShare lying;  // two commitments: its gadget has one
  lying.A_I1 = lying.A_O1 = lying.S1 = RistrettoPoint::basepoint().compress();
  lying.V = {lying.A_I1, lying.A_I1};
  raw.send(lying);
  std::this_thread::sleep_for(300ms);  // the dealer has the lie and writes the abort
  std::atomic<bool> answered{false};
  GadgetResult honest = not_yet();
  std::thread party([&] {
    honest = client::join_gadget_session(dealer.endpoint(), session, {"range:8", {7}, {Scalar::from_u64(3)}});
    answered = true;
  });
  std::this_thread::sleep_for(500ms);
  CHECK_FALSE(answered.load());  // nobody hears of an outcome the record does not hold
  REQUIRE(sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(holder);
  party.join();
  REQUIRE_FALSE(honest.ok());
  INFO(client::describe(honest.error()));
  CHECK(honest.error().kind == client::ClientErrorKind::Aborted);
  CHECK(honest.error().blamed == std::vector<size_t>{joined->position});
  CHECK(honest.error().detail.find("MalformedPhaseShares") != std::string::npos);
  std::filesystem::remove_all(dir_template);
}
