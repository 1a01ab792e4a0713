// Misuse: a dealer over generators that are gone before its first round (it keeps them by
// reference).
#include "common.hpp"

int main() {
  static const bp::PedersenGens pc;
  return bp::mpc::DealerAwaitingBitCommitments::create(bp::BulletproofGens(8, 1), pc, {8, 1, "compile"}).ok();
}
