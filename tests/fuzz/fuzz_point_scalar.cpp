// libFuzzer target for 32-byte points and scalars from outside: whatever decodes must encode
// back to the same bytes (so exactly one encoding of each value is accepted).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 32) return 0;
  bp::CompressedRistretto c;
  std::memcpy(c.bytes.data(), data, 32);
  if (auto p = bp::RistrettoPoint::decompress(c); p && !(p->compress() == c)) std::abort();
  if (auto s = bp::Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(data, 32));
      s && std::memcmp(s->to_bytes().data(), data, 32) != 0)
    std::abort();
  if (size >= 64) (void)bp::Scalar::from_bytes_mod_order_wide(std::span<const uint8_t, 64>(data, 64));
  return 0;
}
