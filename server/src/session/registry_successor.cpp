// A session's successor (SessionEnv::start_successor, session_successor.cpp): claimed in the
// record as a create's session is, without the owner's cap (it takes its predecessor's
// place, it is not one more), then run on this replica.
#include "record/record_store.hpp"
#include "session/outcome_json.hpp"
#include "session/registry.hpp"
#include "session/session.hpp"

namespace bp::server {

void SessionRegistry::start_successor(SessionTerms terms, wire::DealerCheckpoint checkpoint,
                                      std::function<void(bool)> done) {
  const std::string id = terms.id;
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return done(false);
    claiming_.insert(id);
  }
  const std::string lost = lost_outcome(terms);
  // Its predecessor is still open in the record until the successor is there: no owner cap
  // (the successor takes its place, it is not one more).
  ClaimRequest claim{id,
                     owner_text(terms.owner),
                     static_cast<uint32_t>(terms.params.bits),
                     static_cast<uint32_t>(terms.seat_shapes().size()),
                     lost,
                     0,
                     wire::encode_checkpoint(checkpoint)};
  const bool queued =
      records_.claim(claim, [this, id, terms, checkpoint, done](RecordResult<ClaimOutcome> result) mutable {
        claimed(id, std::move(terms), std::move(checkpoint), std::move(result), [done](Created created) {
          done(std::holds_alternative<std::shared_ptr<AggregationSession>>(created));
        });
      });
  if (!queued) {
    {
      std::lock_guard lock(mutex_);
      claiming_.erase(id);
    }
    done(false);
  }
}

}  // namespace bp::server
