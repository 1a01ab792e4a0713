// What a session shares with the rest of the daemon and with its kind (session_kind.hpp):
// its outcome as the record keeps it, the record's calls, the daemon's shared pieces, and
// what a party states it proves.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/wire/checkpoint.hpp"
#include "bp/wire/codec.hpp"
#include "observability/metrics.hpp"
#include "record/record_store.hpp"
#include "session/proof_checker.hpp"

namespace bp::server {

// How a session ended, recorded before any party hears of it.
struct SessionOutcome {
  std::string id;
  mpc::SessionParams params;
  bool ok = false;
  std::string reason;                                // abort reason (empty when ok)
  std::vector<size_t> blamed;                        // positions
  std::optional<wire::ResultMsg> result;             // with the dealer's attestation
  size_t parties = 0;                                // seats (0: unknown, a record too damaged to say)
  std::optional<wire::R1CSResultMsg> r1cs_result{};  // a gadget session's, with the attestation
  // 1.7: a quorum session whose set was fixed: how many parties were listed, and the listed
  // seats (operator's order) left out of the set.
  size_t listed_parties = 0;
  std::vector<uint32_t> not_joined{};
  std::string successor{};    // 1.7: the session of the parties not blamed, going on in its place
  std::string predecessor{};  // 1.7: the session this one went on from (a successor)
};

// What a session writes to the record. Each call answers once, on any thread.
class SessionRecord {
 public:
  virtual ~SessionRecord() = default;
  virtual void checkpoint(Checkpoint checkpoint, std::function<void(RecordResult<Ok>)> done) = 0;
  virtual void close(const SessionOutcome& outcome, uint64_t epoch, std::function<void(RecordResult<Ok>)> done) = 0;
  virtual void release(const std::string& id, uint64_t epoch, std::function<void(RecordResult<Ok>)> done) = 0;
};

struct SessionTerms;

// What every session shares with the rest of the daemon.
struct SessionEnv {
  const BulletproofGens* bp_gens;
  const PedersenGens* pc_gens;
  Metrics* metrics;
  std::chrono::milliseconds reconnect_grace;  // a dropped party's seat waits this long
  // How long a write to the record is tried again while the record fails, before the
  // session stops here and waits in the record (its parties are sent to join again).
  std::chrono::milliseconds record_patience;
  SessionRecord* record;
  const wire::Identity* dealer_key;  // signs every result
  // Checks the final proofs, batching those of sessions that end together; none: each
  // session checks its own on its strand.
  ProofChecker* checker = nullptr;
  // Claims a successor session in the record and runs it (the registry's); `done(true)`
  // once the record holds it, on any thread. None: no successors.
  std::function<void(SessionTerms, wire::DealerCheckpoint, std::function<void(bool started)>)> start_successor{};
};

// One message as a frame to send.
std::shared_ptr<const std::vector<uint8_t>> frame_of(const wire::Message& m);

// What a party states it proves, as its JoinSession says, read once at the connection: a
// range party the number of values it brings (0: a party before 1.4), a gadget party (1.5)
// its gadget. The session fits it to a seat from this alone, never from the party's values.
struct PartyStatement {
  uint32_t values = 0;
  bool states_gadget = false;
  std::optional<GadgetItem> gadget;  // when the gadget it states reads as one list item
  static PartyStatement of(const wire::JoinSessionMsg& join);
};

}  // namespace bp::server
