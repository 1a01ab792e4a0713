// Misuse: answering the bit-challenge round with a poly challenge.
#include "common.hpp"

int main() {
  auto party = make_party();
  auto r1 = std::move(party).assign_position(0);
  bp::mpc::PolyChallengeMsg wrong;
  return std::move(r1->first).apply_challenge(wrong).ok();
}
