// Misuse: taking the position step twice (the next state has no such transition).
#include "common.hpp"

int main() {
  auto party = make_party();
  auto r1 = std::move(party).assign_position(0);
  return std::move(r1->first).assign_position(1).ok();
}
