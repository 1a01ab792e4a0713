// libFuzzer target for bp-dealer's config file: any text parses or is refused with a message.
#include <cstdint>
#include <string>

#include "bp/server/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto out = bp::server::parse_config_text(text, "fuzz", {});
  if (!out.ok && out.message.empty()) __builtin_trap();
  return 0;
}
