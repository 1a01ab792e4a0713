// The record kept in memory only (no --db): the last `capacity` closed sessions, for tests,
// demos and a dealer that needs no record beyond its own lifetime.
#pragma once

#include <memory>
#include <string>

#include "record_store.hpp"

namespace bp::server {

std::unique_ptr<RecordStore> make_memory_record_store(const std::string& replica, size_t capacity);

}  // namespace bp::server
