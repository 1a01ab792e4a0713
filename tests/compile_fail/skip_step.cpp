// Misuse: skipping the position step and answering a bit challenge directly.
#include "common.hpp"

int main() {
  auto party = make_party();
  bp::mpc::BitChallengeMsg challenge;
  return std::move(party).apply_challenge(challenge).ok();
}
