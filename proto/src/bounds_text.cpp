#include "bp/wire/bounds_text.hpp"

#include <charconv>

namespace bp::wire {
namespace {

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    if (comma == text.size()) return out;
    start = comma + 1;
  }
}

std::optional<uint64_t> number(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// One entry per value, or one for all.
Result<std::vector<std::string_view>, std::string> entries(std::string_view text, std::string_view flag, size_t count) {
  auto list = split(text);
  if (list.size() == 1) list.assign(count, list[0]);
  if (list.size() != count) return "--" + std::string(flag) + " must have one entry per value, or one for all";
  return list;
}

}  // namespace

Result<std::vector<uint64_t>, std::string> parse_u64_list(std::string_view text, std::string_view what) {
  std::vector<uint64_t> out;
  for (auto entry : split(text)) {
    const auto v = number(entry);
    if (!v) return std::string(what) + ": '" + std::string(entry) + "' is not an unsigned 64-bit integer";
    out.push_back(*v);
  }
  return out;
}

Result<std::vector<ValueBounds>, std::string> parse_bounds_text(const std::optional<std::string>& mins,
                                                                const std::optional<std::string>& maxes, size_t count) {
  std::vector<ValueBounds> bounds(count);
  if (mins) {
    auto list = entries(*mins, "min", count);
    if (!list) return list.error();
    for (size_t i = 0; i < count; ++i) {
      const auto v = number((*list)[i]);
      if (!v) return "--min: '" + std::string((*list)[i]) + "' is not an unsigned 64-bit integer";
      bounds[i].min = *v;
    }
  }
  if (maxes) {
    auto list = entries(*maxes, "max", count);
    if (!list) return list.error();
    for (size_t i = 0; i < count; ++i) {
      if ((*list)[i].empty()) continue;
      const auto v = number((*list)[i]);
      if (!v) return "--max: '" + std::string((*list)[i]) + "' is not an unsigned 64-bit integer";
      bounds[i].max = *v;
    }
  }
  for (const auto& b : bounds)
    if (b.max && *b.max < b.min) return "--min " + std::to_string(b.min) + " is above --max " + std::to_string(*b.max);
  return bounds;
}

}  // namespace bp::wire
