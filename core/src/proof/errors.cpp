#include "bp/errors.hpp"

namespace bp {

std::string_view describe(ProofError e) {
  switch (e) {
    case ProofError::InvalidBitsize: return "invalid bitsize: n must be 8, 16, 32 or 64";
    case ProofError::InvalidAggregation: return "invalid aggregation: m must be a power of two";
    case ProofError::InvalidGeneratorsLength: return "not enough generators for this n and m";
    case ProofError::WrongNumBlindingFactors: return "values and blindings differ in count";
    case ProofError::ValueOutOfRange: return "value out of range: it must be below 2^n";
    case ProofError::InvalidBounds:
      return "invalid bounds: each min must not exceed its max, and max - min must be below 2^n";
    case ProofError::ValueOutOfBounds: return "value out of bounds: it must lie within its [min, max]";
    case ProofError::FormatError: return "malformed proof bytes";
    case ProofError::VerificationError: return "proof verification failed";
  }
  return "unknown error";
}

}  // namespace bp
