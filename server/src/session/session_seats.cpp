// The session's seats: who may sit where, a party taking, resuming or losing its seat, the
// Joined it is told, and which positions blame names as one party. The rounds are in
// session.cpp, the record in session_persistence.cpp.
#include <sodium.h>

#include <algorithm>

#include "bp/wire/auth.hpp"
#include "observability/log.hpp"
#include "session/refusals.hpp"
#include "session/session.hpp"

namespace bp::server {

std::vector<size_t> AggregationSession::blame_of_seat(size_t seat) const {
  std::vector<size_t> out(seats_[seat].shape.positions);
  for (size_t p = 0; p < out.size(); ++p) out[p] = seats_[seat].shape.first_position + p;
  return out;
}

std::vector<size_t> AggregationSession::blame_of_positions(const std::vector<size_t>& positions) const {
  std::vector<bool> blamed(seats_.size(), false);
  for (size_t p : positions)
    if (p < seat_of_position_.size()) blamed[seat_of_position_[p]] = true;
  std::vector<size_t> out;
  for (size_t j = 0; j < seats_.size(); ++j)
    if (blamed[j])
      for (size_t p : blame_of_seat(j)) out.push_back(p);
  return out;
}

PartyStatement PartyStatement::of(const wire::JoinSessionMsg& join) {
  PartyStatement out{join.values, !join.gadget.empty(), std::nullopt};
  if (!out.states_gadget) return out;
  if (auto stated = GadgetList::parse(join.gadget); stated && stated->items().size() == 1)
    out.gadget = stated->items().front();
  return out;
}

wire::JoinedMsg AggregationSession::joined_message(size_t seat, const std::vector<uint8_t>& token) const {
  const SeatShape& shape = seats_[seat].shape;
  const auto bounds = terms_.bounds_of(shape);
  return wire::JoinedMsg{shape.first_position,
                         params_.bits,
                         params_.positions,
                         params_.label,
                         token,
                         shape.positions,
                         {bounds.begin(), bounds.end()},
                         terms_.gadgets ? terms_.gadgets->text() : std::string(),
                         seats_.size()};
}

bool AggregationSession::from_seat(size_t seat, const std::shared_ptr<PartyLink>& link) const {
  return seat < seats_.size() && seats_[seat].link == link;
}

size_t AggregationSession::seats_taken() const {
  return static_cast<size_t>(std::count_if(seats_.begin(), seats_.end(), [](const Seat& s) { return s.taken; }));
}

void AggregationSession::resume_seat(size_t index, const std::shared_ptr<PartyLink>& link,
                                     const std::vector<uint8_t>& token) {
  Seat& seat = seats_[index];
  seat.link = link;
  seat.grace.reset();
  env_.metrics->party_joined();
  if (gathering()) return hold_seat(index, link, token, std::nullopt);
  link->seated(weak_from_this(), index, seat.shape.positions);
  link->send(frame_of(joined_message(index, token)));
  if (last_broadcast_) link->send(last_broadcast_);
  log::info("party resumed its seat", {{"session", id()}, {"position", seat.shape.first_position}, {"epoch", epoch_}});
}

void AggregationSession::on_join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token,
                                 std::optional<wire::PublicKey> key, std::vector<uint8_t> seat_token,
                                 const PartyStatement& statement) {
  auto refuse = [&](const std::string& why, wire::RefusalKind kind = wire::RefusalKind::None) {
    log::warn("join refused", {{"session", id()}, {"remote", link->peer()}, {"reason", why}});
    link->send(frame_of(wire::AbortMsg{why, {}, 0, kind}));
    link->close();
  };
  if (std::holds_alternative<Moved>(stage_)) {
    // Between a hand-over and the registry forgetting us: the party goes where the session is.
    link->send(
        frame_of(wire::AbortMsg{"the session moves to another dealer replica: join again", {}, kReconnectAfterMs}));
    return link->close();
  }
  if (phase() == Phase::Done && !finished_flag_) {
    // The outcome is being checked or written: whatever it is, this party hears it as the
    // seated ones do once the record holds it (a refusal now would hide an abort's culprit).
    late_joiners_.push_back({link, !token.empty() || !seat_token.empty()});
    return;
  }
  if (phase() == Phase::Done) {
    if (!ended_reason_) return refuse(refusal::kSessionEnded);
    // A party that comes after the abort hears it as the seated ones did: why, and whom.
    link->send(frame_of(wire::AbortMsg{refusal::one_reason(std::string(refusal::kSessionEnded) + ": " + *ended_reason_),
                                       ended_blamed_}));
    return link->close();
  }

  // Which seat: the key's own seat in an allow-list session, else any taken seat that
  // the resume token opens, else the first free one.
  std::optional<size_t> chosen_seat;
  if (!terms_.allowed.empty()) {
    if (!key)
      return refuse("this session admits only the parties it lists: sign the join with your key",
                    wire::RefusalKind::NotAllowed);
    const auto it = std::find(terms_.allowed.begin(), terms_.allowed.end(), *key);
    if (it == terms_.allowed.end())
      return refuse("this key is not allowed in the session", wire::RefusalKind::NotAllowed);
    chosen_seat = static_cast<size_t>(it - terms_.allowed.begin());
    if (auto why = kind_->misfit(seats_[*chosen_seat].shape, statement)) return refuse(*why);
  }
  // A resume token, or the seat token of a party that never heard its Joined, opens the
  // seat it names (never another key's).
  const bool resuming = !token.empty();
  const auto& presented_token = resuming ? token : seat_token;
  if (!presented_token.empty()) {
    const wire::TokenHash presented = wire::hash_resume_token(presented_token);
    for (size_t j = 0; j < seats_.size(); ++j) {
      if (chosen_seat && j != *chosen_seat) continue;
      Seat& seat = seats_[j];
      if (!seat.taken || sodium_memcmp(seat.token_hash.data(), presented.data(), presented.size()) != 0) continue;
      if (seat.link) {
        // The party is back before its old connection was seen to drop (they are on
        // different strands): the token holder takes the seat, the old link is let go.
        seat.link->close();
        seat.link.reset();
        env_.metrics->party_left();
      }
      return resume_seat(j, link, presented_token);
    }
    if (resuming) return refuse("no vacant seat for this resume token");
  }
  if (chosen_seat && seats_[*chosen_seat].taken) {
    if (seats_[*chosen_seat].link) return refuse("this party has joined already (resume with its token)");
    // A party that committed and comes back without its token has lost its state (a restart):
    // it cannot answer the challenges its commitments were given, and is not lying.
    if (!last_accepted_[*chosen_seat].empty()) return seat_lost_state(*chosen_seat, link);
    // Its key proves who it is: a party that never heard of its seat (the Joined frame was
    // lost with its connection) takes it again, under a new token.
    return give_seat(*chosen_seat, link, key, true, std::move(seat_token));
  }
  if (phase() != Phase::Joining) return refuse("the session is full");
  if (!chosen_seat) {
    // The first free seat this party fits (anonymous sessions may mix parties of 1 and k values).
    std::optional<std::string> why;
    for (size_t j = 0; j < seats_.size() && !chosen_seat; ++j) {
      if (seats_[j].taken) continue;
      if (auto unfit = kind_->misfit(seats_[j].shape, statement))
        why = std::move(unfit);
      else
        chosen_seat = j;
    }
    if (!chosen_seat) return refuse(why ? *why : std::string("the session is full"));
  }
  give_seat(*chosen_seat, link, key, false, std::move(seat_token));
}

void AggregationSession::seat_lost_state(size_t seat_index, const std::shared_ptr<PartyLink>& link) {
  // Seated for the abort only: it hears, with the others and once the record holds it, why.
  Seat& seat = seats_[seat_index];
  seat.link = link;
  env_.metrics->party_joined();
  link->seated(weak_from_this(), seat_index, seat.shape.positions);
  const size_t first = seat.shape.first_position;
  abort(AbortKind::LostState,
        "the party at seat_index " + std::to_string(first) +
            " came back without its state (it joined again, after committing, without its resume token): "
            "its commitments cannot be answered, so the session cannot go on",
        blame_of_seat(seat_index));
}

void AggregationSession::give_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link,
                                   const std::optional<wire::PublicKey>& key, bool again, std::vector<uint8_t> token) {
  if (token.empty()) {  // a party before 1.3 names none: we pick it
    token.resize(wire::kResumeTokenBytes);
    randombytes_buf(token.data(), token.size());
  }
  Seat& seat = seats_[seat_index];
  seat.taken = true;
  seat.link = link;
  seat.peer = link->peer();
  seat.token_hash = wire::hash_resume_token(token);
  seat.grace.reset();
  publish_progress();
  env_.metrics->party_joined();
  // Waiting for a quorum: the seat is whole now (its token kept for the Joined), so a set fixed
  // before its write returns includes it, and that Joined goes out with the set's.
  if (gathering()) {
    seat.held_token = token;
    seat.held_key = key;
  }
  // The party hears of its seat only once the record holds it (with its token's hash), so a
  // replica that takes the session over can seat it again; its connection reads nothing more
  // until then.
  persist_then([this, seat_index, link, token = std::move(token), key, again, set = sets_fixed_] {
    // The set was fixed meanwhile: this party heard of its seat with it.
    if (set != sets_fixed_) return;
    announce_seat(seat_index, link, token, key, again);
  });
}

void AggregationSession::announce_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link,
                                       const std::vector<uint8_t>& token, const std::optional<wire::PublicKey>& key,
                                       bool again) {
  if (gathering()) return hold_seat(seat_index, link, token, key);
  if (seats_[seat_index].link == link) {
    link->seated(weak_from_this(), seat_index, seats_[seat_index].shape.positions);
    link->send(frame_of(joined_message(seat_index, token)));
    if (again && last_broadcast_) link->send(last_broadcast_);
    log::info("party joined", {{"session", id()},
                               {"position", seats_[seat_index].shape.first_position},
                               {"remote", seats_[seat_index].peer},
                               {"party_key", key ? wire::public_key_hex(*key) : std::string("anonymous")},
                               {"positions", seats_[seat_index].shape.positions}});
  }
  const Phase now = phase();
  if ((now == Phase::BitCommitments || now == Phase::FirstPhases) && round_open_ != now) {  // every seat is taken
    start_round();
    // Parties commit as soon as they are seated; the last one may complete the round.
    if (std::all_of(inbox_.begin(), inbox_.end(), [](const auto& m) { return m.has_value(); })) complete_round();
  }
}

}  // namespace bp::server
