// What an operator asked of a session (its terms), fixed for the session's life, and their
// checkpoint form: the seats and positions they give, the first checkpoint a new session
// is claimed with, and the terms read back from a checkpoint. Kept apart from the state
// machine (session.cpp) so a change to what a seat holds starts here.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/errors.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/wire/checkpoint.hpp"
#include "bp/wire/codec.hpp"

namespace bp::server {

// Who created a session: an operator key, or (anonymous) nobody but an address. Caps on open
// sessions count per owner, and only the owner may list or cancel it.
struct SessionOwner {
  std::optional<wire::PublicKey> operator_key;
  std::string address;
  bool same_as(const SessionOwner& other) const {
    return operator_key ? operator_key == other.operator_key : !other.operator_key && address == other.address;
  }
};

// Where one party sits: its positions (one per value, two for a value with both bounds)
// and its values, each a contiguous run in the session's order.
struct SeatShape {
  size_t first_position = 0, positions = 1;
  size_t first_value = 0, values = 1;
};

// What the operator asked for, fixed for the session's life (and kept in its checkpoint).
struct SessionTerms {
  std::string id;
  mpc::SessionParams params;             // params.positions counts positions
  std::vector<wire::PublicKey> allowed;  // the parties' keys in seat order; empty: anyone (anonymous)
  std::chrono::milliseconds round_timeout{30000};
  SessionOwner owner;
  std::vector<uint32_t> values_per_party{};  // one per party; empty: one value each
  std::vector<ValueBounds> bounds{};         // one per value; empty: none
  // 1.5: a gadget session's list, one item per seat (params.n 0, params.positions the seats,
  // one position each); none: a range session.
  std::optional<GadgetList> gadgets{};
  // 1.7: a quorum of the listed parties (0: every one) and how long joining may take (0: the
  // round timeout). Until the set is fixed (listed_parties 0) the terms are the listed ones;
  // with_set gives the fixed set's.
  uint32_t min_parties = 0;
  std::chrono::milliseconds join_window{0};
  size_t listed_parties = 0;                       // the set is fixed: how many the operator listed
  std::vector<uint32_t> not_joined{};              // the listed seats left out, operator's order
  std::vector<wire::PublicKey> not_joined_keys{};  // their keys, in a keyed session
  std::string follows{};                           // a successor: the session it goes on from (its label names it)
  bool gadget_successors = false;                  // a gadget quorum session may go on without its culprits

  std::vector<SeatShape> seat_shapes() const;
  std::span<const ValueBounds> bounds_of(const SeatShape& seat) const;
  // Waiting for a quorum: no party hears its seat (positions, label) before the set is fixed.
  bool gathering() const { return min_parties != 0 && listed_parties == 0; }
  std::chrono::milliseconds joining_time() const {
    return gathering() && join_window.count() != 0 ? join_window : round_timeout;
  }
  // The terms of the set `present` (listed seats, ascending) fixes: their keys, values,
  // bounds or gadget items in seat order, the positions those take, and the transcript label
  // rebuilt over them with the application's label; the rest recorded as not joined.
  SessionTerms with_set(const std::vector<size_t>& present) const;
  // A fixed set's successor under `next_id` (a gadget list loses the culprits' items): the seats `remaining`
  // (ascending) listed again, with this session's quorum and window, and a label whose application label names this
  // session after it (" after=<id>"), so a chain's label names every session before it. Nothing when that label would
  // be too long for any decoder.
  std::optional<SessionTerms> successor(const std::vector<size_t>& remaining, const std::string& next_id) const;
};

// The session's values and bounds as an operator asked for them: the positions they take,
// or why they cannot be (bits that do not cover a bound, more positions than `max_positions`).
Result<size_t, std::string> positions_of(size_t bits, size_t parties, const std::vector<uint32_t>& values_per_party,
                                         const std::vector<ValueBounds>& bounds, size_t max_positions);

// A gadget list as an operator asked for it, for `parties` seats: the list, or why this
// dealer does not run it (its items are not the parties, or it is larger than a frame holds).
Result<GadgetList, std::string> gadgets_of(const std::string& text, size_t parties, size_t max_positions);

// The checkpoint a new session is claimed with: its terms, free seats and a fresh padding seed.
wire::DealerCheckpoint first_checkpoint(const SessionTerms& terms);
// The terms a checkpoint states, if it is a checkpoint of session `id` (its label names it).
std::optional<SessionTerms> terms_of(const std::string& id, const wire::DealerCheckpoint& checkpoint);

}  // namespace bp::server
