// One aggregation session on the dealer: seats, rounds, deadlines, blame. All of its state
// lives on its own strand; connections talk to it only through the public calls below,
// which post onto that strand, so sessions never share a lock with each other.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bp/mpc/dealer.hpp"
#include "bp/wire/codec.hpp"
#include "metrics.hpp"

namespace bp::server {

class AggregationSession;

// The session's view of a party's connection.
class PartyLink {
 public:
  virtual ~PartyLink() = default;
  // Called before the Joined frame is sent, so the connection routes later frames here.
  virtual void seated(std::weak_ptr<AggregationSession> session, size_t position) = 0;
  virtual void send(std::shared_ptr<const std::vector<uint8_t>> frame) = 0;
  // Closes once the frames queued so far are written.
  virtual void close() = 0;
  virtual std::string peer() const = 0;
};

// How a session ended, recorded before any party hears of it.
struct SessionOutcome {
  std::string id;
  mpc::SessionParams params;
  bool ok = false;
  std::string reason;           // abort reason (empty when ok)
  std::vector<size_t> blamed;   // positions
  std::optional<wire::ResultMsg> result;  // with the dealer's attestation
};

// What every session shares with the rest of the daemon.
struct SessionEnv {
  const BulletproofGens* bp_gens;
  const PedersenGens* pc_gens;
  Metrics* metrics;
  std::chrono::milliseconds reconnect_grace;
  // Writes the outcome to the record; `done` (on any thread) gives the failure, if any. No
  // party hears the outcome before it is there.
  std::function<void(const SessionOutcome&, std::function<void(std::optional<std::string> failure)> done)> record;
  const wire::Identity* dealer_key;  // signs every result
  // The phase and seats taken, each time they change (published in the shared record).
  std::function<void(const std::string& id, const char* phase, size_t joined)> progressed;
};

// Who created a session: an operator key, or (anonymous) nobody but an address. Caps on open
// sessions count per owner, and only the owner may list or cancel it.
struct SessionOwner {
  std::optional<wire::PublicKey> operator_key;
  std::string address;
  bool same_as(const SessionOwner& other) const {
    return operator_key ? operator_key == other.operator_key : !other.operator_key && address == other.address;
  }
};

class AggregationSession : public std::enable_shared_from_this<AggregationSession> {
 public:
  // `allowed` lists the parties' keys in position order; empty: anyone may join (anonymous).
  AggregationSession(boost::asio::io_context& ioc, std::string id, mpc::SessionParams params,
                     std::vector<wire::PublicKey> allowed, std::chrono::milliseconds round_timeout, SessionEnv env,
                     SessionOwner owner = {});

  void start();
  // `party_key` is the key whose signature the connection has already checked, if any.
  void join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> resume_token,
            std::optional<wire::PublicKey> party_key);
  void deliver(size_t position, std::shared_ptr<PartyLink> link, wire::Message message);
  void misbehaved(size_t position, std::shared_ptr<PartyLink> link, std::string reason);
  void disconnected(size_t position, std::shared_ptr<PartyLink> link);
  // Ends the session now if it has not finished (its operator cancelled it, the dealer stops).
  void shutdown(AbortKind kind, std::string reason);

  const std::string& id() const { return id_; }
  // True once the outcome is recorded (so the store knows the id before the registry forgets it).
  bool finished() const { return finished_flag_; }
  const SessionOwner& owner() const { return owner_; }
  // The session as its owner sees it in a listing (read from any thread).
  wire::SessionSummary summary() const;

 private:
  // Where the session is, derived from the dealer's state (never stored beside it).
  enum class Phase { Joining, BitCommitments, PolyCommitments, ProofShares, Done };
  struct Seat {
    bool taken = false;
    std::shared_ptr<PartyLink> link;  // null while the party is away
    std::vector<uint8_t> token;
    std::string peer;
    std::unique_ptr<boost::asio::steady_timer> grace;  // running while the party is away
  };
  struct Ended {};  // the outcome is decided: nothing a party sends counts any more
  // monostate until start() has made the dealer; bit commitments are taken while parties
  // still join, so AwaitingBitCommitments is Joining until every seat is taken.
  using DealerState = std::variant<std::monostate, mpc::DealerAwaitingBitCommitments,
                                   mpc::DealerAwaitingPolyCommitments, mpc::DealerAwaitingProofShares, Ended>;
  Phase phase() const;

  void on_join(std::shared_ptr<PartyLink> link, std::vector<uint8_t> token, std::optional<wire::PublicKey> key);
  void resume_seat(size_t position, const std::shared_ptr<PartyLink>& link);
  size_t seats_taken() const;
  void on_deliver(size_t position, const std::shared_ptr<PartyLink>& link, wire::Message message);
  bool from_seat(size_t position, const std::shared_ptr<PartyLink>& link) const;
  void publish_progress();  // the phase and seats, for listings and the shared record
  // Ends the session: the outcome goes to the record, and once it is there `announce` tells
  // the parties; if it cannot be recorded they get an abort saying so instead.
  void record_then(SessionOutcome outcome, std::function<void()> announce);
  void start_round();  // the round of the current phase: its inbox, clock and deadline
  void arm_deadline();
  void on_deadline();
  void complete_round();
  void broadcast(const wire::Message& message);
  void finish_ok(mpc::AggregationResult result);  // signs it, records it, tells everyone
  void abort(AbortKind kind, const std::string& reason, std::vector<size_t> blamed);
  void close_all();
  static const char* phase_name(Phase p);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  std::string id_;
  mpc::SessionParams params_;
  std::vector<wire::PublicKey> allowed_;
  std::chrono::milliseconds round_timeout_;
  SessionEnv env_;
  boost::asio::steady_timer deadline_;
  std::chrono::steady_clock::time_point round_started_;

  std::vector<Seat> seats_;  // one per position
  DealerState dealer_;
  std::vector<std::optional<wire::Message>> inbox_;  // this round's message per position
  std::vector<std::vector<uint8_t>> last_accepted_;   // each position's last accepted frame
  std::shared_ptr<const std::vector<uint8_t>> last_broadcast_;  // resent to a resuming party
  std::atomic<bool> finished_flag_{false};
  SessionOwner owner_;
  std::atomic<Phase> public_phase_{Phase::Joining};  // copies for summary(), which runs off the strand
  std::atomic<size_t> public_joined_{0};
};

}  // namespace bp::server
