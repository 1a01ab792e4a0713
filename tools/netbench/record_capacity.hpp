// bp-netbench --record-capacity FILE|URL: how many sessions a second the record alone takes,
// whatever the dealer's cores: `in_flight` synthetic sessions at once, each a claim, three
// checkpoints and a close through the dealer's own RecordService (its threads, its batches),
// no cryptography. The record's writes are serial per connection: this is the ceiling a
// dealer of any size meets.
#pragma once

#include <cstddef>
#include <string>

namespace bp::netbench {

int run_record_capacity(const std::string& record, size_t in_flight, double seconds);

}  // namespace bp::netbench
