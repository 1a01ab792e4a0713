// Misuse: a constraint-system dealer taking proof shares before the commitments.
#include "common.hpp"

int main() {
  auto dealer = make_r1cs_dealer();
  std::vector<bp::R1CSProofShare> shares(1);
  return std::move(dealer).receive(shares).ok();
}
