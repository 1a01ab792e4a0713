#include "bp/mpc/session.hpp"

#include "bp/range_proof.hpp"

namespace bp::mpc {

size_t SessionParams::padded_m() const {
  size_t m = 1;
  while (m < parties) m *= 2;
  return m;
}

bool SessionParams::valid() const { return is_valid_bitsize(n) && parties >= 1 && parties <= kMaxParties; }

std::string session_label(std::string_view session_id, size_t n, size_t parties, std::string_view user_label) {
  SessionParams p{n, parties, {}};
  return "bp-agg/v" + std::to_string(kProtocolVersion) + " session=" + std::string(session_id) +
         " n=" + std::to_string(n) + " m=" + std::to_string(p.padded_m()) + " parties=" + std::to_string(parties) +
         " label=" + std::string(user_label);
}

}  // namespace bp::mpc
