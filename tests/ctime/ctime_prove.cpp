// Constant-time check of the prover (after libsecp256k1's valgrind_ctime_test): the value,
// the blinding and every byte of randomness are marked undefined for valgrind's memcheck,
// so a branch or a memory index that depends on them is reported as a use of undefined
// memory. Run as: valgrind --error-exitcode=42 ctime_prove
//
// Values the protocol makes public (messages to the dealer, the in-range bit) are
// declassified inside the prover at the point they are sent.
//
// Built a second time with BP_CTIME_IFMA_EMULATED: the prover then runs on the IFMA
// backend's code over emulated instructions (tests/support/ifma_emulated_kernels.hpp),
// which is how the IFMA code is checked on CPUs without IFMA; and a third time with
// BP_CTIME_IFMA_PAIRED as well, for its kernels on pairs of points (msm/msm_pairs.inc).
//
// BP_BACKEND names the backend to check, and the run fails if another one ran. Valgrind
// executes mulx, adcx and adox but hides ADX from CPUID, so for BP_BACKEND=mulx the
// test installs the mulx kernels itself when it runs under valgrind.
#include <sodium.h>
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "bp/backend.hpp"
#include "bp/bounds.hpp"
#include "bp/random.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/range_proof.hpp"
#include "msm/msm_kernels.hpp"
#include "range/prove_with_rng.hpp"
#ifdef BP_CTIME_IFMA_EMULATED
#include "ifma_emulated_kernels.hpp"
#endif

namespace {

// libsodium randomness, marked secret as it is handed out.
class SecretRandom final : public bp::RandomSource {
 public:
  void fill(std::span<uint8_t> out) override {
    randombytes_buf(out.data(), out.size());
    VALGRIND_MAKE_MEM_UNDEFINED(out.data(), out.size());
  }
};

}  // namespace

int main() {
  if (sodium_init() < 0) return 1;
#ifdef BP_CTIME_IFMA_EMULATED
  const bp::test::IfmaAvailable ifma;
#ifdef BP_CTIME_IFMA_PAIRED
  bp::detail::use_ifma_msm_kernels(&bp::detail::ifma_emulated::kMsmKernelsPaired);
#endif
  bp::set_backend(bp::Backend::avx512ifma);
#endif
  const char* wanted = std::getenv("BP_BACKEND");
  if (wanted != nullptr && bp::backend_from_name(wanted) == bp::Backend::mulx && RUNNING_ON_VALGRIND &&
      !bp::backend_supported(bp::Backend::mulx)) {
    bp::detail::use_mulx_msm_kernels(&bp::detail::mulx::kMsmKernels);
    bp::set_backend(bp::Backend::mulx);
  }
  if (wanted != nullptr && std::string_view(wanted) != bp::backend_name(bp::active_backend())) {
    std::fprintf(stderr, "BP_BACKEND=%s asked for a backend that is not the active one (%s)\n", wanted,
                 bp::backend_name(bp::active_backend()));
    return 1;
  }
  const bp::BulletproofGens bp_gens(64, 2);
  const bp::PedersenGens pc_gens;
  SecretRandom rng;
  for (size_t n : {8, 64}) {
    uint64_t values[2] = {n == 8 ? 200u : 0x0123456789abcdefULL, 7};
    bp::Scalar blindings[2] = {bp::Scalar::random(rng), bp::Scalar::random(rng)};
    VALGRIND_MAKE_MEM_UNDEFINED(values, sizeof values);
    VALGRIND_MAKE_MEM_UNDEFINED(blindings, sizeof blindings);
    bp::Transcript transcript("ctime");
    auto proved = bp::detail::prove_multiple_with_rng(bp_gens, pc_gens, transcript, values, blindings, n, rng);
    // The proof is public; checking it must not trip the check either.
    const bool ok = proved.ok();
    VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof ok);
    if (!ok) {
      std::fprintf(stderr, "prover failed\n");
      return 1;
    }
    bp::Transcript verifier("ctime");
    if (!proved->proof.verify_multiple(bp_gens, pc_gens, verifier, proved->commitments, n)) {
      std::fprintf(stderr, "proof did not verify\n");
      return 1;
    }
  }
  // A bounded value: its positions (v - min, max - v; blindings γ, -γ) come from the secret
  // value without a branch on it; only whether it lies within its bounds is declassified.
  {
    uint64_t value = 0x0123456789abcd42ULL;
    bp::Scalar blinding = bp::Scalar::random(rng);
    VALGRIND_MAKE_MEM_UNDEFINED(&value, sizeof value);
    VALGRIND_MAKE_MEM_UNDEFINED(&blinding, sizeof blinding);
    const bp::ValueBounds bounds[1] = {{0x0123456789abcd00ULL, 0x0123456789abcdffULL}};
    auto w = bp::bounded_witness({&value, 1}, {&blinding, 1}, bounds, 8);
    const bool shifted = w.ok();
    VALGRIND_MAKE_MEM_DEFINED(&shifted, sizeof shifted);
    if (!shifted) {
      std::fprintf(stderr, "bounded witness refused\n");
      return 1;
    }
    bp::Transcript transcript(bp::bounded_label("ctime", bounds));
    auto proved = bp::detail::prove_multiple_with_rng(bp_gens, pc_gens, transcript, w->values, w->blindings, 8, rng);
    w->wipe();
    const bool ok = proved.ok();
    VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof ok);
    bp::Transcript verifier(bp::bounded_label("ctime", bounds));
    if (!ok || !proved->proof.verify_multiple(bp_gens, pc_gens, verifier, proved->commitments, 8)) {
      std::fprintf(stderr, "bounded proof failed\n");
      return 1;
    }
  }
  // A constraint system: a shuffle and a range over secret values and blindings, every wire,
  // the transcript RNG's keys and the outside randomness secret; only what the proof shows is
  // declassified, inside the prover.
  {
    const auto list = bp::GadgetList::parse("shuffle:3;range:64");
    if (!list) return 1;
    uint64_t values[7] = {11, 22, 33, 33, 11, 22, 0x0123456789abcdefULL};
    VALGRIND_MAKE_MEM_UNDEFINED(values, sizeof values);
    bp::Transcript transcript("ctime r1cs");
    list->append_prefixes(transcript);
    bp::R1CSProver prover(pc_gens, transcript);
    std::vector<bp::Variable> vars;
    std::vector<bp::CompressedRistretto> commitments;
    for (uint64_t v : values) {
      bp::Scalar blinding = bp::Scalar::random(rng);
      auto [V, var] = prover.commit(bp::Scalar::from_u64(v), blinding);
      VALGRIND_MAKE_MEM_DEFINED(&V, sizeof V);  // a commitment is public
      commitments.push_back(V);
      vars.push_back(var);
    }
    const bool built = list->build(prover, vars, std::span<const uint64_t>(values)).ok();
    const bp::BulletproofGens r1cs_gens(list->generators_capacity(), 1);
    auto proof = std::move(prover).prove_with_rng(r1cs_gens, rng);
    const bool ok = built && proof.ok();
    VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof ok);
    if (!ok) {
      std::fprintf(stderr, "the R1CS prover refused\n");
      return 1;
    }
    bp::Transcript verifier_transcript("ctime r1cs");
    list->append_prefixes(verifier_transcript);
    bp::R1CSVerifier verifier(verifier_transcript);
    std::vector<bp::Variable> seen;
    for (const auto& V : commitments) seen.push_back(verifier.commit(V));
    if (!list->build(verifier, seen, std::nullopt) || !std::move(verifier).verify(*proof, pc_gens, r1cs_gens)) {
      std::fprintf(stderr, "the R1CS proof did not verify\n");
      return 1;
    }
  }
  std::printf("ctime: prover ran with secrets marked undefined (%s backend)\n", bp::backend_name(bp::active_backend()));
  return 0;
}
