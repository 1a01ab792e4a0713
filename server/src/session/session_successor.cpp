// A fixed quorum set that ends with blame goes on without its culprits (wire 1.7). When a
// range session whose set was fixed aborts blaming some of its parties (late, gone, lying,
// withdrawn, restarted) and at least its quorum of parties is left, the dealer claims a
// successor session in the record: the parties not blamed, listed again in their order, each
// seat held for the token of its seat here, the same quorum and window, and a label that
// names this session after the application's. Only once the record holds the successor is
// this session's abort recorded, naming it, and every party told: the remaining ones join
// the successor as new parties would (nothing of this session's state is reused), the
// blamed ones read that they were excluded. Each successor leaves out at least one party, so
// a chain of N parties with a quorum of K has at most N - K successors.
#include <boost/asio/post.hpp>

#include "observability/log.hpp"
#include "session/crash_point.hpp"
#include "session/session.hpp"

namespace bp::server {

namespace {

// The kinds of abort that name culprits the session can go on without.
bool excludes_culprits(AbortKind kind) {
  switch (kind) {
    case AbortKind::RoundTimeout:
    case AbortKind::PartyLeft:
    case AbortKind::ProtocolViolation:
    case AbortKind::Withdrawn:
    case AbortKind::LostState:
    case AbortKind::InvalidShares: return true;
    default: return false;
  }
}

}  // namespace

bool AggregationSession::start_successor(AbortKind kind, const std::string& reason, const std::vector<size_t>& blamed) {
  if (!env_.start_successor || terms_.min_parties == 0 || terms_.listed_parties == 0 ||
      (terms_.gadgets && !terms_.gadget_successors) || blamed.empty() || !excludes_culprits(kind))
    return false;
  std::vector<bool> culprit(params_.positions, false);
  for (size_t p : blamed)
    if (p < culprit.size()) culprit[p] = true;
  std::vector<size_t> remaining;
  for (size_t j = 0; j < seats_.size(); ++j) {
    const auto& shape = seats_[j].shape;
    bool hit = false;
    for (size_t p = 0; p < shape.positions; ++p) hit = hit || culprit[shape.first_position + p];
    if (!hit) remaining.push_back(j);
  }
  if (remaining.empty() || remaining.size() == seats_.size() || remaining.size() < terms_.min_parties) return false;
  const std::string next_id = wire::random_session_id();
  auto next = terms_.successor(remaining, next_id);
  if (!next) return false;
  // Its parties were connected a moment ago and come back at once, as a party resumes its
  // seat: the window is the reconnect grace (one who does not come is not waited for longer).
  if (env_.reconnect_grace.count() > 0)
    next->join_window =
        std::min(terms_.join_window.count() != 0 ? terms_.join_window : terms_.round_timeout, env_.reconnect_grace);
  auto checkpoint = first_checkpoint(*next);
  for (size_t k = 0; k < remaining.size(); ++k)
    checkpoint.seats[k] = {true, seats_[remaining[k]].token_hash, seats_[remaining[k]].peer};
  // Nothing a party sends counts while the record takes the successor.
  stage_ = Ended{};
  publish_progress();
  deadline_.cancel();
  for (auto& seat : seats_) seat.grace.reset();
  log::info("starting a successor session", {{"session", id()},
                                             {"successor", next_id},
                                             {"kind", abort_kind_label(kind)},
                                             {"remaining", remaining.size()},
                                             {"excluded", blamed}});
  env_.start_successor(std::move(*next), std::move(checkpoint),
                       [self = shared_from_this(), kind, reason, blamed, next_id,
                        left_out = seats_.size() - remaining.size()](bool started) {
                         boost::asio::post(self->strand_, [self, kind, reason, blamed, next_id, left_out, started] {
                           if (started) crash_point("successor-claimed");
                           if (started) self->env_.metrics->successor_started(kind, left_out);
                           self->end_aborted(
                               kind, started ? reason : reason + " (its successor session could not be started)",
                               blamed, started ? next_id : std::string());
                         });
                       });
  return true;
}

}  // namespace bp::server
