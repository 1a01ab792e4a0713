// What a dealer run by someone else can make a party spend. Against a scripted dealer: a
// seat in a list over any of a session's limits is refused before the party commits, alike
// whatever its values; the largest session the limits admit ends at the caller's deadline
// while the party is still computing its seat; an allocation that fails while it computes
// ends the join with an error, never in an exception out of the library.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>

#include "bp/mpc/limits.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "scripted_dealer.hpp"
#include "scripted_gadget_seat.hpp"

using namespace bp;
using namespace bp::test;
using namespace std::chrono_literals;

#ifndef BP_SANITIZER_BUILD
// This program's allocations, as the tests arm them: from a size on, each one fails (an
// allocation failure injected into the library wherever it allocates that much), or each one
// waits first (the work of a session on a slower or busier machine). The sanitizers bring
// allocators of their own, so their builds run the other tests only.
namespace {
std::atomic<size_t> fail_from{0}, slow_from{0};  // 0: never
std::atomic<int> failed{0}, slowed{0};
constexpr auto kSlowBy = 400ms;

void* allocate(size_t n, size_t alignment) {
  if (const size_t f = fail_from.load(std::memory_order_relaxed); f != 0 && n >= f) {
    ++failed;
    throw std::bad_alloc();
  }
  if (const size_t s = slow_from.load(std::memory_order_relaxed); s != 0 && n >= s) {
    ++slowed;
    std::this_thread::sleep_for(kSlowBy);
  }
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(n ? n : 1)
                : std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(size_t n) { return allocate(n, 0); }
void* operator new[](size_t n) { return allocate(n, 0); }
void* operator new(size_t n, std::align_val_t a) { return allocate(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return allocate(n, static_cast<size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
#endif

namespace {

// `item` n times, separated by ';'.
std::string repeated(const std::string& item, size_t n) {
  std::string out;
  for (size_t k = 0; k < n; ++k) out += (k ? ";" : "") + item;
  return out;
}

// member:0|1|...|(n-1): one commitment, n - 1 multipliers.
std::string member_of(size_t n) {
  std::string out = "member:";
  for (size_t k = 0; k < n; ++k) out += (k ? "|" : "") + std::to_string(k);
  return out;
}

client::PartyGadget range32(uint64_t value) { return {"range:32", {value}, {Scalar::from_u64(9)}}; }

bool withdrew(const std::vector<uint8_t>& reply) {
  auto decoded = wire::decode(reply);
  return decoded.ok() && std::holds_alternative<wire::AbortMsg>(*decoded);
}

}  // namespace

TEST_CASE("a seat in a list over any limit is refused before the party commits, alike whatever its values") {
  struct Over {
    const char* limit;
    std::string list;   // our range:32 in seat 0
    std::string named;  // what the refusal says
  };
  const std::vector<Over> lists = {
      {"session commitments", "range:32;sum:1023", "takes 1025 commitments; a gadget session takes at most 1024"},
      {"seat multipliers", "range:32;" + member_of(514), "takes 513 multipliers; a seat takes at most 512"},
      {"session multipliers", "range:32;" + repeated("range:64", 63) + ";geq:33",
       "takes 4097 multipliers; a gadget session takes at most 4096"},
      // The two lists found from outside: a session the party's own decoder could never
      // finish, and 16 seats of generators half a gigabyte large.
      {"a shuffle of 2048", "range:32;shuffle:2048", "takes 4097 commitments"},
      {"16 shuffles of 4096", "range:32;" + repeated("shuffle:4096", 15), "commitments"},
  };
  for (const auto& over : lists) {
    CAPTURE(std::string(over.limit));
    REQUIRE(GadgetList::parse(over.list).ok());
    REQUIRE(mpc::gadget_list_over_limits(*GadgetList::parse(over.list)).has_value());
    const auto offer = gadget_seat(over.list, 0);
    const auto small = gadget_answer_to(offer, range32(5));
    const auto large = gadget_answer_to(offer, range32(4000000000));
    REQUIRE_FALSE(small.outcome.ok());
    REQUIRE_FALSE(large.outcome.ok());
    CAPTURE(client::describe(small.outcome.error()));
    CHECK(small.outcome.error().kind == client::ClientErrorKind::MaliciousDealer);
    CHECK(small.outcome.error().detail.find(over.named) != std::string::npos);
    CHECK(small.outcome.error().detail == large.outcome.error().detail);
    CHECK(withdrew(small.reply));  // nothing committed
    CHECK(small.reply == large.reply);
  }
}

namespace {

// The largest session the limits admit: 4,096 multipliers (its generators: 4,096 of each
// kind), 1,024 commitments, 66 seats, our range:32 in seat 0.
const std::string kAtLimits = "range:32;" + repeated("range:64", 63) + ";geq:32;sum:957";

}  // namespace

#ifndef BP_SANITIZER_BUILD
// Before any other test builds the largest session's generators: this one's work builds them.
TEST_CASE("the caller's deadline ends the largest session's join while the party computes its seat") {
  // Each allocation of a quarter MiB or more waits 400 ms: the seat's generators and tables
  // take several, so the work of the seat lasts seconds, on the worker as it would have on the
  // connection's thread. The deadline is 500 ms.
  std::atomic<bool> seated{false};
  ScriptedDealer dealer([&](Connection& c, int index) {
    if (index != 0) return;
    c.hello(dealer.key, wire::kWireMinorVersion);
    if (!c.receive()) return;
    c.send(gadget_seat(kAtLimits, 0));
    seated = true;
    (void)c.receive_bytes();  // nothing, until the party leaves
  });
  auto options = quick_options();
  options.timeout = 500ms;
  slowed = 0;
  slow_from = 256 * 1024;
  const auto start = std::chrono::steady_clock::now();
  auto outcome = client::join_gadget_session(dealer.endpoint(), kScriptedSession, range32(5), options);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(seated);
  REQUIRE_FALSE(outcome.ok());
  CAPTURE(client::describe(outcome.error()));
  CHECK(outcome.error().kind == client::ClientErrorKind::Timeout);
  CHECK(took < 750ms);  // without the work off its thread: 800 ms of waits and the work itself
  // The work was under way: it met its large allocations, after the deadline as well.
  for (int k = 0; k < 100 && slowed < 2; ++k) std::this_thread::sleep_for(50ms);
  slow_from = 0;
  CHECK(slowed >= 2);
  MESSAGE("the join ended after " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                                  << " ms; the seat's work met " << slowed.load() << " slowed allocations");
}

TEST_CASE("the caller's deadline ends a 256-position range session's join while the party computes its position") {
  // One position of 256: its generators are 64 × 256 of each kind, built for the first time here.
  wire::JoinedMsg joined;
  joined.position = 0;
  joined.positions = 1;
  joined.bits = 64;
  joined.session_positions = mpc::kMaxPositions;
  joined.transcript_label = mpc::session_transcript_label(kScriptedSession, 64, mpc::kMaxPositions, "fake", {});
  joined.resume_token.assign(16, 1);
  std::atomic<bool> seated{false};
  ScriptedDealer dealer([&](Connection& c, int index) {
    if (index != 0) return;
    c.hello(dealer.key);
    if (!c.receive()) return;
    c.send(joined);
    seated = true;
    (void)c.receive_bytes();
  });
  auto options = quick_options();
  options.timeout = 500ms;
  slowed = 0;
  slow_from = 256 * 1024;
  const auto start = std::chrono::steady_clock::now();
  auto outcome = client::join_and_prove(dealer.endpoint(), kScriptedSession, 5, Scalar::from_u64(9), options);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(seated);
  REQUIRE_FALSE(outcome.ok());
  CAPTURE(client::describe(outcome.error()));
  CHECK(outcome.error().kind == client::ClientErrorKind::Timeout);
  CHECK(took < 750ms);
  for (int k = 0; k < 100 && slowed < 2; ++k) std::this_thread::sleep_for(50ms);
  slow_from = 0;
  CHECK(slowed >= 2);
}

TEST_CASE("an allocation that fails while the party computes ends the join with an error, not an exception") {
  SUBCASE("the seat's work, off the connection's thread: the party withdraws") {
    // 2,016 multipliers: generators of 2,048, built for the first time here (a quarter MiB and more).
    const auto offer = gadget_seat("range:32;" + repeated("range:64", 31), 0);
    failed = 0;
    fail_from = 256 * 1024;
    GadgetAnswer answer;
    CHECK_NOTHROW(answer = gadget_answer_to(offer, range32(5)));
    fail_from = 0;
    REQUIRE(failed > 0);
    REQUIRE_FALSE(answer.outcome.ok());
    CHECK(answer.outcome.error().kind == client::ClientErrorKind::Internal);
    CHECK(answer.outcome.error().detail.find("out of memory") != std::string::npos);
    CHECK(withdrew(answer.reply));
  }
  SUBCASE("anywhere on the connection's thread: small allocations fail too") {
    for (size_t from : {size_t{64} * 1024, size_t{4096}, size_t{1024}}) {
      CAPTURE(from);
      const auto offer = gadget_seat("range:32;range:8", 0);
      failed = 0;
      GadgetAnswer answer;
      fail_from = from;
      try {
        answer = gadget_answer_to(offer, range32(5));
      } catch (...) {
        fail_from = 0;
        FAIL("an exception left the library");
      }
      fail_from = 0;
      if (failed > 0) {
        REQUIRE_FALSE(answer.outcome.ok());
      }
    }
  }
}
#endif

TEST_CASE("the largest session the limits admit is taken: the party commits to it") {
  const auto list = GadgetList::parse(kAtLimits);
  REQUIRE(list.ok());
  CHECK(list->multipliers() == mpc::kMaxSessionMultipliers);
  CHECK(list->commitments() == mpc::kMaxSessionCommitments);
  CHECK_FALSE(mpc::gadget_list_over_limits(*list).has_value());
  const auto answer = gadget_answer_to(gadget_seat(kAtLimits, 0), range32(5));
  auto reply = wire::decode(answer.reply);
  REQUIRE(reply.ok());
  CHECK(std::holds_alternative<R1CSFirstPhaseShare>(*reply));
}
