// Misuse: a party over generators that are gone before its first round (it keeps them by
// reference).
#include "common.hpp"

int main() {
  static const bp::BulletproofGens gens(8, 1);
  return bp::mpc::PartyAwaitingPosition::create(gens, bp::PedersenGens(), {8, 1, "compile"}, 1, bp::Scalar::one()).ok();
}
