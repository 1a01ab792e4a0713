// Misuse: answering the first-phase round with the second phase's messages.
#include "common.hpp"

int main() {
  const auto list = *bp::GadgetList::parse("range:8");
  auto seat = std::move(make_r1cs_party()).take_seat(list, 0, "compile");
  std::vector<bp::R1CSSecondPhaseShare> wrong(1);
  return std::move(seat->first).apply(wrong).ok();
}
