// Misuse: a constraint-system party taking its seat twice from the same state.
#include "common.hpp"

int main() {
  const auto list = *bp::GadgetList::parse("range:8");
  auto party = make_r1cs_party();
  auto once = std::move(party).take_seat(list, 0, "compile");
  auto twice = party.take_seat(list, 0, "compile");
  return once.ok() && twice.ok();
}
