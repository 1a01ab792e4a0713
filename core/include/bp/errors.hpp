// Typed errors of the proof core, and a small result type (no std::expected in C++20).
#pragma once

#include <string_view>
#include <utility>
#include <variant>

namespace bp {

enum class ProofError {
  InvalidBitsize,           // n is not 8, 16, 32 or 64
  InvalidAggregation,       // m is zero or not a power of two
  InvalidGeneratorsLength,  // the generators are too few for n or m
  WrongNumBlindingFactors,  // values and blindings differ in count
  ValueOutOfRange,          // a value is not below 2^n
  InvalidBounds,            // a value's min exceeds its max, or n does not cover max - min (bounds.hpp)
  ValueOutOfBounds,         // a value lies outside its bounds
  FormatError,              // the proof bytes are malformed (length, non-canonical scalar)
  VerificationError,        // the proof does not verify (including identity or undecodable points)
};

std::string_view describe(ProofError e);

template <class T, class E = ProofError>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(E e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace bp
