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
  if (!result.ok() || !r3->first.check_result(*result).ok()) return 1;

  // The constraint-system sessions' states, the same way.
  const auto list = *bp::GadgetList::parse("range:8");
  auto seat = std::move(make_r1cs_party()).take_seat(list, 0, "compile");
  auto e1 = std::move(make_r1cs_dealer()).receive({seat->second});
  auto s2 = std::move(seat->first).apply(std::span(&seat->second, 1));
  auto e2 = std::move(*e1).receive({s2->second});
  auto s3 = std::move(s2->first).apply(std::span(&s2->second, 1));
  auto e3 = std::move(*e2).receive({s3->second});
  auto s4 = std::move(s3->first).apply(std::span(&s3->second, 1));
  auto proof = std::move(*e3).receive({s4->second});
  return proof.ok() && s4->first.check_result(proof->commitments, proof->proof).ok() ? 0 : 1;
}
