// Misuse: a constraint-system party answering a round before it has a seat.
#include "common.hpp"

int main() {
  auto party = make_r1cs_party();
  std::vector<bp::R1CSFirstPhaseShare> all;
  return std::move(party).apply(all).ok();
}
