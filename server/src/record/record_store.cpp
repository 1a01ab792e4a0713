#include "record/record_store.hpp"

namespace bp::server {

RecordResult<WriteAnswers> RecordStore::write_batch(const WriteBatch& batch) {
  WriteAnswers answers;
  for (const auto& c : batch.claims) answers.claims.push_back(claim(c));
  for (const auto& c : batch.checkpoints) answers.checkpoints.push_back(checkpoint(c));
  for (const auto& c : batch.closes) answers.closes.push_back(close(c.id, c.epoch, c.ok, c.json));
  return answers;
}

}  // namespace bp::server
