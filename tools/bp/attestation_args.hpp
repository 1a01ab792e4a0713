// --session, --dealer-key and --signature: the dealer's attestation a session's result
// carries, as `bp verify` and `bp r1cs verify` read it (none when no flag is given; one
// without the others is a usage error).
#pragma once

#include <optional>

#include "args.hpp"
#include "bp/wire/messages.hpp"

namespace bp::cli {

std::optional<wire::Attestation> attestation_of(const Args& args);

}  // namespace bp::cli
