// Compiles, but clang-tidy's bugprone-use-after-move must flag it (and at run time the
// state answers ConsumedState).
#include "common.hpp"

int main() {
  auto party = make_party();
  auto r1 = std::move(party).assign_position(0);
  auto r2 = std::move(party).assign_position(0);
  return r1.ok() && r2.ok();
}
