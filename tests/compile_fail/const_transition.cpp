// Misuse: a transition on a const state (it cannot be consumed).
#include "common.hpp"

int main() {
  const auto dealer = make_dealer();
  return std::move(dealer).receive_bit_commitments({}).ok();
}
