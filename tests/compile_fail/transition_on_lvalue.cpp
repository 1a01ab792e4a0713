// Misuse: a transition on an lvalue state (it would leave a usable copy behind).
#include "common.hpp"

int main() {
  auto party = make_party();
  auto r1 = party.assign_position(0);
  return r1.ok();
}
