// Lowercase hexadecimal, the text form of every byte string the tools print or read.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

std::string to_hex(std::span<const uint8_t> bytes);
// Accepts upper or lower case; rejects odd lengths and any non-hex character.
std::optional<std::vector<uint8_t>> from_hex(std::string_view hex);

}  // namespace bp
