// The dealer under attack and over long runs, against the real bp-dealer binary over real
// sockets: each case is one class of failure an outside attack or a long-running operator
// found (seats, memory, connection slots, refusals, descriptors, verification floods,
// session hoarding, addresses, Nagle, record overwrites).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sodium.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "bp/hex.hpp"
#include "bp/random.hpp"
#include "bp/version.hpp"
#include "bp/wire/json.hpp"
#include "bp/wire/version.hpp"
#include "bp/server/process_stats.hpp"
#include "harness.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;

namespace {

std::string temp_dir() {
  char dir_template[] = "/tmp/bp-hardening-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  return dir_template;
}

// What a command printed on stdout and stderr together.
std::string run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char chunk[512];
  while (size_t n = fread(chunk, 1, sizeof chunk, pipe)) out.append(chunk, n);
  pclose(pipe);
  return out;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// TCP_NODELAY of another process's connected TCP sockets whose local or peer port is `port`
// (its descriptors may include sockets inherited across fork), read through a duplicate of
// each descriptor (pidfd_getfd).
std::vector<int> nodelay_of_connected_sockets(int pid, uint16_t port) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  REQUIRE(pidfd >= 0);
  std::vector<int> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    const int target = std::stoi(entry.path().filename().string());
    const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, target, 0));
    if (fd < 0) continue;
    sockaddr_storage peer{}, local{};
    socklen_t peer_len = sizeof peer, local_len = sizeof local;
    int type = 0;
    socklen_t type_len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) == 0 && type == SOCK_STREAM &&
        getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) == 0 && peer.ss_family == AF_INET &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) == 0 &&
        (ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port) == port ||
         ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port) == port)) {
      int nodelay = -1;
      socklen_t len = sizeof nodelay;
      getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &len);
      out.push_back(nodelay);
    }
    close(fd);
  }
  close(pidfd);
  return out;
}

std::string proof_line(const DealerProcess& dealer) {
  const std::string session = create_session(dealer, 16, 2);
  const auto outcomes = run_parties(dealer, session, {1, 2});
  check_all_succeeded(outcomes, 2);
  const auto& r = outcomes.results[0]->result;
  return wire::proof_json(r.bits, r.label, r.commitments, r.proof.to_bytes());
}

// `count` upgraded WebSockets that stay open (each has read the dealer's Hello).
std::vector<std::unique_ptr<RawParty>> hold_websockets(const DealerProcess& dealer, int count) {
  std::vector<std::unique_ptr<RawParty>> held;
  for (int i = 0; i < count; ++i) held.push_back(std::make_unique<RawParty>(dealer.port()));
  return held;
}

// What a CreateSession that the dealer refuses reports (an Aborted error's detail). Its
// deadline is shorter than the dealer's Retry-After (1 s), so the first refusal is the answer
// rather than tried again.
std::string refused_create(const DealerProcess& dealer) {
  client::Options brief;
  brief.timeout = 500ms;
  auto refused = client::create_session(dealer.endpoint(), {8, 2, "x", 0, {}, {}}, brief);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == client::ClientErrorKind::Aborted);
  return refused.error().detail;
}

std::string verify_request(const std::string& body) {
  return "POST /v1/verify HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

}  // namespace

TEST_CASE("one connection, one seat: two joins in one write get one seat, and the second is blamed") {
  DealerProcess dealer;
  const std::string session = create_session(dealer, 8, 2, 10000);
  RawParty attacker(dealer.port());
  const auto join = attacker.join_message(session, {}, nullptr);
  attacker.send_in_one_write({join, join});
  auto first = attacker.receive();
  REQUIRE(first.has_value());
  REQUIRE(std::holds_alternative<wire::JoinedMsg>(*first));
  CHECK(std::get<wire::JoinedMsg>(*first).position == 0);
  // The second join is read only once the first is seated: a seated party's out-of-order
  // message, not a second seat.
  auto second = attacker.receive();
  REQUIRE(second.has_value());
  REQUIRE(std::holds_alternative<wire::AbortMsg>(*second));
  CHECK(std::get<wire::AbortMsg>(*second).blamed == std::vector<size_t>{0});
  CHECK(http_get(dealer.port(), "/v1/sessions/" + session).second.find("\"blamed\":[0]") != std::string::npos);
}

TEST_CASE("a bit commitment in the same write as the join is the seated party's, and the session completes") {
  DealerProcess dealer;
  auto created = client::create_session(dealer.endpoint(), {8, 2, "same write", 20000, {}, {}});
  REQUIRE(created.ok());
  remember_bits(created->session_id, 8);
  // The first joiner sits at position 0, so its commitment can be made before the answer.
  const mpc::SessionParams params{8, 2, created->transcript_label};
  Seated seated{std::make_unique<RawParty>(dealer.port()), {}};
  ManualParty manual{std::make_unique<BulletproofGens>(params.bits, params.padded_m()), std::nullopt};
  SystemRandom rng;
  static const PedersenGens pc;  // the party keeps a reference: it must outlive the session
  auto party = mpc::PartyAwaitingPosition::create(*manual.gens, pc, params, 9, Scalar::random(rng));
  REQUIRE(party.ok());
  auto committed = std::move(*party).assign_position(0);
  REQUIRE(committed.ok());
  seated.raw().send_in_one_write({seated.raw().join_message(created->session_id, {}, nullptr), committed->second});
  manual.awaiting_bits.emplace(std::move(committed->first));
  auto joined = seated.raw().receive();
  REQUIRE(joined.has_value());
  REQUIRE(std::holds_alternative<wire::JoinedMsg>(*joined));
  seated.joined = std::get<wire::JoinedMsg>(*joined);
  Outcomes honest;
  std::thread honest_thread([&] { honest = run_parties(dealer, created->session_id, {10}); });
  auto [awaiting, share] = answer_challenges(seated, manual);
  seated.raw().send(share);
  auto result = seated.raw().receive();
  honest_thread.join();
  REQUIRE(result.has_value());
  REQUIRE(std::holds_alternative<wire::ResultMsg>(*result));
  CHECK(awaiting.check_result(std::get<wire::ResultMsg>(*result).result).ok());
  check_all_succeeded(honest, 1);
}

TEST_CASE("outcome records past the retention are deleted, from memory and from the database") {
  const std::string dir = temp_dir();
  const std::string db = dir + "/outcomes.db";
  std::string session;
  {
    DealerProcess dealer({"--record", db, "--outcome-retention", "2s"});
    session = create_session(dealer, 8, 2);
    check_all_succeeded(run_parties(dealer, session, {1, 2}), 2);
    CHECK(http_get(dealer.port(), "/v1/sessions/" + session).first == 200);
    int status = 200;
    for (int i = 0; i < 100 && status == 200; ++i) {
      std::this_thread::sleep_for(100ms);
      status = http_get(dealer.port(), "/v1/sessions/" + session).first;
    }
    CHECK(status == 404);
    CHECK(dealer.log().find("deleted old outcome records count=1") != std::string::npos);
  }
  DealerProcess restarted({"--record", db});
  CHECK(http_get(restarted.port(), "/v1/sessions/" + session).first == 404);
  std::filesystem::remove_all(dir);
}

TEST_CASE("without a database, memory keeps a bounded number of outcomes") {
  DealerProcess dealer({"--outcome-cache", "2"});
  std::vector<std::string> sessions;
  for (int i = 0; i < 3; ++i) {
    sessions.push_back(create_session(dealer, 8, 1));
    check_all_succeeded(run_parties(dealer, sessions.back(), {1}), 1);
  }
  CHECK(http_get(dealer.port(), "/v1/sessions/" + sessions[0]).first == 404);  // the oldest went
  CHECK(http_get(dealer.port(), "/v1/sessions/" + sessions[2]).first == 200);
}

TEST_CASE("a WebSocket that never asks for anything gives its slot back; one address cannot take every slot") {
  {
    DealerProcess dealer({"--request-timeout-ms", "500"});
    RawParty idle(dealer.port());
    auto reply = idle.receive(5s);
    REQUIRE(reply.has_value());
    REQUIRE(std::holds_alternative<wire::AbortMsg>(*reply));
    CHECK(std::get<wire::AbortMsg>(*reply).reason == "no request within 500 ms");
    // An operator connection, too, must keep asking: after its answer the clock starts again.
    RawParty operator_link(dealer.port());
    operator_link.send(wire::ManageSessionsMsg{});
    auto listing = operator_link.receive();
    REQUIRE(listing.has_value());
    CHECK(std::holds_alternative<wire::SessionListMsg>(*listing));
    auto closed = operator_link.receive(5s);
    REQUIRE(closed.has_value());
    CHECK(std::holds_alternative<wire::AbortMsg>(*closed));
    // Requests sent without waiting are answered one by one, each after the last was written.
    RawParty eager(dealer.port());
    eager.send_in_one_write(std::vector<wire::Message>(100, wire::ManageSessionsMsg{}));
    int answers = 0;
    while (auto m = eager.receive(2s)) answers += std::holds_alternative<wire::SessionListMsg>(*m);
    CHECK(answers == 100);
  }
  DealerProcess dealer({"--max-connections-per-ip", "4"});
  auto held = hold_websockets(dealer, 4);
  CHECK(refused_create(dealer) == "too many connections from your address (at most 4) (HTTP 503)");
  // Another address is not affected.
  RawParty other(dealer.port(), "/", "127.0.0.2");
  other.send(wire::ManageSessionsMsg{});
  auto answer = other.receive();
  REQUIRE(answer.has_value());
  CHECK(std::holds_alternative<wire::SessionListMsg>(*answer));
  held.clear();
  for (int i = 0; i < 100 && http_get(dealer.port(), "/healthz").first != 200; ++i) std::this_thread::sleep_for(50ms);
  CHECK(client::create_session(dealer.endpoint(), {8, 2, "x", 0, {}, {}}).ok());
}

TEST_CASE("refusals are answered with a status and a reason") {
  {
    DealerProcess dealer({"--max-connections", "3"});
    auto held = hold_websockets(dealer, 3);
    CHECK(refused_create(dealer) == "dealer at capacity: 3 connections open (HTTP 503)");
    const std::string printed =
        run_command(std::string(BP_PARTY_PATH) + " join --dealer ws://127.0.0.1:" + std::to_string(dealer.port()) +
                    " --session " + std::string(32, 'a') + " --value 1 --reconnect-attempts 0");
    CHECK(printed.find("dealer at capacity") != std::string::npos);
    const std::string answer = http_raw(dealer.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(http_status(answer) == 503);
    CHECK(answer.find("Retry-After: 1") != std::string::npos);
  }
  DealerProcess dealer;
  const auto port = dealer.port();
  CHECK(http_status(http_raw(port, "GET /v1/sessions/" + std::string(10000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n")) ==
        431);
  CHECK(http_status(http_raw(
            port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(9000, 'p') + "\r\n\r\n")) == 431);
  CHECK(http_status(http_raw(port, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n" +
                                       std::string(65536, '{'))) == 413);
  CHECK(http_status(http_raw(port, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n")) ==
        413);
  const std::string empty = http_raw(port, verify_request(""));
  CHECK(http_status(empty) == 400);
  CHECK(empty.find("no proofs in the request") != std::string::npos);
  CHECK(http_status(http_raw(port, verify_request("\n \n"))) == 400);
  CHECK(http_status(http_raw(port, "NOT HTTP AT ALL\r\n\r\n")) == 400);
  CHECK(http_status(http_raw(port, "GET /v1/sessions/zz HTTP/1.1\r\nHost: x\r\n\r\n")) == 400);
  // And the dealer still serves.
  CHECK(http_get(port, "/healthz").first == 200);
  const auto [status, metrics] = http_get(port, "/metrics");
  CHECK(metrics.find("bp_refused_total{reason=\"431\"} 2") != std::string::npos);
}

// Not in the ASan+UBSan build: UBSan's vptr check opens a pipe to probe memory, so a dealer
// built with it reports false errors once it has no descriptors left (g++ and TSan run it).
#ifdef BP_UBSAN_BUILD
constexpr bool kSanitizerNeedsDescriptors = true;
#else
constexpr bool kSanitizerNeedsDescriptors = false;
#endif

TEST_CASE("out of file descriptors, the dealer waits instead of spinning, and serves again when they free up" *
          doctest::skip(kSanitizerNeedsDescriptors)) {
  DealerProcess dealer;
  // Lower the running dealer's limit to what it has open: every accept now fails (EMFILE).
  rlimit original{};
  REQUIRE(prlimit(dealer.pid(), RLIMIT_NOFILE, nullptr, &original) == 0);
  CHECK(original.rlim_cur == original.rlim_max);  // the dealer raised its soft limit at start
  const rlim_t open_now = server::process_open_fds(dealer.pid());
  const rlimit exhausted{open_now, original.rlim_max};
  REQUIRE(prlimit(dealer.pid(), RLIMIT_NOFILE, &exhausted, nullptr) == 0);
  boost::asio::io_context ioc;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::socket>> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(std::make_unique<boost::asio::ip::tcp::socket>(ioc));
    waiting.back()->connect({boost::asio::ip::make_address("127.0.0.1"), dealer.port()});  // into the backlog
  }
  const double cpu_before = server::process_cpu_seconds(dealer.pid());
  std::this_thread::sleep_for(2s);
  const double cpu_used = server::process_cpu_seconds(dealer.pid()) - cpu_before;
  CHECK_MESSAGE(cpu_used < 0.5, "the dealer used " << cpu_used << " s of CPU in 2 s with no descriptors");
  REQUIRE(prlimit(dealer.pid(), RLIMIT_NOFILE, &original, nullptr) == 0);
  CHECK(http_get(dealer.port(), "/healthz").first == 200);
  CHECK(count_of(dealer.log(), "new connections wait until descriptors free up") == 1);
  CHECK(dealer.log().find("accepting connections again") != std::string::npos);
}

TEST_CASE("a descriptor limit that cannot hold --max-connections lowers it, with a warning") {
  DealerProcess dealer({"--max-connections", "4096"}, 200);
  const std::string log = dealer.log();
  CHECK(log.find("cannot hold --max-connections; serving fewer") != std::string::npos);
  CHECK(log.find("max_connections=4096") != std::string::npos);
  CHECK(http_get(dealer.port(), "/healthz").first == 200);
}

TEST_CASE("verification floods are bounded: a per-address rate, a bounded queue, and sessions go on") {
  DealerProcess dealer({"--verify-per-ip-per-s", "3", "--verify-queue", "1", "--max-connects-per-ip-per-s", "1000"});
  const std::string line = proof_line(dealer);
  std::string body;
  for (int i = 0; i < 256; ++i) body += line + "\n";  // the most a request may carry
  // Four clients, each from its own address, send back to back.
  std::vector<std::thread> flood;
  std::mutex mutex;
  std::map<int, int> statuses;
  for (int c = 0; c < 4; ++c)
    flood.emplace_back([&, c] {
      const std::string from = "127.0.0." + std::to_string(10 + c);
      for (int i = 0; i < 8; ++i) {
        const int status = http_status(http_raw(dealer.port(), verify_request(body), from));
        std::lock_guard lock(mutex);
        ++statuses[status];
      }
    });
  const std::string session = create_session(dealer, 64, 4);
  const auto outcome = run_parties(dealer, session, {1, 2, 3, 4});
  for (auto& t : flood) t.join();
  check_all_succeeded(outcome, 4);
  CHECK(statuses[200] > 0);
  CHECK(statuses[429] > 0);  // over 3 a second from one address
  CHECK(statuses[503] > 0);  // four addresses, one queue slot
  CHECK(statuses[200] + statuses[429] + statuses[503] == 32);
}

TEST_CASE("session slots: capped per address (unsigned) and per operator key; owners list and cancel their own") {
  {
    DealerProcess dealer({"--max-anonymous-sessions-per-ip", "3"});
    std::vector<std::string> sessions;
    for (int i = 0; i < 3; ++i) sessions.push_back(create_session(dealer, 8, 2));
    auto refused = client::create_session(dealer.endpoint(), {8, 2, "x", 0, {}, {}});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().detail == "your address has 3 open unsigned sessions, its limit");
    auto listing = client::manage_sessions(dealer.endpoint());
    REQUIRE(listing.ok());
    REQUIRE(listing->sessions.size() == 3);
    CHECK(listing->sessions[0].phase == "join");
    // A party waits in the first session; its owner cancels it.
    Outcomes waiting;
    std::thread party([&] { waiting = run_parties(dealer, sessions[0], {5}); });
    wait_for_seated(dealer, 1);
    listing = client::manage_sessions(dealer.endpoint(), {sessions[0], std::string(32, 'f')});
    REQUIRE(listing.ok());
    CHECK(listing->sessions.size() == 2);
    CHECK(listing->not_cancelled == std::vector<std::string>{std::string(32, 'f')});
    party.join();
    REQUIRE_FALSE(waiting.results[0].ok());
    CHECK(waiting.results[0].error().kind == client::ClientErrorKind::Aborted);
    CHECK(waiting.results[0].error().detail == "cancelled by its operator");
    CHECK(client::create_session(dealer.endpoint(), {8, 2, "x", 0, {}, {}}).ok());  // the slot is free again
    // Another address sees none of them and cannot cancel them.
    RawParty stranger(dealer.port(), "/", "127.0.0.3");
    stranger.send(wire::ManageSessionsMsg{{sessions[1]}, std::nullopt});
    auto theirs = stranger.receive();
    REQUIRE(theirs.has_value());
    const auto& list = std::get<wire::SessionListMsg>(*theirs);
    CHECK(list.sessions.empty());
    CHECK(list.not_cancelled == std::vector<std::string>{sessions[1]});
  }
  const auto party = wire::Identity::generate();
  client::Options as_a, as_b;
  as_a.identity = std::make_shared<const wire::Identity>(wire::Identity::generate());
  as_b.identity = std::make_shared<const wire::Identity>(wire::Identity::generate());
  DealerProcess dealer(
      {"--operator-key",
       wire::public_key_hex(as_a.identity->public_key()) + "," + wire::public_key_hex(as_b.identity->public_key()),
       "--max-sessions-per-operator", "2"});
  const client::SessionRequest request{8, 1, "x", 0, {}, {party.public_key()}};
  auto first = client::create_session(dealer.endpoint(), request, as_a);
  REQUIRE(first.ok());
  REQUIRE(client::create_session(dealer.endpoint(), request, as_a).ok());
  auto third = client::create_session(dealer.endpoint(), request, as_a);
  REQUIRE_FALSE(third.ok());
  CHECK(third.error().detail == "this operator has 2 open sessions, its limit");
  REQUIRE(client::create_session(dealer.endpoint(), request, as_b).ok());  // another operator is not affected
  auto b_cancels = client::manage_sessions(dealer.endpoint(), {first->session_id}, as_b);
  REQUIRE(b_cancels.ok());
  CHECK(b_cancels->not_cancelled == std::vector<std::string>{first->session_id});
  CHECK(b_cancels->sessions.size() == 1);
  auto a_lists = client::manage_sessions(dealer.endpoint(), {}, as_a);
  REQUIRE(a_lists.ok());
  CHECK(a_lists->sessions.size() == 2);
  // Unsigned, nobody may manage anything on a dealer without --allow-anonymous.
  auto unsigned_list = client::manage_sessions(dealer.endpoint());
  REQUIRE_FALSE(unsigned_list.ok());
  CHECK(unsigned_list.error().detail == "managing sessions needs an operator's signature");
}

TEST_CASE("the public record of a session names no party addresses (the log does)") {
  DealerProcess dealer;
  const std::string session = create_session(dealer, 8, 2);
  check_all_succeeded(run_parties(dealer, session, {1, 2}), 2);
  const auto [status, body] = http_get(dealer.port(), "/v1/sessions/" + session);
  CHECK(status == 200);
  CHECK(body.find("127.0.0.1") == std::string::npos);
  CHECK(body.find("peers") == std::string::npos);
  CHECK(dealer.log().find("party joined remote=127.0.0.1") != std::string::npos);
}

TEST_CASE("every connected socket of the dealer and of a party sets TCP_NODELAY") {
  DealerProcess dealer;
  RawParty held(dealer.port());
  const auto dealer_side = nodelay_of_connected_sockets(dealer.pid(), dealer.port());
  REQUIRE_FALSE(dealer_side.empty());
  for (int v : dealer_side) CHECK(v != 0);

  // bp-party against a listener that accepts and then says nothing: its socket stays open.
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor listener(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const std::string command = std::string(BP_PARTY_PATH) +
                              " join --dealer ws://127.0.0.1:" + std::to_string(listener.local_endpoint().port()) +
                              " --session " + std::string(32, 'b') + " --value 1 --timeout-ms 5000";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  boost::asio::ip::tcp::socket accepted(ioc);
  listener.accept(accepted);
  // Its first bytes (the upgrade request) are written after its connect handler ran, which
  // is where the option is set: once they are here, the option must be too.
  char first[64];
  accepted.read_some(boost::asio::buffer(first));
  std::vector<int> party_side;
  for (int i = 0; i < 50 && party_side.empty(); ++i) {
    party_side = nodelay_of_connected_sockets(child, listener.local_endpoint().port());
    if (party_side.empty()) std::this_thread::sleep_for(20ms);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  REQUIRE(party_side.size() == 1);
  CHECK(party_side[0] != 0);
}

TEST_CASE("a session id is taken once: a finished session's id is refused, across restarts, and its record kept") {
  const std::string dir = temp_dir();
  const std::string db = dir + "/outcomes.db";
  const std::string id = "0123456789abcdef0123456789abcdef";
  std::string record;
  {
    DealerProcess dealer({"--record", db});
    auto created = client::create_session(dealer.endpoint(), {8, 2, "first", 20000, id, {}});
    REQUIRE(created.ok());
    remember_bits(id, 8);
    check_all_succeeded(run_parties(dealer, id, {1, 2}), 2);
    record = http_get(dealer.port(), "/v1/sessions/" + id).second;
    CHECK(record.find("\"status\":\"completed\"") != std::string::npos);
    CHECK(record.find("dealer_signature") != std::string::npos);
    auto again = client::create_session(dealer.endpoint(), {8, 2, "second", 100, id, {}});
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().detail == "session id in use");
    dealer.kill_hard();
  }
  DealerProcess restarted({"--record", db});
  auto again = client::create_session(restarted.endpoint(), {8, 2, "second", 100, id, {}});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().detail == "session id in use");
  CHECK(http_get(restarted.port(), "/v1/sessions/" + id).second == record);
  std::filesystem::remove_all(dir);
}

TEST_CASE("SIGTERM with connections of every kind still open: a clean exit") {
  DealerProcess dealer({"--max-connections", "4", "--shutdown-grace-ms", "300"});
  RawParty idle_websocket(dealer.port());
  const std::string session = create_session(dealer, 8, 2, 20000);
  Seated seated = join_raw(dealer, session);  // a seat in a session that will be cut short
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket half_request(ioc), refused(ioc);
  half_request.connect({boost::asio::ip::make_address("127.0.0.1"), dealer.port()});
  boost::asio::write(half_request, boost::asio::buffer(std::string("GET /healthz HTTP/1.1\r\nHost: x\r\n")));
  refused.connect({boost::asio::ip::make_address("127.0.0.1"), dealer.port()});  // past --max-connections
  std::this_thread::sleep_for(200ms);
  CHECK(dealer.terminate_and_wait() == 0);
}

TEST_CASE("every program says what it is: --version, the dealer's /v1/version and first log line") {
  const std::string release(release_version());
  for (const auto& named : std::vector<std::pair<std::string, std::string>>{
           {"bp-dealer", BP_DEALER_PATH}, {"bp-party", BP_PARTY_PATH}, {"bp", BP_CLI_PATH}}) {
    const std::string& program = named.first;
    const std::string& path = named.second;
    CAPTURE(program);
    const std::string line = run_command(path + " --version");
    CHECK(line.rfind(program + " " + release + " (commit ", 0) == 0);
    CHECK(line.find("), wire 1." + std::to_string(wire::kWireMinorVersion) + ", C ABI ") != std::string::npos);
    CHECK(line.find(", backend ") != std::string::npos);
  }
  DealerProcess dealer;
  const auto [status, body] = http_get(dealer.port(), "/v1/version");
  CHECK(status == 200);
  CHECK(body.find("\"version\":\"" + release + "\"") != std::string::npos);
  CHECK(body.find("\"commit\":\"" + std::string(build_commit()) + "\"") != std::string::npos);
  CHECK(body.find("\"wire\":\"1." + std::to_string(wire::kWireMinorVersion) + "\"") != std::string::npos);
  const std::string log = dealer.log();
  REQUIRE(!log.empty());
  CHECK(log.substr(0, log.find('\n')).find("bp-dealer starting") != std::string::npos);
}

TEST_CASE("a backend over the dealer's new connections per second is admitted a moment later, not aborted") {
  // Two new connections a second from one address; six parties from it at once. The dealer
  // answers the rest 429 with Retry-After, and the client joins again after it.
  DealerProcess dealer({"--max-connects-per-ip-per-s", "2"});
  const std::string session = create_session(dealer, 8, 6);
  std::this_thread::sleep_for(1100ms);  // the create's connection out of this second
  const auto outcome = run_parties(dealer, session, {1, 2, 3, 4, 5, 6}, 30s);
  check_all_succeeded(outcome, 6);
  // An operator's creates back to back are declined the same way, and sent again after it.
  std::this_thread::sleep_for(1100ms);
  for (int i = 0; i < 5; ++i) CHECK(!create_session(dealer, 8, 2).empty());
  CHECK(dealer.log().find("too many new connections from your address") != std::string::npos);
}
