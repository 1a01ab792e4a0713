// libFuzzer target for the wire decoder: any byte string must decode to a message or a
// typed error, never crash, hang or trip a sanitizer; whatever decodes must re-encode to a
// frame that decodes to the same encoding again.
#include <cstdint>
#include <cstdlib>

#include "bp/wire/codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = bp::wire::decode({data, size});
  if (!decoded) return 0;
  const auto once = bp::wire::encode(*decoded);
  auto again = bp::wire::decode(once);
  if (!again || bp::wire::encode(*again) != once) std::abort();
  return 0;
}
