// The Bulletproofs protocol's operations on a Merlin transcript (the reference's
// TranscriptProtocol): domain separators, points, scalars and scalar challenges.
#pragma once

#include <string_view>

#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"
#include "bp/transcript.hpp"

namespace bp {

void rangeproof_domain_sep(Transcript& t, uint64_t n, uint64_t m);
void innerproduct_domain_sep(Transcript& t, uint64_t n);
void append_point(Transcript& t, std::string_view label, const CompressedRistretto& p);
void append_scalar(Transcript& t, std::string_view label, const Scalar& s);
// Refuses the identity encoding (appending nothing) and returns false; appends and returns true otherwise.
[[nodiscard]] bool validate_and_append_point(Transcript& t, std::string_view label, const CompressedRistretto& p);
// 64 challenge bytes reduced mod l.
Scalar challenge_scalar(Transcript& t, std::string_view label);

}  // namespace bp
