#include "memory_record_store.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace bp::server {
namespace {

class MemoryRecordStore final : public RecordStore {
 public:
  MemoryRecordStore(std::string replica, size_t capacity) : replica_(std::move(replica)), capacity_(capacity) {}

  StoreResult<ClaimOutcome> claim(const ClaimRequest& r) override {
    if (rows_.count(r.id) != 0) return ClaimOutcome::Taken;
    if (r.owner_cap != 0 && std::count_if(rows_.begin(), rows_.end(), [&](const auto& entry) {
          return entry.second.session.open && entry.second.owner == r.owner;
        }) >= static_cast<long>(r.owner_cap))
      return ClaimOutcome::OwnerAtCap;
    Row row;
    row.session = SessionRow{true, r.lost_json, OpenSessionRow{r.id, replica_, "join", r.bits, r.parties, 0}};
    row.owner = r.owner;
    rows_.emplace(r.id, std::move(row));
    return ClaimOutcome::Claimed;
  }

  StoreResult<Ok> close(const std::string& id, bool, const std::string& json) override {
    auto it = rows_.find(id);
    if (it == rows_.end() || !it->second.session.open)
      return StoreError{"this dealer no longer holds the claim on session " + id, false};
    it->second.session.open = false;
    it->second.session.json = json;
    it->second.recorded = std::chrono::steady_clock::now();
    closed_order_.push_back(id);
    // Bounded: the oldest closed records give way (an id is then free again, as after prune).
    while (closed_order_.size() > capacity_) {
      rows_.erase(closed_order_.front());
      closed_order_.pop_front();
    }
    return Ok{};
  }

  StoreResult<std::optional<SessionRow>> find(const std::string& id) override {
    auto it = rows_.find(id);
    if (it == rows_.end()) return std::optional<SessionRow>{};
    return std::optional<SessionRow>(it->second.session);
  }

  StoreResult<std::vector<OpenSessionRow>> open_sessions(const std::string& owner) override {
    std::vector<OpenSessionRow> out;
    for (const auto& [id, row] : rows_)
      if (row.session.open && row.owner == owner) out.push_back(row.session.live);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
  }

  StoreResult<std::vector<std::string>> request_cancel(const std::string& owner,
                                                       const std::vector<std::string>& ids) override {
    std::vector<std::string> marked;
    for (const auto& id : ids) {
      auto it = rows_.find(id);
      if (it == rows_.end() || !it->second.session.open || it->second.owner != owner) continue;
      it->second.cancel_requested = true;
      marked.push_back(id);
    }
    return marked;
  }

  StoreResult<HeartbeatAnswer> heartbeat(const std::vector<PhaseUpdate>& phases, std::chrono::seconds,
                                         bool) override {
    HeartbeatAnswer answer;
    for (const auto& p : phases) {
      auto it = rows_.find(p.id);
      if (it == rows_.end() || !it->second.session.open) continue;
      it->second.session.live.phase = p.phase;
      it->second.session.live.joined = p.joined;
    }
    for (auto& [id, row] : rows_) {
      if (!row.session.open || !row.cancel_requested) continue;
      row.cancel_requested = false;
      answer.cancel.push_back(id);
    }
    return answer;
  }

  StoreResult<size_t> prune(std::chrono::seconds age) override {
    const auto cutoff = std::chrono::steady_clock::now() - age;
    size_t gone = 0;
    while (!closed_order_.empty() && rows_.at(closed_order_.front()).recorded < cutoff) {
      rows_.erase(closed_order_.front());
      closed_order_.pop_front();
      ++gone;
    }
    return gone;
  }

 private:
  struct Row {
    SessionRow session;
    std::string owner;
    bool cancel_requested = false;
    std::chrono::steady_clock::time_point recorded;
  };
  std::string replica_;
  size_t capacity_;
  std::unordered_map<std::string, Row> rows_;
  std::deque<std::string> closed_order_;  // oldest closed first
};

}  // namespace

std::unique_ptr<RecordStore> make_memory_record_store(const std::string& replica, size_t capacity) {
  return std::make_unique<MemoryRecordStore>(replica, capacity);
}

}  // namespace bp::server
