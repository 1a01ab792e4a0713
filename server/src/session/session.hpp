// One aggregation session on the dealer: seats, rounds, deadlines, blame. All of its state
// lives on its own strand; connections talk to it only through the public calls below,
// which post onto that strand, so sessions never share a lock with each other.
//
// The session keeps its dealer in the record as it goes (session_persistence.cpp): before a
// party hears it has a seat, and before a round's challenges go out, the record holds a
// checkpoint of the terms, the seats and every commitment accepted so far, under the epoch
// this replica holds the session at. A replica that takes the session over rebuilds the
// same dealer from that checkpoint (the same seed, the same messages: the same challenges),
// and a replica that was taken over can write nothing more, so it never sends a challenge or
// a result the record does not hold.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/mpc/dealer.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/wire/checkpoint.hpp"
#include "bp/wire/codec.hpp"
#include "observability/metrics.hpp"
#include "record/record_store.hpp"
#include "session/proof_checker.hpp"
#include "session/session_env.hpp"
#include "session/session_kind.hpp"
#include "session/session_terms.hpp"

namespace bp::server {

class AggregationSession;

// The session's view of a party's connection.
class PartyLink {
 public:
  virtual ~PartyLink() = default;
  // Called before the Joined frame is sent, so the connection routes later frames here.
  // `seat` is the party's index in the session; it holds `positions` positions (its frames
  // of a round carry that many messages, so the connection reads frames that large).
  // Called again, with its seat in the fixed set, when a quorum session fixes its set.
  virtual void seated(std::weak_ptr<AggregationSession> session, size_t seat, size_t positions) = 0;
  virtual void send(std::shared_ptr<const std::vector<uint8_t>> frame) = 0;
  // Closes once the frames queued so far are written.
  virtual void close() = 0;
  virtual std::string peer() const = 0;
};

// A party asked to come back: how long it waits before joining again.
inline constexpr uint32_t kReconnectAfterMs = 250;
// A deadline that fires this much after it was due tells of a stall of this process.
inline constexpr std::chrono::milliseconds kStalledAfter{1000};

class AggregationSession : public std::enable_shared_from_this<AggregationSession> {
 public:
  // The session its checkpoint describes, held by this replica at `epoch`: a new one (its
  // first checkpoint, kFirstEpoch) or one taken over from the record.
  AggregationSession(boost::asio::io_context& ioc, SessionTerms terms, wire::DealerCheckpoint checkpoint,
                     uint64_t epoch, SessionEnv env);

  void start();  // builds the dealer, replaying the checkpoint's rounds
  // `party_key` is the key whose signature the connection has already checked, if any;
  // `seat_token` the token a 1.3 party picked for a new seat (a join again finds it);
  // `statement` what the party says it proves.
  void join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> resume_token,
            std::optional<wire::PublicKey> party_key, std::vector<uint8_t> seat_token = {},
            PartyStatement statement = {});
  void deliver(size_t seat, std::shared_ptr<PartyLink> link, wire::Message message);
  void misbehaved(size_t seat, std::shared_ptr<PartyLink> link, std::string reason);
  void disconnected(size_t seat, std::shared_ptr<PartyLink> link);
  // Ends the session now if it has not finished (its operator cancelled it, the dealer stops).
  void shutdown(AbortKind kind, std::string reason);
  // Gives the session up to another replica (a drain, or one that asked for it): released in
  // the record, its parties told to reconnect.
  void hand_over(std::string reason);
  // The record says this replica no longer holds the session (or cannot say, for longer than
  // the lease): its parties are told to reconnect, and nothing more is written.
  void lost(std::string reason);

  const std::string& id() const { return terms_.id; }
  const std::string& transcript_label() const { return params_.label; }
  uint64_t epoch() const { return epoch_; }
  // True once the outcome is recorded or the session moved on (so the record knows the id
  // before the registry forgets it).
  bool finished() const { return finished_flag_; }
  const SessionOwner& owner() const { return terms_.owner; }
  // Whether its operator listed its parties' keys (read from any thread): a seated party of
  // such a session is no stranger to the dealer's admission.
  bool lists_parties() const { return lists_parties_; }
  // The session as its owner sees it in a listing (read from any thread).
  wire::SessionSummary summary() const;
  // How long this replica has run it (made here, or taken over).
  std::chrono::steady_clock::duration running_for() const { return std::chrono::steady_clock::now() - made_; }

 private:
  // Where the session is: its kind's dealer while it runs (never stored beside it), Done
  // once it checks its proof, ended or moved on.
  using Phase = SessionPhase;
  struct Seat {
    SeatShape shape;
    bool taken = false;
    std::shared_ptr<PartyLink> link;  // null while the party is away
    wire::TokenHash token_hash{};
    std::string peer;
    std::unique_ptr<boost::asio::steady_timer> grace;  // running while the party is away
    // A quorum session's party before the set is fixed: what its Joined will carry.
    std::vector<uint8_t> held_token;
    std::optional<wire::PublicKey> held_key;
  };
  struct Ended {};  // the outcome is decided: nothing a party sends counts any more
  struct Moved {};  // another replica has it, or will: nothing a party sends counts here
  // Every share is in and the proof is assembled; its check alone decides the outcome, so
  // nothing a party sends counts any more (Phase::Done) while it runs.
  struct Checking {};
  // monostate while the kind's dealer runs the rounds (taking first messages while parties
  // still join); then how it stopped.
  using Stage = std::variant<std::monostate, Checking, Ended, Moved>;
  Phase phase() const;

  // session.cpp: the machine; the kinds (range_kind.cpp, gadget_kind.cpp) decide its rounds;
  // session_seats.cpp: the seats
  void rebuild();
  void on_join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token, std::optional<wire::PublicKey> key,
               std::vector<uint8_t> seat_token, const PartyStatement& statement);
  wire::JoinedMsg joined_message(size_t seat, const std::vector<uint8_t>& token) const;
  // Every position of every seat that holds one of these positions, ascending: a party is
  // blamed as a whole.
  std::vector<size_t> blame_of_positions(const std::vector<size_t>& positions) const;
  std::vector<size_t> blame_of_seat(size_t seat) const;
  void resume_seat(size_t seat, const std::shared_ptr<PartyLink>& link, const std::vector<uint8_t>& token);
  // Ends the session when the party of a committed seat joins again without its token.
  void seat_lost_state(size_t seat_index, const std::shared_ptr<PartyLink>& link);
  void give_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link, const std::optional<wire::PublicKey>& key,
                 bool again, std::vector<uint8_t> token);
  void announce_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link, const std::vector<uint8_t>& token,
                     const std::optional<wire::PublicKey>& key, bool again);
  size_t seats_taken() const;

  // session_quorum.cpp: a quorum session before its set is fixed. A seated party waits,
  // told nothing; one that leaves, misbehaves or stays away past its grace frees its seat
  // (nothing was committed, nobody is blamed); every listed party present, or the join
  // window's end with the quorum, fixes the set; fewer ends the session.
  bool gathering() const;
  void hold_seat(size_t seat_index, const std::shared_ptr<PartyLink>& link, const std::vector<uint8_t>& token,
                 const std::optional<wire::PublicKey>& key);
  void free_seat(size_t seat_index, const std::string& why);
  void fix_set();
  void window_ended();
  void on_deliver(size_t seat, const std::shared_ptr<PartyLink>& link, wire::Message message);
  bool from_seat(size_t seat, const std::shared_ptr<PartyLink>& link) const;
  void publish_progress();  // the phase and seats, for listings
  void start_round();       // the round of the current phase: its inbox, clock and deadline
  void arm_deadline();
  void on_deadline();
  // Every position's message of the round is in: the kind decides, the machine acts on it.
  void complete_round();
  // What the kind decided when a round completed: an abort (blaming whole seats), the next
  // round's broadcast once the record holds what decided it, or the assembled proof's check.
  void act_on(SessionKind::Decision decision);
  void abort_as(SessionKind::Abort abort);
  // A round decided: the next round's inbox, and `frame` to every party once the record holds
  // what decided it.
  void next_round_once_recorded(Frame frame);
  // The assembled proof goes to the check (off the strand when there is a checker); its
  // verdict comes back here.
  void check_proof();
  void checked(std::optional<SessionKind::Abort> failed);
  void finish_ok(SessionKind::Signed signed_result);  // records it, tells everyone
  void broadcast(Frame frame);
  void abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed);
  // Records the abort (naming its successor, if any) and tells every party.
  void end_aborted(AbortKind kind, const std::string& reason, std::vector<size_t> blamed, std::string successor);
  // session_successor.cpp: a fixed quorum set that aborts with blame, with at least its
  // quorum left, goes on as a successor session of the parties not blamed. True when one
  // is being started (this session ends once the record holds it).
  bool start_successor(AbortKind kind, const std::string& reason, const std::vector<size_t>& blamed);
  void close_all();
  void answer_late_joiners(const Frame& announced);  // the outcome the record holds, or where to go
  static const char* phase_name(Phase p);

  // session_persistence.cpp: the record
  wire::DealerCheckpoint snapshot() const;
  // Writes the checkpoint as the session is now, then runs `next` (writes coalesce: what
  // waits while one is in flight goes in the next).
  void persist_then(std::function<void()> next);
  void write_checkpoint();
  void checkpoint_written(RecordResult<Ok> result, std::vector<std::function<void()>> covered);
  // Ends the session: the outcome goes to the record, and once it is there `announce` tells
  // the parties; if it cannot be recorded they get an abort saying so instead.
  void record_then(SessionOutcome outcome, std::function<void()> announce);
  void try_close(std::shared_ptr<const SessionOutcome> outcome, std::shared_ptr<const std::function<void()>> announce);
  bool patience_left();  // the record has failed for less than record_patience
  // Stops here and sends every seated party to join again (elsewhere, or here once taken over).
  void move_on(const std::string& reason);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  SessionTerms terms_;
  const mpc::SessionParams& params_;  // terms_.params
  SessionEnv env_;
  const uint64_t epoch_;
  wire::DealerCheckpoint restored_;  // what start() rebuilds; emptied after
  std::atomic<size_t> party_count_;  // seats, fixed by the terms (read by summary() off the strand)
  const bool lists_parties_;         // terms_.allowed not empty (a set keeps its keys)
  const std::chrono::steady_clock::time_point made_ = std::chrono::steady_clock::now();
  boost::asio::steady_timer deadline_;
  boost::asio::steady_timer retry_;  // the next try of a write the record failed
  std::chrono::steady_clock::time_point round_started_;
  bool stall_forgiven_ = false;      // this round's deadline was given again once after a stall here
  std::optional<Phase> round_open_;  // the phase whose round has started (inbox and deadline)

  std::vector<Seat> seats_;  // one per party
  unsigned sets_fixed_ = 0;  // a quorum's set fixed since the session was made here (0 or 1)
  std::vector<size_t> seat_of_position_;
  // What this session proves and how its rounds decide (decided once, when it is made).
  // A quorum session's is made again, for the set it fixes.
  std::unique_ptr<SessionKind> kind_;
  Stage stage_;
  std::vector<std::optional<wire::Message>> inbox_;  // this round's message per position
  std::vector<std::vector<uint8_t>> last_accepted_;  // each seat's last accepted round, encoded
  std::optional<std::string> ended_reason_;          // an abort the record holds, for parties that come after it
  std::vector<size_t> ended_blamed_;
  Frame last_broadcast_;  // resent to a resuming party
  // Parties that joined while the outcome was on its way to the record: they hear it once the
  // record holds it (or are sent on with the others), never a bare refusal meanwhile.
  struct LateJoiner {
    std::shared_ptr<PartyLink> link;
    bool resuming = false;  // presented a seat's token: may be handed the signed result
  };
  std::vector<LateJoiner> late_joiners_;
  bool writing_ = false;                                                // a checkpoint is with the record
  std::vector<std::function<void()>> waiting_;                          // what runs once the next checkpoint is written
  std::optional<std::chrono::steady_clock::time_point> failing_since_;  // the record's first refusal in a row
  std::atomic<bool> finished_flag_{false};
  std::atomic<Phase> public_phase_{Phase::Joining};  // copies for summary(), which runs off the strand
  std::atomic<size_t> public_joined_{0};
};

}  // namespace bp::server
