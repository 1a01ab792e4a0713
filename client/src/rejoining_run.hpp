// What every party run shares, range or gadget: the connections it takes to one session.
// When a connection drops, or the dealer asks it to join again (a replica hands the session
// over, or restarts), it connects again within its reconnect policy; Options::timeout bounds
// the whole run, also while the party computes: heavy steps run off the connection's thread
// (offload), so no step keeps the deadline from firing. It keeps the seat's tokens and the
// last message sent (resent on a resumed seat); what to say is the derived run's (a Dialogue).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "bp/client/link_emulation.hpp"
#include "bp/client/party_client.hpp"
#include "bp/mpc/errors.hpp"
#include "conversation.hpp"

namespace bp::client::detail {

// An mpc refusal as the client reports it: MaliciousDealer for the dealer's, Refused for ours.
ClientError from_mpc(const mpc::MpcError& e);

class RejoiningRun : public Dialogue, public std::enable_shared_from_this<RejoiningRun> {
 public:
  RejoiningRun(boost::asio::io_context& ioc, Endpoint dealer, std::string session_id, Options options,
               LinkEmulation link);

  // Opens the next connection with what is left of the run's time (the first one starts it).
  void connect();
  // A connection ended in `e`: another one after the policy's backoff when the fault may
  // pass, else the run ends in it.
  void on_fail(ClientError e) override;

 protected:
  // The run ends in this error (called at most once by this class; derived runs guard it).
  virtual void finish_failed(ClientError e) = 0;
  ClientError timed_out(const std::string& last) const;
  void emit(PartyEvent event) const;
  // The bytes of the connection that just ended, added to the run's.
  void count_bytes_of_connection();
  // A seat held again ends the outage.
  void end_outage() { outage_started_.reset(); }
  template <class Derived>
  std::shared_ptr<Derived> self_as() {
    return std::static_pointer_cast<Derived>(shared_from_this());
  }
  // A join of this session: the resume token once seated, else (to a 1.3 dealer or later) the
  // seat token we picked, so a join again after a lost Joined finds the seat it made.
  wire::JoinSessionMsg join_message(const wire::ChannelContext& channel) const;
  // Sends `m` and keeps it: a resumed seat sends it again.
  Step send(wire::Message m);
  Step send_last_again() const { return last_sent_ ? Step{{*last_sent_}, false} : Step{}; }
  // We give up before our values take part: the dealer hears why (and ends the session at
  // once, blaming us) rather than waiting out our seat.
  static ClientResult<Step> withdraw(ClientError error);
  // The session ended, blaming `abort.blamed`, and goes on as `abort.successor`: a run that
  // can follow it (one not blamed) drops every state of the session it was in and returns
  // true, and is then joined to the successor as a new party, with the same statement.
  virtual bool restart_in_successor(const ClientError& abort) = 0;
  // Why a first Joined's session has fewer parties than the caller requires (or, from a
  // dealer before 1.7, cannot say how many): public data only.
  std::optional<ClientError> too_few_parties(const wire::JoinedMsg& joined) const;

  // Work whose cost grows with what the dealer chose (a seat's slice over the session's
  // generators, a round for many positions, a large result's check): `work` runs on a thread
  // of its own and owns everything it reads (the states moved into it); `then(result)` runs
  // on the run's strand once it is done, and its step goes to the connection (or, if that
  // connection has ended, the next one resends what it sent). The deadline fires meanwhile; a
  // run that ends first drops the result where it was made (its secrets wiped by their
  // destructors). An exception in `work` (out of memory) ends the run with Internal.
  template <class Work, class Then>
  ClientResult<Step> offload(const char* what, Work work, Then then) {
    struct Task final : Offloaded {
      Task(Work w, Then t) : work(std::move(w)), then(std::move(t)) {}
      void run() override { result.emplace(work()); }
      ClientResult<Step> finish() override { return then(std::move(*result)); }
      Work work;
      Then then;
      std::optional<decltype(std::declval<Work&>()())> result;
    };
    return start_offloaded(what, std::make_unique<Task>(std::move(work), std::move(then)));
  }
  // The same, run here when the step is light (a thread and the strand's wake-up would cost
  // more than the step): `heavy` is decided from the session's public size.
  template <class Work, class Then>
  ClientResult<Step> compute(bool heavy, const char* what, Work work, Then then) {
    if (!heavy) {
      try {
        return then(work());
      } catch (const std::exception& e) {
        return withdraw(internal_error(e));
      }
    }
    return offload(what, std::move(work), std::move(then));
  }

  boost::asio::io_context& ioc_;
  const Strand strand_;  // the run's handlers and its connections'
  const Endpoint dealer_;
  std::string session_id_;          // the session we join: the caller's, or a successor of it
  std::vector<std::string> chain_;  // the sessions before it, oldest first
  const Options options_;
  const LinkEmulation link_;
  boost::asio::steady_timer retry_timer_;
  std::weak_ptr<Conversation> conversation_;
  size_t position_ = 0;                         // our first position (our seat in a gadget session)
  size_t bytes_sent_ = 0, bytes_received_ = 0;  // of the connections that ended
  bool finished_ = false;
  std::vector<uint8_t> resume_token_;  // from our Joined

 private:
  struct Offloaded {
    virtual ~Offloaded() = default;
    virtual void run() = 0;                   // on the worker
    virtual ClientResult<Step> finish() = 0;  // on the strand, after run()
  };
  // One piece of offloaded work, shared by the worker and the run until both let go.
  struct Job {
    std::unique_ptr<Offloaded> task;
    std::string what;
    std::atomic<bool> done{false};
    // What run() threw, written before done.
    enum class Threw { Nothing, OutOfMemory, Other } threw = Threw::Nothing;
    std::array<char, 160> what_threw{};
  };
  ClientResult<Step> start_offloaded(const char* what, std::unique_ptr<Offloaded> task);
  void poll_job();
  void on_job_tick();
  void deliver(ClientResult<Step> step, const std::shared_ptr<Conversation>& conversation);

  boost::asio::steady_timer job_timer_;
  std::shared_ptr<Job> job_;      // the work in flight, if any
  bool connect_waiting_ = false;  // a connection to open once it is done

  // The outage we are in, if any: since when, and how many connections it has taken.
  std::optional<std::chrono::steady_clock::time_point> outage_started_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;  // of the whole run, from the first connection
  size_t connections_ = 0;
  unsigned outage_connections_ = 0;
  std::chrono::milliseconds next_delay_{0};
  std::vector<uint8_t> seat_token_;  // picked once: the seat we ask for, until a Joined names ours
  std::optional<wire::Message> last_sent_;
};

}  // namespace bp::client::detail
