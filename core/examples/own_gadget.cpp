// Your own gadget, proved and verified with the library as a backend gets it (find_package(bp),
// target_link_libraries(... bp::core)): "the third committed value is the product of the first
// two", x·y = z. One function states it; the prover and the verifier each run it over their
// own variables, so both build the same constraint system. The transcript's label names the
// statement; a proof holds only under it.
//
//   example_own_gadget            # prints "x·y = z: a 1-multiplier proof of ... bytes verifies"
#include <cstdio>

#include "bp/generators.hpp"
#include "bp/r1cs.hpp"
#include "bp/random.hpp"
#include "bp/transcript.hpp"

namespace {

// The gadget: one multiplier whose inputs are x and y, and its output constrained to z.
void product(bp::ConstraintSystem& cs, bp::Variable x, bp::Variable y, bp::Variable z) {
  const bp::MultiplierVariables gate = cs.multiply(x, y);
  cs.constrain(bp::LinearCombination(gate.output) - z);
}

constexpr const char* kLabel = "example: x·y = z";

}  // namespace

int main() {
  const bp::PedersenGens pc;
  const bp::BulletproofGens& gens = bp::shared_generators(1, 1);  // the padded multipliers: 1
  bp::SystemRandom rng;

  // The prover commits its values (each with a blinding of its own) and states the gadget.
  const uint64_t x = 6, y = 7, z = 42;
  bp::Transcript proving(kLabel);
  bp::R1CSProver prover(pc, proving);
  const auto [X, x_var] = prover.commit(bp::Scalar::from_u64(x), bp::Scalar::random(rng));
  const auto [Y, y_var] = prover.commit(bp::Scalar::from_u64(y), bp::Scalar::random(rng));
  const auto [Z, z_var] = prover.commit(bp::Scalar::from_u64(z), bp::Scalar::random(rng));
  product(prover, x_var, y_var, z_var);
  auto proof = std::move(prover).prove(gens);
  if (!proof) {
    std::fprintf(stderr, "prove: %s\n", bp::describe(proof.error()).c_str());
    return 1;
  }

  // The verifier sees the commitments and the proof, and states the same gadget over them.
  bp::Transcript verifying(kLabel);
  bp::R1CSVerifier verifier(verifying);
  const bp::Variable vx = verifier.commit(X), vy = verifier.commit(Y), vz = verifier.commit(Z);
  product(verifier, vx, vy, vz);
  if (auto ok = std::move(verifier).verify(*proof, pc, gens); !ok) {
    std::fprintf(stderr, "verify: %s\n", bp::describe(ok.error()).c_str());
    return 1;
  }
  std::printf("x·y = z: a 1-multiplier proof of %zu bytes verifies\n", proof->to_bytes().size());
  return 0;
}
