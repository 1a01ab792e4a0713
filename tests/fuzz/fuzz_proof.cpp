// libFuzzer target for proof bytes from outside: parsing and verifying any byte string must
// end in a proof or a typed error; an accepted parse re-serialises to the same bytes.
#include <cstdint>
#include <cstdlib>

#include "bp/range_proof.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bp::BulletproofGens gens(64, 4);
  static const bp::PedersenGens pc;
  auto proof = bp::RangeProof::from_bytes({data, size});
  if (!proof) return 0;
  if (proof->to_bytes() != std::vector<uint8_t>(data, data + size)) std::abort();
  // Verify against a fixed commitment: any outcome but a crash is fine.
  bp::Transcript t("fuzz");
  const bp::CompressedRistretto V = pc.B.compress();
  (void)proof->verify_single(gens, pc, t, V, 8);
  return 0;
}
