// Merlin transcripts (merlin 3.0): STROBE-128 over Keccak-f[1600], the Fiat-Shamir
// oracle of every proof. Byte-for-byte the same operations as the Rust crate, so a
// transcript built here and one built there produce the same challenges.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "bp/random.hpp"

namespace bp {

// The subset of STROBE-128 that Merlin uses: meta-AD, AD and PRF.
class Strobe128 {
 public:
  explicit Strobe128(std::span<const uint8_t> protocol_label);
  ~Strobe128();
  Strobe128(const Strobe128&) = default;
  Strobe128& operator=(const Strobe128&) = default;

  void meta_ad(std::span<const uint8_t> data, bool more);
  void ad(std::span<const uint8_t> data, bool more);
  void prf(std::span<uint8_t> out, bool more);
  // KEY: overwrites the state with the data (Merlin's transcript RNG keys itself so).
  void key(std::span<const uint8_t> data, bool more);

 private:
  void begin_op(uint8_t flags, bool more);
  void absorb(std::span<const uint8_t> data);
  void overwrite(std::span<const uint8_t> data);
  void squeeze(std::span<uint8_t> out);
  void run_f();
  void advance(size_t count);  // pos_ moves on; F runs when it reaches the rate
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(state_); }

  uint64_t state_[25];
  uint8_t pos_ = 0;
  uint8_t pos_begin_ = 0;
  uint8_t cur_flags_ = 0;
};

class TranscriptRngBuilder;

class Transcript {
 public:
  explicit Transcript(std::string_view label);

  void append_message(std::string_view label, std::span<const uint8_t> message);
  void append_u64(std::string_view label, uint64_t x);
  void challenge_bytes(std::string_view label, std::span<uint8_t> out);
  // A fork of this transcript's state for a prover's randomness (Merlin's build_rng); the
  // transcript itself does not change.
  TranscriptRngBuilder build_rng() const;

 private:
  Strobe128 strobe_;
};

// Merlin's transcript RNG: the transcript so far, keyed with the prover's witness and then
// with 32 bytes of outside randomness. Its output depends on all three, so a weak outside
// source alone cannot repeat a nonce across different statements or witnesses; the R1CS
// prover draws its blindings from it, as the reference's does. The state is wiped with it.
class TranscriptRng final : public RandomSource {
 public:
  void fill(std::span<uint8_t> out) override;

 private:
  friend class TranscriptRngBuilder;
  explicit TranscriptRng(const Strobe128& strobe) : strobe_(strobe) {}
  Strobe128 strobe_;
};

class TranscriptRngBuilder {
 public:
  // Keys the fork with witness bytes under a label (each blinding, for the R1CS prover).
  TranscriptRngBuilder& rekey_with_witness_bytes(std::string_view label, std::span<const uint8_t> witness);
  // Keys it with 32 bytes from `outside` and hands it over.
  TranscriptRng finalize(RandomSource& outside) &&;

 private:
  friend class Transcript;
  explicit TranscriptRngBuilder(const Strobe128& strobe) : strobe_(strobe) {}
  Strobe128 strobe_;
};

}  // namespace bp
