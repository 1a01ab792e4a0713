// What a session of one kind decides. The machine (session.cpp) owns everything that waits
// or talks: seats, inbox, deadlines, the checkpoint's writes, broadcasts, aborts, the record
// and closing. It asks its kind, which holds the kind's dealer and the rounds it decided and
// does no I/O: it replays a checkpoint, says which round a message belongs to and which
// phase the dealer is in, checks a seat against a party's statement, completes a round, has
// the final proof checked, and signs the result. The registry picks the kind once
// (make_session_kind); range_kind.cpp and gadget_kind.cpp are the two.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bp/wire/checkpoint.hpp"
#include "bp/wire/codec.hpp"
#include "observability/abort_kind.hpp"
#include "session/session_env.hpp"
#include "session/session_terms.hpp"

namespace bp::server {

// Where a session is. A range session goes Joining, BitCommitments, PolyCommitments,
// ProofShares; a gadget session Joining, FirstPhases, SecondPhases, PolyCommitments,
// ProofShares; both end Done (checking the proof, ended or moved on).
enum class SessionPhase { Joining, BitCommitments, PolyCommitments, ProofShares, Done, FirstPhases, SecondPhases };

using Frame = std::shared_ptr<const std::vector<uint8_t>>;

class SessionKind {
 public:
  // The session ends, blaming these positions (the machine blames their seats whole).
  struct Abort {
    AbortKind kind;
    std::string why;
    std::vector<size_t> blamed;
  };
  // The round is decided: `broadcast` goes to every party once the record holds it.
  struct NextRound {
    Frame broadcast;
  };
  // Every share is in and the proof is assembled: check() decides the outcome.
  struct Assembled {};
  using Decision = std::variant<Abort, NextRound, Assembled>;

  // The result, signed: the frame every party gets and the outcome the record keeps.
  struct Signed {
    Frame frame;
    SessionOutcome outcome;
    size_t proof_bytes = 0;
    std::string proves;  // for the log: "64-bit ranges", or the gadget list
  };

  // What a replayed checkpoint leaves: the last broadcast (a resuming party gets it again)
  // and each seat's last accepted message, encoded as a repeat of it is compared.
  struct Replayed {
    Frame last_broadcast;
    std::vector<std::vector<uint8_t>> last_accepted;
  };

  virtual ~SessionKind() = default;

  // The dealer made afresh and fed the checkpoint's decided rounds; an Abort when the dealer
  // cannot be made, the text when the checkpoint does not replay.
  virtual std::variant<Replayed, Abort, std::string> replay(const wire::DealerCheckpoint& restored) = 0;
  // The phase the dealer is in while the session runs (`all_seated`: every seat is taken).
  virtual SessionPhase phase(bool all_seated) const = 0;
  // The round whose messages a phase takes (session.cpp's round_items numbering); 0: none.
  virtual int round_of(SessionPhase phase) const = 0;
  // Why a party stating `statement` cannot take this seat, from public terms only.
  virtual std::optional<std::string> misfit(const SeatShape& seat, const PartyStatement& statement) const = 0;
  // Why a seat's round message is not the shape its seat takes (before it is accepted).
  virtual std::optional<std::string> message_misfit(const SeatShape& seat, const wire::Message& message) const = 0;
  // The round of `completed` with every position's message in `inbox`.
  virtual Decision complete(SessionPhase completed, std::vector<std::optional<wire::Message>>& inbox) = 0;
  // Checks the assembled proof: on `checker` (batched with other sessions', off the strand)
  // or here when there is none; `done` gets nothing when the proof holds, on any thread.
  virtual void check(ProofChecker* checker, std::function<void(std::optional<Abort>)> done) = 0;
  // The checked result, signed by the dealer.
  virtual Signed sign(const wire::Identity& dealer, const std::string& session_id, size_t parties) = 0;
  // The decided rounds and the kind's terms, into the session's checkpoint.
  virtual void checkpoint(wire::DealerCheckpoint& c) const = 0;
};

// The kind the terms say: a gadget session when they carry a gadget list, else a range one.
// The kind keeps references to both: they must outlive it (the session holds all three).
std::unique_ptr<SessionKind> make_session_kind(const SessionTerms& terms, const SessionEnv& env);
std::unique_ptr<SessionKind> make_range_kind(const SessionTerms& terms, const SessionEnv& env);
std::unique_ptr<SessionKind> make_gadget_kind(const SessionTerms& terms, const SessionEnv& env);

}  // namespace bp::server
