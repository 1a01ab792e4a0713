// What a bp_key is: an identity shared (read-only) with the sessions that sign with it.
#pragma once

#include <memory>

#include "bp/wire/identity.hpp"

struct bp_key {
  std::shared_ptr<const bp::wire::Identity> identity;
};
