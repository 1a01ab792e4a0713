// A quorum session before its set is fixed (wire 1.7). The operator lists N parties and
// asks for at least K of them. Parties who join are seated but told nothing: no positions,
// no label, nothing to commit to. When every listed party is present, or the join window
// ends with at least K of them, the set is fixed: the parties present, in the operator's
// order, with their values, bounds or gadget items, make the session's terms (and label),
// the kind's dealer is made for them, and only then does each party hear its Joined. A
// party that leaves before that frees its seat; nothing was committed, so nobody is blamed.
#include <algorithm>

#include "observability/log.hpp"
#include "session/session.hpp"

namespace bp::server {

bool AggregationSession::gathering() const {
  return terms_.gathering() && std::holds_alternative<std::monostate>(stage_);
}

void AggregationSession::hold_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link,
                                   const std::vector<uint8_t>& token, const std::optional<wire::PublicKey>& key) {
  Seat& seat = seats_[seat_index];
  if (seat.link != link) return;  // gone while the record took its seat
  seat.held_token = token;
  seat.held_key = key;
  // Routes its frames and its disconnection here; it hears nothing until the set is fixed.
  link->seated(weak_from_this(), seat_index, seat.shape.positions);
  log::info("party waits for the set", {{"session", id()},
                                        {"seat", seat_index},
                                        {"remote", seat.peer},
                                        {"party_key", key ? wire::public_key_hex(*key) : std::string("anonymous")},
                                        {"joined", seats_taken()},
                                        {"listed", seats_.size()}});
  const bool everyone = std::all_of(seats_.begin(), seats_.end(),
                                    [](const Seat& s) { return s.taken && s.link && !s.held_token.empty(); });
  if (everyone) fix_set();
}

void AggregationSession::free_seat(size_t seat_index, const std::string& why) {
  Seat& seat = seats_[seat_index];
  log::info("party left before the set was fixed", {{"session", id()}, {"seat", seat_index}, {"reason", why}});
  if (seat.link) {
    seat.link->send(frame_of(wire::AbortMsg{why, {}}));
    seat.link->close();
    seat.link.reset();
    env_.metrics->party_left();
  }
  std::fill(seat.held_token.begin(), seat.held_token.end(), uint8_t{0});
  seat.taken = false;
  seat.token_hash = {};
  seat.peer.clear();
  seat.grace.reset();
  seat.held_token.clear();
  seat.held_key.reset();
  publish_progress();
  persist_then([] {});  // a replica taking over must not hold the seat for it
}

void AggregationSession::window_ended() {
  std::vector<size_t> absent;
  size_t present = 0;
  for (size_t j = 0; j < seats_.size(); ++j) {
    if (seats_[j].taken && seats_[j].link && !seats_[j].held_token.empty())
      ++present;
    else
      for (size_t p : blame_of_seat(j)) absent.push_back(p);
  }
  if (present >= terms_.min_parties) return fix_set();
  abort(AbortKind::QuorumNotReached,
        "quorum not reached: " + std::to_string(present) + " of " + std::to_string(seats_.size()) +
            " listed parties joined before the join window ended, " + std::to_string(terms_.min_parties) + " needed",
        std::move(absent));
}

void AggregationSession::fix_set() {
  // Who is in: every seat taken whose party is connected now, in the operator's order. A
  // party away on its grace is left out (it may be back, but the set cannot wait for it).
  std::vector<size_t> present;
  for (size_t j = 0; j < seats_.size(); ++j)
    if (seats_[j].taken && seats_[j].link && !seats_[j].held_token.empty()) present.push_back(j);
  ++sets_fixed_;
  struct Held {
    std::shared_ptr<PartyLink> link;
    std::vector<uint8_t> token;
    std::optional<wire::PublicKey> key;
    wire::TokenHash token_hash;
    std::string peer;
  };
  std::vector<Held> held;
  for (size_t j : present)
    held.push_back({seats_[j].link, seats_[j].held_token, seats_[j].held_key, seats_[j].token_hash, seats_[j].peer});
  for (auto& seat : seats_) std::fill(seat.held_token.begin(), seat.held_token.end(), uint8_t{0});
  const size_t listed = seats_.size();

  // The fixed set's terms, and its kind's dealer made for them (the old one had none yet).
  terms_ = terms_.with_set(present);
  party_count_ = present.size();
  kind_ = make_session_kind(terms_, env_);
  auto replayed = kind_->replay(first_checkpoint(terms_));
  const auto shapes = terms_.seat_shapes();
  seats_.clear();
  seats_.resize(shapes.size());
  seat_of_position_.assign(params_.positions, 0);
  for (size_t j = 0; j < seats_.size(); ++j) {
    seats_[j].shape = shapes[j];
    seats_[j].taken = true;
    seats_[j].link = held[j].link;
    seats_[j].token_hash = held[j].token_hash;
    seats_[j].peer = held[j].peer;
    for (size_t p = 0; p < shapes[j].positions; ++p) seat_of_position_[shapes[j].first_position + p] = j;
    // Its frames and disconnection name its seat in the set from now on.
    held[j].link->seated(weak_from_this(), j, shapes[j].positions);
  }
  inbox_.assign(params_.positions, std::nullopt);
  last_accepted_.assign(seats_.size(), {});
  if (auto* cannot = std::get_if<SessionKind::Abort>(&replayed)) return abort(cannot->kind, cannot->why, {});
  if (auto* why = std::get_if<std::string>(&replayed))
    return abort(AbortKind::Internal, "the fixed set's dealer cannot be made: " + *why, {});
  publish_progress();
  env_.metrics->set_fixed(terms_.not_joined.size());
  log::info("the session's set is fixed", {{"session", id()},
                                           {"parties", seats_.size()},
                                           {"listed", listed},
                                           {"positions", params_.positions},
                                           {"not_joined", terms_.not_joined.size()}});
  // The record holds the set before any party hears of it; then each hears its seat, and the
  // first round starts with the first of them.
  persist_then([this, held = std::move(held)]() mutable {
    for (size_t j = 0; j < held.size(); ++j) {
      announce_seat(j, held[j].link, held[j].token, held[j].key, false);
      std::fill(held[j].token.begin(), held[j].token.end(), uint8_t{0});
    }
  });
}

}  // namespace bp::server
