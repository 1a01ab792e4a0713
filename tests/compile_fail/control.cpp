// Correct use: every transition on an rvalue, in order. Must compile.
#include "common.hpp"

int main() {
  auto party = make_party();
  auto dealer = make_dealer();
  auto r1 = std::move(party).assign_position(0);
  auto d1 = std::move(dealer).receive_bit_commitments({r1->second});
  auto r2 = std::move(r1->first).apply_challenge(d1->second);
  auto d2 = std::move(d1->first).receive_poly_commitments({r2->second});
  auto r3 = std::move(r2->first).apply_challenge(d2->second);
  auto result = std::move(d2->first).receive_shares({r3->second});
  return result.ok() && r3->first.check_result(*result).ok() ? 0 : 1;
}
