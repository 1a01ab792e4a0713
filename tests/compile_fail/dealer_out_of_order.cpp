// Misuse: the dealer taking poly commitments before bit commitments.
#include "common.hpp"

int main() {
  auto dealer = make_dealer();
  return std::move(dealer).receive_poly_commitments({}).ok();
}
