// The session's side of the record: its checkpoints, its outcome and its hand-over. Every
// write names the epoch this replica holds the session at; a refusal (Fenced) means another
// replica has it, and this one stops at once, sending its parties there. A record that fails
// is tried again for record_patience; after that the session stops here too and waits in the
// record at its last checkpoint, for whichever replica its parties reach once it is back (so
// a replica cut off from the database loses no session, and a long outage ends in the
// parties' "unavailable" naming the record, never in an answer the record does not hold).
#include <boost/asio/post.hpp>

#include "observability/log.hpp"
#include "session/refusals.hpp"
#include "session/session.hpp"

namespace bp::server {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {
constexpr auto kRetryEvery = std::chrono::milliseconds(250);
}  // namespace

wire::DealerCheckpoint AggregationSession::snapshot() const {
  wire::DealerCheckpoint c;
  c.bits = params_.bits;
  c.positions = params_.positions;
  c.transcript_label = params_.label;
  c.round_timeout_ms = static_cast<uint32_t>(terms_.round_timeout.count());
  c.allowed_parties = terms_.allowed;
  c.owner_key = terms_.owner.operator_key;
  c.owner_address = terms_.owner.address;
  for (const auto& seat : seats_) c.seats.push_back({seat.taken, seat.token_hash, seat.peer});
  c.values_per_party = terms_.values_per_party;
  c.bounds = terms_.bounds;
  c.min_parties = terms_.min_parties;
  c.join_window_ms = static_cast<uint32_t>(terms_.join_window.count());
  c.listed_parties = static_cast<uint32_t>(terms_.listed_parties);
  c.not_joined = terms_.not_joined;
  c.not_joined_keys = terms_.not_joined_keys;
  c.gadget_successors = terms_.gadget_successors;
  kind_->checkpoint(c);  // the kind's terms and the rounds it decided
  return c;
}

bool AggregationSession::patience_left() {
  const auto now = Clock::now();
  if (!failing_since_) failing_since_ = now;
  return now - *failing_since_ < env_.record_patience;
}

void AggregationSession::persist_then(std::function<void()> next) {
  waiting_.push_back(std::move(next));
  if (!writing_) write_checkpoint();
}

void AggregationSession::write_checkpoint() {
  writing_ = true;
  std::vector<std::function<void()>> covered;
  covered.swap(waiting_);
  Checkpoint c{id(), epoch_, wire::encode_checkpoint(snapshot()), phase_name(phase()),
               static_cast<uint32_t>(seats_taken())};
  env_.record->checkpoint(
      std::move(c), [self = shared_from_this(), covered = std::move(covered)](RecordResult<Ok> result) mutable {
        asio::post(self->strand_, [self, result = std::move(result), covered = std::move(covered)]() mutable {
          self->checkpoint_written(std::move(result), std::move(covered));
        });
      });
}

void AggregationSession::checkpoint_written(RecordResult<Ok> result, std::vector<std::function<void()>> covered) {
  writing_ = false;
  if (phase() == Phase::Done) return;  // ended or moved meanwhile: what waited is moot
  if (!result) {
    if (!result.error().down()) return move_on(result.error().reason);
    if (!patience_left())
      return move_on("the record is unavailable (" + result.error().reason + "); the session waits in it");
    log::warn("checkpoint not written; trying again", {{"session", id()}, {"reason", result.error().reason}});
    // What waited is written with the next try, before anything that came after it.
    covered.insert(covered.end(), std::make_move_iterator(waiting_.begin()), std::make_move_iterator(waiting_.end()));
    waiting_ = std::move(covered);
    writing_ = true;  // nothing else starts a write while the retry is due
    retry_.expires_after(kRetryEvery);
    retry_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->phase() == Phase::Done) return;
      self->write_checkpoint();
    });
    return;
  }
  failing_since_.reset();
  for (auto& next : covered) {
    if (phase() == Phase::Done) return;
    next();
  }
  if (!waiting_.empty() && !writing_) write_checkpoint();
}

void AggregationSession::record_then(SessionOutcome outcome, std::function<void()> announce) {
  stage_ = Ended{};  // nothing a party sends counts any more
  publish_progress();
  deadline_.cancel();
  retry_.cancel();
  waiting_.clear();
  failing_since_.reset();
  for (auto& seat : seats_) seat.grace.reset();
  try_close(std::make_shared<const SessionOutcome>(std::move(outcome)),
            std::make_shared<const std::function<void()>>(std::move(announce)));
}

void AggregationSession::try_close(std::shared_ptr<const SessionOutcome> outcome,
                                   std::shared_ptr<const std::function<void()>> announce) {
  env_.record->close(*outcome, epoch_, [self = shared_from_this(), outcome, announce](RecordResult<Ok> result) {
    asio::post(self->strand_, [self, outcome, announce, result = std::move(result)] {
      // Sent on meanwhile (the lease ran out): whatever the record took, its parties learn it
      // from the record when they join again.
      if (std::holds_alternative<Moved>(self->stage_)) return;
      if (result) {
        // The record holds the outcome, so the registry may forget the id now; and must be
        // allowed to before anyone hears of it: a party that has the result and joins again
        // at once (on another thread) is answered from the record, never by a session that
        // has just ended and refuses it.
        self->finished_flag_ = true;
        (*announce)();
        return;
      }
      if (result.error().down() && self->patience_left()) {
        self->retry_.expires_after(kRetryEvery);
        self->retry_.async_wait([self, outcome, announce](boost::system::error_code ec) {
          if (!ec) self->try_close(outcome, announce);
        });
        return;
      }
      // Nobody is handed what the record does not hold. Fenced: another replica holds the
      // session and finishes it, from the checkpoint, with the messages the parties send it
      // again. Down for longer than the patience: the session waits in the record at its last
      // checkpoint, for whichever replica the parties reach once the record is back.
      if (result.error().down()) {
        self->env_.metrics->outcome_unrecorded();
        log::error("the record did not take the outcome", {{"session", self->id()}, {"reason", result.error().reason}});
      }
      self->move_on(result.error().down() ? "the record did not take the outcome (" + result.error().reason + ")"
                                          : result.error().reason);
    });
  });
}

void AggregationSession::hand_over(std::string reason) {
  asio::post(strand_, [self = shared_from_this(), reason = std::move(reason)] {
    // A session whose final proof is being checked goes too: no outcome is on its way to the
    // record yet (record_then ends the Checking), and the replica that takes it over checks
    // the shares the parties send it again.
    if (self->phase() == Phase::Done && !std::holds_alternative<Checking>(self->stage_)) return;
    self->stage_ = Moved{};  // from now on nothing a party sends counts here
    self->deadline_.cancel();
    self->retry_.cancel();
    self->waiting_.clear();
    self->env_.record->release(self->id(), self->epoch_, [self, reason](RecordResult<Ok> released) {
      asio::post(self->strand_, [self, reason, released = std::move(released)] {
        // Released or not, the parties go: a session the record could not release is taken
        // over once this replica's heartbeat is old, or released by its next one.
        if (!released)
          log::warn("session not released in the record",
                    {{"session", self->id()}, {"reason", released.error().reason}});
        self->move_on(reason);
      });
    });
  });
}

void AggregationSession::lost(std::string reason) {
  asio::post(strand_, [self = shared_from_this(), reason = std::move(reason)] {
    // An outcome the record holds is told; one still on its way may never get there.
    if (std::holds_alternative<Moved>(self->stage_) || self->finished_flag_) return;
    self->move_on(reason);
  });
}

void AggregationSession::move_on(const std::string& reason) {
  stage_ = Moved{};
  publish_progress();
  deadline_.cancel();
  retry_.cancel();
  waiting_.clear();
  env_.metrics->session_moved();
  log::info("session moves on; its parties are told to join again",
            {{"session", id()}, {"epoch", epoch_}, {"reason", reason}});
  const auto again = std::make_shared<const std::vector<uint8_t>>(wire::encode(
      wire::AbortMsg{refusal::one_reason("the session moves on: " + reason + "; join again"), {}, kReconnectAfterMs}));
  finished_flag_ = true;  // before the parties hear it: one that joins again at once finds the record
  for (auto& seat : seats_)
    if (seat.link) seat.link->send(again);
  answer_late_joiners(again);
  close_all();
}

}  // namespace bp::server
