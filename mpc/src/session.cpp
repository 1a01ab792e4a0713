#include "bp/mpc/session.hpp"

#include "bp/range_proof.hpp"

namespace bp::mpc {

size_t SessionParams::padded_m() const {
  size_t m = 1;
  while (m < parties) m *= 2;
  return m;
}

bool SessionParams::valid() const { return is_valid_bitsize(n) && parties >= 1 && parties <= kMaxParties; }

std::string session_label(std::string_view session_id, size_t n, size_t parties, std::string_view user_label,
                          size_t bounded_values) {
  SessionParams p{n, parties, {}};
  std::string out = "bp-agg/v" + std::to_string(kProtocolVersion) + " session=" + std::string(session_id) +
                    " n=" + std::to_string(n) + " m=" + std::to_string(p.padded_m()) +
                    " parties=" + std::to_string(parties);
  if (bounded_values != 0) out += " bounded=" + std::to_string(bounded_values);
  return out + " label=" + std::string(user_label);
}

std::string session_transcript_label(std::string_view session_id, size_t n, size_t positions,
                                     std::string_view user_label, std::span<const ValueBounds> bounds) {
  if (bounds.empty()) return session_label(session_id, n, positions, user_label);
  // The count sits in the structured part before the user's label: no label, whatever it
  // says, makes an unbounded session's transcript label equal to a bounded one's.
  return bounded_label(session_label(session_id, n, positions, "", bounds.size()) + std::string(user_label), bounds);
}

}  // namespace bp::mpc
