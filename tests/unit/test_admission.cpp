// The dealer's admission: strangers' sockets are held to a per-address cap; a connection
// whose party a listing session seated is vouched for and leaves that count, so a backend's
// many sessions from one address are bounded by its seats and the dealer's total instead.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "net/admission.hpp"

using namespace bp::server;

namespace {
std::vector<std::unique_ptr<AdmissionTicket>> admit_n(Admission& admission, const std::string& address, size_t n) {
  std::vector<std::unique_ptr<AdmissionTicket>> tickets;
  for (size_t i = 0; i < n; ++i) tickets.push_back(admission.admit(address));
  return tickets;
}
}  // namespace

TEST_CASE("an address is held to its cap until its connections are vouched for") {
  Admission admission(/*max_connections=*/100, /*max_per_address=*/3, /*max_connects_per_s=*/1000);
  auto held = admit_n(admission, "10.0.0.1", 3);
  for (const auto& t : held) CHECK_FALSE(t->refused());
  auto fourth = admission.admit("10.0.0.1");
  REQUIRE(fourth);
  CHECK(fourth->status() == 503);
  CHECK(fourth->reason().find("too many connections from your address") != std::string::npos);
  CHECK_FALSE(admission.admit("10.0.0.2")->refused());  // another address is not held by it

  held[0]->vouch();
  held[1]->vouch();
  held[1]->vouch();  // once only: a second vouch frees nothing more
  auto more = admit_n(admission, "10.0.0.1", 2);
  for (const auto& t : more) CHECK_FALSE(t->refused());
  CHECK(admission.admit("10.0.0.1")->refused());
  CHECK(admission.open() == 5);  // vouched connections still count toward the dealer's total
}

TEST_CASE("a vouched connection's release frees the total, not its address twice") {
  Admission admission(100, 2, 1000);
  auto a = admission.admit("10.0.0.1");
  auto b = admission.admit("10.0.0.1");
  a->vouch();
  a.reset();  // released after being vouched for: the address's count is already down
  CHECK(admission.open() == 1);
  auto c = admission.admit("10.0.0.1");
  CHECK_FALSE(c->refused());
  CHECK(admission.admit("10.0.0.1")->refused());  // b and c: the cap, not below it
  b.reset();
  CHECK_FALSE(admission.admit("10.0.0.1")->refused());
}

TEST_CASE("the dealer's total still holds vouched connections, and a refusal is never vouched for") {
  Admission admission(/*max_connections=*/2, 2, 1000);
  auto held = admit_n(admission, "10.0.0.1", 2);
  for (auto& t : held) t->vouch();
  auto refused = admission.admit("10.0.0.1");
  REQUIRE(refused);
  CHECK(refused->status() == 503);
  CHECK(refused->reason().find("dealer at capacity") != std::string::npos);
  refused->vouch();
  refused.reset();
  CHECK(admission.open() == 2);
}

TEST_CASE("new connections a second stay limited per address, vouched for or not") {
  Admission admission(100, 100, /*max_connects_per_s=*/2);
  auto held = admit_n(admission, "10.0.0.1", 2);
  for (auto& t : held) t->vouch();
  auto third = admission.admit("10.0.0.1");
  REQUIRE(third);
  CHECK(third->status() == 429);
}
