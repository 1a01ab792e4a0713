#include "bp/mpc/session.hpp"

#include <cstdint>

#include "bp/decimal.hpp"
#include "bp/range_proof.hpp"

namespace bp::mpc {

size_t SessionParams::padded_m() const {
  size_t m = 1;
  while (m < positions) m *= 2;
  return m;
}

bool SessionParams::valid() const { return is_valid_bitsize(bits) && positions >= 1 && positions <= kMaxPositions; }

std::string session_label_prefix(std::string_view session_id, size_t n, size_t positions, size_t bounded_values) {
  SessionParams p{n, positions, {}};
  std::string out = "bp-agg/v" + std::to_string(kProtocolVersion) + " session=" + std::string(session_id) +
                    " n=" + std::to_string(n) + " m=" + std::to_string(p.padded_m()) +
                    " parties=" + std::to_string(positions);
  if (bounded_values != 0) out += " bounded=" + std::to_string(bounded_values);
  return out + " label=";
}

std::string session_label(std::string_view session_id, size_t n, size_t positions, std::string_view user_label,
                          size_t bounded_values) {
  return session_label_prefix(session_id, n, positions, bounded_values) + std::string(user_label);
}

std::string session_transcript_label(std::string_view session_id, size_t n, size_t positions,
                                     std::string_view user_label, std::span<const ValueBounds> bounds) {
  if (bounds.empty()) return session_label(session_id, n, positions, user_label);
  // The count sits in the structured part before the user's label: no label, whatever it
  // says, makes an unbounded session's transcript label equal to a bounded one's.
  return bounded_label(session_label_prefix(session_id, n, positions, bounds.size()) + std::string(user_label), bounds);
}

namespace {

std::optional<std::vector<ValueBounds>> read_bounds_list(std::string_view text) {
  std::vector<ValueBounds> out;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t dots = item.find("..");
    if (dots == std::string_view::npos) return std::nullopt;
    auto min = parse_decimal_u64(item.substr(0, dots));
    if (!min) return std::nullopt;
    ValueBounds b{*min, std::nullopt};
    if (dots + 2 < item.size()) {
      auto max = parse_decimal_u64(item.substr(dots + 2));
      if (!max) return std::nullopt;
      b.max = *max;
    }
    out.push_back(b);
    if (out.size() > kMaxPositions) return std::nullopt;
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

std::optional<LabelTerms> read_session_transcript_label(std::string_view label, std::string_view session_id, size_t n,
                                                        size_t positions) {
  if (!SessionParams{n, positions, {}}.valid()) return std::nullopt;
  LabelTerms terms;
  const std::string unbounded_prefix = session_label_prefix(session_id, n, positions);
  if (label.starts_with(unbounded_prefix)) {
    terms.user_label = std::string(label.substr(unbounded_prefix.size()));
  } else {
    // "... parties=<m> bounded=<k> label=<user label> bounds=<list>": the list is the text after
    // the last " bounds=" (a list holds no space), whatever the user's label says.
    const std::string structured = session_label_prefix(session_id, n, positions, 1);
    const std::string before_count = structured.substr(0, structured.find(" bounded=") + 9);
    if (!label.starts_with(before_count)) return std::nullopt;
    const size_t list_at = label.rfind(" bounds=");
    if (list_at == std::string_view::npos) return std::nullopt;
    auto bounds = read_bounds_list(label.substr(list_at + 8));
    if (!bounds || bounded_positions(*bounds) != positions) return std::nullopt;
    const std::string prefix = session_label_prefix(session_id, n, positions, bounds->size());
    if (!label.starts_with(prefix) || list_at < prefix.size()) return std::nullopt;
    terms.user_label = std::string(label.substr(prefix.size(), list_at - prefix.size()));
    terms.bounds = std::move(*bounds);
    if (!check_bounds(terms.bounds, n)) return std::nullopt;
  }
  // The one test that matters: the terms rebuild this very label.
  if (session_transcript_label(session_id, n, positions, terms.user_label, terms.bounds) != label) return std::nullopt;
  return terms;
}

namespace {
std::string gadget_label_prefix(std::string_view session_id, std::string_view gadgets) {
  return "bp-agg-r1cs/v" + std::to_string(kProtocolVersion) + " session=" + std::string(session_id) +
         " gadgets=" + std::string(gadgets) + " label=";
}
}  // namespace

std::string gadget_session_label(std::string_view session_id, std::string_view gadgets, std::string_view user_label) {
  return gadget_label_prefix(session_id, gadgets) + std::string(user_label);
}

std::optional<std::string> read_gadget_session_label(std::string_view label, std::string_view session_id,
                                                     std::string_view gadgets) {
  if (gadgets.empty() || gadgets.find(' ') != std::string_view::npos) return std::nullopt;
  const std::string prefix = gadget_label_prefix(session_id, gadgets);
  if (!label.starts_with(prefix)) return std::nullopt;
  return std::string(label.substr(prefix.size()));
}

}  // namespace bp::mpc
