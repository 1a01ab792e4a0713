// The C ABI's error filling (bindings/c/src/edge.cpp, compiled into this test): what a C
// caller reads from bp_error, including a blame longer than its array.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "edge.hpp"

namespace {

std::vector<size_t> first_positions(size_t n) {
  std::vector<size_t> positions(n);
  for (size_t i = 0; i < n; ++i) positions[i] = i * 2 + 1;
  return positions;
}

}  // namespace

TEST_CASE("a blame that fits is copied whole and the message is left as it is") {
  bp_error err{};
  CHECK(bp::c_abi::fail(&err, BP_ERR_ABORTED, "abort: timeout blamed=[1,3]", first_positions(BP_MAX_BLAMED)) ==
        BP_ERR_ABORTED);
  CHECK(err.kind == BP_ERR_ABORTED);
  CHECK(err.blamed_count == BP_MAX_BLAMED);
  CHECK(err.blamed[BP_MAX_BLAMED - 1] == 2 * (BP_MAX_BLAMED - 1) + 1);
  CHECK(std::string(err.message) == "abort: timeout blamed=[1,3]");
}

TEST_CASE("a blame longer than blamed[] says its count ahead of the message") {
  bp_error err{};
  bp::c_abi::fail(&err, BP_ERR_ABORTED, "abort: timeout blamed=[...]", first_positions(200));
  CHECK(err.blamed_count == BP_MAX_BLAMED);
  CHECK(err.blamed[0] == 1);
  CHECK(err.blamed[BP_MAX_BLAMED - 1] == 2 * (BP_MAX_BLAMED - 1) + 1);
  CHECK(std::string(err.message).rfind("200 positions blamed, blamed[] holds the first 64: abort: timeout", 0) == 0);
}

TEST_CASE("a long message is cut to the buffer and stays terminated") {
  bp_error err{};
  bp::c_abi::fail(&err, BP_ERR_ABORTED, std::string(2000, 'x'), first_positions(300));
  CHECK(std::strlen(err.message) == sizeof err.message - 1);
  CHECK(std::string(err.message).rfind("300 positions blamed", 0) == 0);
  CHECK(bp::c_abi::succeed(&err) == BP_OK);
  CHECK(err.kind == BP_OK);
  CHECK(err.blamed_count == 0);
  CHECK(err.message[0] == '\0');
}

TEST_CASE("no bp_error to fill: the kind still comes back") {
  CHECK(bp::c_abi::fail(nullptr, BP_ERR_TIMEOUT, "timeout", first_positions(3)) == BP_ERR_TIMEOUT);
}
