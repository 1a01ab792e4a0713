// The embedded record: one SQLite file (WAL, synchronous=FULL), for one dealer and the demo.
#pragma once

#include <memory>
#include <string>

#include "record_store.hpp"

namespace bp::server {

// Opens (creating or migrating) the database; throws std::runtime_error when it cannot. The
// open claims a previous run of this replica left are closed with their lost records.
// busy_timeout bounds how long a call waits for a lock held by another process.
// `instance` names this process: only claims of other processes under `replica` are leftovers.
std::unique_ptr<RecordStore> open_sqlite_record_store(const std::string& path, const std::string& replica,
                                                      const std::string& instance,
                                                      std::chrono::milliseconds busy_timeout);

}  // namespace bp::server
