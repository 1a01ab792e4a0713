// Misuse: copying a state to answer a challenge twice.
#include "common.hpp"

int main() {
  auto party = make_party();
  auto copy = party;
  return std::move(copy).assign_position(0).ok();
}
