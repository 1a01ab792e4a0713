// Misuse: the dealer assembling shares straight after the bit round.
#include "common.hpp"

int main() {
  auto party = make_party();
  auto dealer = make_dealer();
  auto r1 = std::move(party).assign_position(0);
  auto d1 = std::move(dealer).receive_bit_commitments({r1->second});
  return std::move(d1->first).receive_shares({}).ok();
}
