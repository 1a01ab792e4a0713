// Unsigned 64-bit decimals as the project writes them (std::to_string): digits only, no sign,
// no leading zero, no overflow. The one reader for labels and gadget lists, so that a text
// parses back to a number only in the form that number prints in.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bp {

std::optional<uint64_t> parse_decimal_u64(std::string_view text);

}  // namespace bp
