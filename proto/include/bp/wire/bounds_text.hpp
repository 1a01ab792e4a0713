// Bounds as the command lines write them: "--min a1,a2,..." and "--max b1,b2,...", one entry
// per value or one for all, an empty --max entry meaning a minimum only. Shared by `bp` and
// `bp-party` (and the bindings' text forms), so every front end reads them alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/errors.hpp"

namespace bp::wire {

// Comma-separated unsigned 64-bit integers ("5,7,9"); the reason names `what` on failure.
Result<std::vector<uint64_t>, std::string> parse_u64_list(std::string_view text, std::string_view what);

// `count` bounds from the --min and --max texts (either may be absent: no --min is 0, no
// --max is none). Refuses a min above its max, naming both.
Result<std::vector<ValueBounds>, std::string> parse_bounds_text(const std::optional<std::string>& mins,
                                                                const std::optional<std::string>& maxes, size_t count);

}  // namespace bp::wire
