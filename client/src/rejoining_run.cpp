#include "rejoining_run.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "bp/mpc/limits.hpp"

namespace bp::client::detail {

namespace asio = boost::asio;

namespace {

// The next wait of a policy's backoff: `base` with up to 20% either way, drawn from libsodium.
std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
  const auto spread = static_cast<uint32_t>(base.count() / 5);
  if (spread == 0) return base;
  return base - std::chrono::milliseconds(spread) + std::chrono::milliseconds(randombytes_uniform(2 * spread + 1));
}

}  // namespace

RejoiningRun::RejoiningRun(asio::io_context& ioc, Endpoint dealer, std::string session_id, Options options,
                           LinkEmulation link)
    : ioc_(ioc),
      strand_(asio::make_strand(ioc)),
      dealer_(std::move(dealer)),
      session_id_(std::move(session_id)),
      options_(std::move(options)),
      link_(link),
      retry_timer_(strand_),
      job_timer_(strand_),
      seat_token_(wire::kResumeTokenBytes) {
  randombytes_buf(seat_token_.data(), seat_token_.size());
}

ClientError from_mpc(const mpc::MpcError& e) {
  const auto kind =
      e.kind == mpc::MpcErrorKind::MaliciousDealer ? ClientErrorKind::MaliciousDealer : ClientErrorKind::Refused;
  return {kind, mpc::describe(e), e.blamed};
}

std::optional<ClientError> RejoiningRun::too_few_parties(const wire::JoinedMsg& joined) const {
  const size_t wanted = options_.min_session_parties;
  if (wanted == 0 || joined.session_parties >= wanted) return std::nullopt;
  return ClientError{ClientErrorKind::Refused,
                     joined.session_parties == 0
                         ? "the dealer does not say how many parties the session holds (before wire 1.7); we require " +
                               std::to_string(wanted)
                         : "the session holds " + std::to_string(joined.session_parties) + " parties; we require " +
                               std::to_string(wanted),
                     {}};
}

wire::JoinSessionMsg RejoiningRun::join_message(const wire::ChannelContext& channel) const {
  wire::JoinSessionMsg join{session_id_, resume_token_, std::nullopt, {}};
  if (resume_token_.empty() && channel.dealer_minor_version >= 3) join.seat_token = seat_token_;
  return join;
}

Step RejoiningRun::send(wire::Message m) {
  last_sent_ = m;
  return Step{{std::move(m)}, false};
}

ClientResult<Step> RejoiningRun::withdraw(ClientError error) {
  // The reason within what a dealer decodes (it may quote what the dealer sent).
  std::string reason = "the party withdraws: " + error.detail;
  if (reason.size() > mpc::kMaxApplicationLabelBytes)
    reason = reason.substr(0, mpc::kMaxApplicationLabelBytes - 3) + "...";
  Step step{{wire::Message{wire::AbortMsg{std::move(reason), {}}}}, true};
  step.fail_after = std::move(error);
  return step;
}

void RejoiningRun::connect() {
  const auto now = std::chrono::steady_clock::now();
  if (!deadline_) deadline_ = now + options_.timeout;
  // A connection lost while we computed: the next one joins when the work is done (its
  // Joined would find the states still with the work).
  if (job_) {
    connect_waiting_ = true;
    return;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - now);
  if (left.count() <= 0) return finish_failed(timed_out("before connection " + std::to_string(connections_ + 1)));
  ++connections_;
  emit({PartyEvent::Kind::Connecting, outage_connections_, position_, 0, {}, {}, {}});
  Options connection = options_;
  connection.timeout = left;
  conversation_ = converse(strand_, dealer_, session_id_, connection, link_, shared_from_this());
}

ClientError RejoiningRun::timed_out(const std::string& last) const {
  return {ClientErrorKind::Timeout,
          "no result within " + std::to_string(options_.timeout.count()) + " ms (the whole join, " +
              std::to_string(connections_) + (connections_ == 1 ? " connection" : " connections") + "; " + last + ")",
          {}};
}

void RejoiningRun::on_fail(ClientError e) {
  count_bytes_of_connection();
  if (!e.successor.empty() && !finished_) {
    if (!restart_in_successor(e)) {
      e.detail = "excluded: " + e.detail;
      return finish_failed(std::move(e));
    }
    // Nothing of the session we leave goes on: its work in flight is dropped (the worker's
    // secrets wiped where it ends), and our seat in the successor is held for our token here.
    job_.reset();
    connect_waiting_ = false;
    last_sent_.reset();
    if (!resume_token_.empty()) seat_token_ = resume_token_;
    resume_token_.clear();
    chain_.push_back(session_id_);
    session_id_ = e.successor;
    outage_started_.reset();
    emit({PartyEvent::Kind::Reconnecting,
          0,
          position_,
          0,
          {},
          "successor session " + session_id_ + ": " + describe(e),
          {}});
    return connect();
  }
  if (e.kind == ClientErrorKind::Timeout) return finish_failed(timed_out("the last: " + e.detail));
  const auto& policy = options_.reconnect;
  const bool may_pass = e.transient || e.retry_after_ms != 0;
  if (!may_pass || finished_ || policy.attempts == 0) return finish_failed(std::move(e));
  const auto now = std::chrono::steady_clock::now();
  if (!outage_started_) {
    outage_started_ = now;
    outage_connections_ = 0;
    next_delay_ = policy.first_delay;
  }
  const auto out_for = std::chrono::duration_cast<std::chrono::milliseconds>(now - *outage_started_);
  if (outage_connections_ >= policy.attempts || out_for >= policy.give_up_after) {
    emit({PartyEvent::Kind::GaveUp, outage_connections_, position_, 0, {}, describe(e), {}});
    return finish_failed(ClientError{ClientErrorKind::Unavailable,
                                     "gave up after " + std::to_string(outage_connections_) + " reconnections in " +
                                         std::to_string(out_for.count()) + " ms: " + describe(e),
                                     e.blamed});
  }
  const auto delay = std::max(jittered(next_delay_), std::chrono::milliseconds(e.retry_after_ms));
  if (deadline_ && now + delay >= *deadline_) {
    emit({PartyEvent::Kind::GaveUp, outage_connections_, position_, 0, {}, describe(e), {}});
    // Rate-limited to the end: that, with when the dealer would take us, is what to act on.
    if (e.kind == ClientErrorKind::RateLimited) return finish_failed(std::move(e));
    return finish_failed(timed_out("the last: " + describe(e)));
  }
  ++outage_connections_;
  next_delay_ = std::min(policy.max_delay, next_delay_ * 2);
  emit({PartyEvent::Kind::Reconnecting, outage_connections_, position_, 0, {}, describe(e), delay});
  retry_timer_.expires_after(delay);
  retry_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->connect();
  });
}

ClientResult<Step> RejoiningRun::start_offloaded(const char* what, std::unique_ptr<Offloaded> task) {
  auto job = std::make_shared<Job>();
  job->task = std::move(task);
  job->what = what;
  try {
    // A thread per piece of work: a run has at most one in flight, and a handful in all.
    std::thread([job] {
      // What it threw is kept without allocating (an allocation may be what failed); the
      // error is made on the strand.
      try {
        job->task->run();
      } catch (const std::bad_alloc&) {
        job->threw = Job::Threw::OutOfMemory;
      } catch (const std::exception& e) {
        job->threw = Job::Threw::Other;
        std::strncpy(job->what_threw.data(), e.what(), job->what_threw.size() - 1);
      } catch (...) {
        job->threw = Job::Threw::Other;
      }
      job->done.store(true, std::memory_order_release);
    }).detach();
  } catch (const std::exception& e) {
    return ClientError{
        ClientErrorKind::Internal, std::string("cannot start the work on ") + what + ": " + e.what(), {}};
  }
  job_ = std::move(job);
  poll_job();
  Step pending;
  pending.pending = true;
  return pending;
}

// The worker never touches the io_context (the caller's, which may be gone when the worker
// ends, after a timeout): the run looks at the job on its own timer instead.
void RejoiningRun::poll_job() {
  job_timer_.expires_after(std::chrono::milliseconds(1));
  job_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->on_job_tick();
  });
}

void RejoiningRun::on_job_tick() {
  if (!job_) return;
  if (finished_) {
    job_.reset();  // the worker drops the result when it ends
    return;
  }
  if (!job_->done.load(std::memory_order_acquire)) {
    // The connection's own deadline fires while it is open; between connections, this one.
    if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
      const std::string what = job_->what;
      job_.reset();
      return finish_failed(timed_out("while the party computed " + what));
    }
    return poll_job();
  }
  const auto job = std::move(job_);
  // The connection the step goes to, held before the step runs: a last step (the result's)
  // counts the connection's bytes and lets go of it, and must still end it (else it stays
  // open, and its caller's io_context runs, until its deadline).
  const auto conversation = conversation_.lock();
  if (job->threw == Job::Threw::OutOfMemory) return deliver(withdraw(internal_error(std::bad_alloc())), conversation);
  if (job->threw == Job::Threw::Other)
    return deliver(withdraw({ClientErrorKind::Internal,
                             "an unexpected error in the party while it computed " + job->what + ": " +
                                 std::string(job->what_threw.data()),
                             {}}),
                   conversation);
  ClientResult<Step> step = ClientError{ClientErrorKind::Internal, "", {}};
  try {
    step = job->task->finish();
  } catch (const std::exception& e) {
    step = withdraw(internal_error(e));
  }
  deliver(std::move(step), conversation);
}

void RejoiningRun::deliver(ClientResult<Step> step, const std::shared_ptr<Conversation>& conversation) {
  if (conversation) return conversation->resume(std::move(step));
  // The connection ended while we computed: the step's message is the last one sent, and the
  // next connection resends it on the resumed seat.
  if (!step) return finish_failed(step.error());
  if (step->fail_after) return finish_failed(*step->fail_after);
  if (step->done || finished_) return;
  if (connect_waiting_) {
    connect_waiting_ = false;
    connect();
  }
}

void RejoiningRun::emit(PartyEvent event) const {
  if (options_.on_event) options_.on_event(event);
}

void RejoiningRun::count_bytes_of_connection() {
  if (auto c = conversation_.lock()) {
    bytes_sent_ += c->bytes_sent();
    bytes_received_ += c->bytes_received();
  }
  conversation_.reset();
}

}  // namespace bp::client::detail
