// Merlin transcripts (merlin 3.0): STROBE-128 over Keccak-f[1600], the Fiat-Shamir
// oracle of every proof. Byte-for-byte the same operations as the Rust crate, so a
// transcript built here and one built there produce the same challenges.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

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

 private:
  void begin_op(uint8_t flags, bool more);
  void absorb(std::span<const uint8_t> data);
  void squeeze(std::span<uint8_t> out);
  void run_f();
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(state_); }

  uint64_t state_[25];
  uint8_t pos_ = 0;
  uint8_t pos_begin_ = 0;
  uint8_t cur_flags_ = 0;
};

class Transcript {
 public:
  explicit Transcript(std::string_view label);

  void append_message(std::string_view label, std::span<const uint8_t> message);
  void append_u64(std::string_view label, uint64_t x);
  void challenge_bytes(std::string_view label, std::span<uint8_t> out);

 private:
  Strobe128 strobe_;
};

}  // namespace bp
