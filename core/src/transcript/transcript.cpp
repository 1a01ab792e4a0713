#include "bp/transcript.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>

#include "bp/keccak.hpp"

namespace bp {
namespace {

constexpr uint8_t kStrobeRate = 166;  // 200 - 2·(128/8) - 2
constexpr uint8_t kFlagI = 1, kFlagA = 1 << 1, kFlagC = 1 << 2, kFlagM = 1 << 4;

std::span<const uint8_t> as_bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::array<uint8_t, 4> le32(size_t x) {
  const uint32_t v = static_cast<uint32_t>(x);
  return {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
          static_cast<uint8_t>(v >> 24)};
}

}  // namespace

Strobe128::Strobe128(std::span<const uint8_t> protocol_label) {
  std::memset(state_, 0, sizeof state_);
  static constexpr uint8_t kInit[18] = {
      1, kStrobeRate + 2, 1, 0, 1, 96, 'S', 'T', 'R', 'O', 'B', 'E', 'v', '1', '.', '0', '.', '2'};
  std::memcpy(bytes(), kInit, sizeof kInit);
  keccak_f1600(state_);
  meta_ad(protocol_label, false);
}

Strobe128::~Strobe128() { sodium_memzero(state_, sizeof state_); }

void Strobe128::meta_ad(std::span<const uint8_t> data, bool more) {
  begin_op(kFlagM | kFlagA, more);
  absorb(data);
}

void Strobe128::ad(std::span<const uint8_t> data, bool more) {
  begin_op(kFlagA, more);
  absorb(data);
}

void Strobe128::prf(std::span<uint8_t> out, bool more) {
  begin_op(kFlagI | kFlagA | kFlagC, more);
  squeeze(out);
}

void Strobe128::key(std::span<const uint8_t> data, bool more) {
  begin_op(kFlagA | kFlagC, more);
  overwrite(data);
}

void Strobe128::begin_op(uint8_t flags, bool more) {
  if (more) return;  // continuing the previous operation; Merlin always continues with the same flags
  const uint8_t old_begin = pos_begin_;
  pos_begin_ = static_cast<uint8_t>(pos_ + 1);
  cur_flags_ = flags;
  const uint8_t header[2] = {old_begin, flags};
  absorb(header);
  // Operations with C (cipher) set start on a fresh block.
  if ((flags & kFlagC) != 0 && pos_ != 0) run_f();
}

// absorb, overwrite and squeeze work a block's run at a time (up to the rate), not a byte
// and a test at a time: a proof's transcript is a few kilobytes, and byte by byte it was
// a twentieth of a batched verification. Where the runs split depends on lengths only.
void Strobe128::absorb(std::span<const uint8_t> data) {
  while (!data.empty()) {
    const size_t take = std::min<size_t>(data.size(), kStrobeRate - pos_);
    uint8_t* to = bytes() + pos_;
    for (size_t i = 0; i < take; ++i) to[i] ^= data[i];
    advance(take);
    data = data.subspan(take);
  }
}

void Strobe128::overwrite(std::span<const uint8_t> data) {
  while (!data.empty()) {
    const size_t take = std::min<size_t>(data.size(), kStrobeRate - pos_);
    std::memcpy(bytes() + pos_, data.data(), take);
    advance(take);
    data = data.subspan(take);
  }
}

void Strobe128::squeeze(std::span<uint8_t> out) {
  while (!out.empty()) {
    const size_t take = std::min<size_t>(out.size(), kStrobeRate - pos_);
    std::memcpy(out.data(), bytes() + pos_, take);
    std::memset(bytes() + pos_, 0, take);
    advance(take);
    out = out.subspan(take);
  }
}

void Strobe128::advance(size_t count) {
  pos_ = static_cast<uint8_t>(pos_ + count);
  if (pos_ == kStrobeRate) run_f();
}

void Strobe128::run_f() {
  bytes()[pos_] ^= pos_begin_;
  bytes()[pos_ + 1] ^= 0x04;
  bytes()[kStrobeRate + 1] ^= 0x80;
  keccak_f1600(state_);
  pos_ = 0;
  pos_begin_ = 0;
}

Transcript::Transcript(std::string_view label) : strobe_(as_bytes("Merlin v1.0")) {
  append_message("dom-sep", as_bytes(label));
}

void Transcript::append_message(std::string_view label, std::span<const uint8_t> message) {
  const auto len = le32(message.size());
  strobe_.meta_ad(as_bytes(label), false);
  strobe_.meta_ad(len, true);
  strobe_.ad(message, false);
}

void Transcript::append_u64(std::string_view label, uint64_t x) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(x >> (8 * i));
  append_message(label, le);
}

void Transcript::challenge_bytes(std::string_view label, std::span<uint8_t> out) {
  const auto len = le32(out.size());
  strobe_.meta_ad(as_bytes(label), false);
  strobe_.meta_ad(len, true);
  strobe_.prf(out, false);
}

TranscriptRngBuilder Transcript::build_rng() const { return TranscriptRngBuilder(strobe_); }

TranscriptRngBuilder& TranscriptRngBuilder::rekey_with_witness_bytes(std::string_view label,
                                                                     std::span<const uint8_t> witness) {
  strobe_.meta_ad(as_bytes(label), false);
  strobe_.meta_ad(le32(witness.size()), true);
  strobe_.key(witness, false);
  return *this;
}

TranscriptRng TranscriptRngBuilder::finalize(RandomSource& outside) && {
  uint8_t random_bytes[32];
  outside.fill(random_bytes);
  strobe_.meta_ad(as_bytes("rng"), false);
  strobe_.key(random_bytes, false);
  sodium_memzero(random_bytes, sizeof random_bytes);
  return TranscriptRng(strobe_);
}

void TranscriptRng::fill(std::span<uint8_t> out) {
  strobe_.meta_ad(le32(out.size()), false);
  strobe_.prf(out, false);
}

}  // namespace bp
