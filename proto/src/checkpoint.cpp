#include "bp/wire/checkpoint.hpp"

#include <sodium.h>

#include <algorithm>

#include "checkpoint.pb.h"
#include "field_codec.hpp"

namespace bp::wire {

using namespace detail;
namespace record = ::bp::record::v1;

namespace {
constexpr uint32_t kCheckpointFormat = 1;
}

TokenHash hash_resume_token(std::span<const uint8_t> token) {
  TokenHash out{};
  crypto_generichash(out.data(), out.size(), token.data(), token.size(), nullptr, 0);
  return out;
}

std::vector<uint8_t> encode_checkpoint(const DealerCheckpoint& c) {
  record::DealerCheckpoint m;
  m.set_format(kCheckpointFormat);
  m.set_bits(static_cast<uint32_t>(c.bits));
  m.set_positions(static_cast<uint32_t>(c.positions));
  m.set_transcript_label(c.transcript_label);
  m.set_round_timeout_ms(c.round_timeout_ms);
  for (const auto& key : c.allowed_parties) m.add_allowed_parties(text_of(key));
  if (c.owner_key) m.set_owner_key(text_of(*c.owner_key));
  m.set_owner_address(c.owner_address);
  m.set_padding_seed(text_of(c.padding_seed));
  for (const auto& seat : c.seats) {
    auto* s = m.add_seats();
    s->set_taken(seat.taken);
    if (seat.taken) s->set_token_hash(text_of(seat.token_hash));
    s->set_peer(seat.peer);
  }
  for (const auto& b : c.bit_commitments) fill(m.add_bit_commitments(), b);
  for (const auto& p : c.poly_commitments) fill(m.add_poly_commitments(), p);
  for (uint32_t k : c.values_per_party) m.add_values_per_party(k);
  fill_bounds(m.mutable_bounds(), c.bounds);
  m.set_gadgets(c.gadgets);
  for (const auto& f : c.r1cs_first_phases) fill(m.add_r1cs_first_phases(), f);
  for (const auto& f : c.r1cs_second_phases) fill(m.add_r1cs_second_phases(), f);
  for (const auto& p : c.r1cs_poly_commitments) fill(m.add_r1cs_poly_commitments(), p);
  m.set_min_parties(c.min_parties);
  m.set_join_window_ms(c.join_window_ms);
  m.set_listed_parties(c.listed_parties);
  for (uint32_t seat : c.not_joined) m.add_not_joined(seat);
  for (const auto& key : c.not_joined_keys) m.add_not_joined_keys(text_of(key));
  m.set_gadget_successors(c.gadget_successors);
  std::vector<uint8_t> out(m.ByteSizeLong());
  m.SerializeToArray(out.data(), static_cast<int>(out.size()));
  return out;
}

Result<DealerCheckpoint, CodecError> decode_checkpoint(std::span<const uint8_t> bytes, const Limits& limits) {
  record::DealerCheckpoint m;
  if (bytes.size() > 4 * limits.max_frame_bytes || !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return error(CodecErrorKind::Unparseable, "not a dealer checkpoint");
  if (m.format() != kCheckpointFormat)
    return error(CodecErrorKind::UnsupportedVersion, "checkpoint format " + std::to_string(m.format()));
  const bool gadgets = !m.gadgets().empty();
  if (m.gadgets().size() > kMaxGadgetsBytes) return error(CodecErrorKind::TooMany, "gadget list too long");
  if (gadgets
          ? m.bits() != 0 || m.values_per_party_size() != 0 || m.bounds_size() != 0 || m.bit_commitments_size() != 0 ||
                m.poly_commitments_size() != 0
          : m.r1cs_first_phases_size() != 0 || m.r1cs_second_phases_size() != 0 || m.r1cs_poly_commitments_size() != 0)
    return error(CodecErrorKind::BadLength, "a checkpoint mixes a gadget session's fields with a range session's");
  if (!gadgets && !is_valid_bitsize(m.bits())) return error(CodecErrorKind::BadLength, "bits is not 8, 16, 32 or 64");
  if (m.positions() == 0 || m.positions() > limits.max_positions)
    return error(CodecErrorKind::TooMany, "positions must be 1.." + std::to_string(limits.max_positions));
  if (m.transcript_label().size() > limits.max_transcript_label_bytes)
    return error(CodecErrorKind::TooMany, "label too long");
  // Seats are one per party: per values_per_party entry, else (one value each) per position.
  const int seats = m.values_per_party_size() != 0 ? m.values_per_party_size()
                    : m.bounds_size() != 0         ? m.bounds_size()
                                                   : static_cast<int>(m.positions());
  if (m.owner_address().size() > 64 || m.seats_size() != seats || seats > static_cast<int>(m.positions()))
    return error(CodecErrorKind::BadLength, "one seat per party");
  if (m.allowed_parties_size() != 0 && m.allowed_parties_size() != seats)
    return error(CodecErrorKind::BadLength, "the allow-list names one key per party or none");
  size_t values = m.values_per_party_size() == 0 ? m.positions() : 0;
  for (uint32_t k : m.values_per_party()) {
    if (k == 0 || k > limits.max_positions) return error(CodecErrorKind::BadLength, "a party holds 1 to 256 values");
    values += k;
  }
  BP_TRY(bounds, value_bounds(m.bounds(), values));
  const size_t positions = bounds.empty() ? values : bounded_positions(bounds);
  if ((!bounds.empty() && bounds.size() != values) || positions != m.positions())
    return error(CodecErrorKind::BadLength, "the values and bounds do not take the session's positions");
  // Round 2 is decided only after round 1; each round holds every position's message or none.
  const int positions_count = static_cast<int>(m.positions());
  if ((m.bit_commitments_size() != 0 && m.bit_commitments_size() != positions_count) ||
      (m.poly_commitments_size() != 0 && m.poly_commitments_size() != positions_count) ||
      (m.poly_commitments_size() != 0 && m.bit_commitments_size() == 0))
    return error(CodecErrorKind::BadLength, "a round's commitments are one per position or none");

  DealerCheckpoint out;
  out.bits = m.bits();
  out.positions = m.positions();
  out.transcript_label = m.transcript_label();
  out.round_timeout_ms = m.round_timeout_ms();
  for (const auto& key : m.allowed_parties()) {
    BP_TRY(k, fixed<kPublicKeyBytes>(key, "allowed party key"));
    out.allowed_parties.push_back(k);
  }
  if (!m.owner_key().empty()) {
    BP_TRY(k, fixed<kPublicKeyBytes>(m.owner_key(), "owner key"));
    out.owner_key = k;
  }
  out.owner_address = m.owner_address();
  BP_TRY(seed, fixed<32>(m.padding_seed(), "padding seed"));
  out.padding_seed = seed;
  for (const auto& s : m.seats()) {
    SeatCheckpoint seat;
    seat.taken = s.taken();
    if (seat.taken) {
      BP_TRY(h, fixed<kTokenHashBytes>(s.token_hash(), "token hash"));
      seat.token_hash = h;
    } else if (!s.token_hash().empty()) {
      return error(CodecErrorKind::BadLength, "a free seat has no token");
    }
    if (s.peer().size() > 64) return error(CodecErrorKind::TooMany, "peer address too long");
    seat.peer = s.peer();
    out.seats.push_back(std::move(seat));
  }
  const bool all_seated = std::all_of(out.seats.begin(), out.seats.end(), [](const auto& s) { return s.taken; });
  if (m.bit_commitments_size() != 0 && !all_seated)
    return error(CodecErrorKind::BadLength, "round 1 decided with a free seat");
  for (const auto& b : m.bit_commitments()) {
    BP_TRY(c, bit_commitment(b));
    out.bit_commitments.push_back(c);
  }
  for (const auto& p : m.poly_commitments()) {
    BP_TRY(c, poly_commitment(p));
    out.poly_commitments.push_back(c);
  }
  out.values_per_party.assign(m.values_per_party().begin(), m.values_per_party().end());
  out.bounds = std::move(bounds);
  // A gadget session's rounds: each every seat's message or none, in order.
  const int seat_count = static_cast<int>(out.seats.size());
  const int first = m.r1cs_first_phases_size(), second = m.r1cs_second_phases_size(),
            polys = m.r1cs_poly_commitments_size();
  if ((first != 0 && first != seat_count) || (second != 0 && second != seat_count) ||
      (polys != 0 && polys != seat_count) || (second != 0 && first == 0) || (polys != 0 && second == 0))
    return error(CodecErrorKind::BadLength, "a gadget round's messages are one per seat or none, in order");
  if (first != 0 && !all_seated) return error(CodecErrorKind::BadLength, "round 1 decided with a free seat");
  out.gadgets = m.gadgets();
  size_t commitments = 0;
  for (const auto& f : m.r1cs_first_phases()) {
    BP_TRY(c, r1cs_first_phase(f, limits.max_r1cs_commitments));
    commitments += c.V.size();
    out.r1cs_first_phases.push_back(std::move(c));
  }
  if (commitments > limits.max_r1cs_commitments) return error(CodecErrorKind::TooMany, "too many commitments");
  for (const auto& f : m.r1cs_second_phases()) {
    BP_TRY(c, r1cs_second_phase(f));
    out.r1cs_second_phases.push_back(c);
  }
  for (const auto& p : m.r1cs_poly_commitments()) {
    BP_TRY(c, r1cs_poly(p));
    out.r1cs_poly_commitments.push_back(c);
  }
  // 1.7: a quorum. Before the set is fixed no seat has committed; once fixed, the seats left
  // out and the ones kept add up to those listed.
  const auto limit = static_cast<uint32_t>(limits.max_positions);
  if (m.min_parties() > static_cast<uint32_t>(seat_count + m.not_joined_size()) || m.listed_parties() > limit ||
      (m.listed_parties() != 0 &&
       (m.min_parties() == 0 || m.listed_parties() != static_cast<uint32_t>(seat_count + m.not_joined_size()))) ||
      (m.listed_parties() == 0 && m.not_joined_size() != 0) ||
      (m.not_joined_keys_size() != 0 && m.not_joined_keys_size() != m.not_joined_size()))
    return error(CodecErrorKind::BadLength, "a quorum's listed parties are the ones seated and the ones left out");
  if (m.min_parties() != 0 && m.listed_parties() == 0 && (m.bit_commitments_size() != 0 || first != 0))
    return error(CodecErrorKind::BadLength, "a round decided before the quorum's set was fixed");
  out.min_parties = m.min_parties();
  out.join_window_ms = m.join_window_ms();
  out.listed_parties = m.listed_parties();
  for (uint32_t seat : m.not_joined()) {
    if (seat >= m.listed_parties()) return error(CodecErrorKind::BadLength, "a seat left out beyond those listed");
    out.not_joined.push_back(seat);
  }
  for (const auto& key : m.not_joined_keys()) {
    BP_TRY(k, fixed<kPublicKeyBytes>(key, "left-out party key"));
    out.not_joined_keys.push_back(k);
  }
  if (m.gadget_successors() && (!gadgets || m.min_parties() == 0))
    return error(CodecErrorKind::BadLength, "gadget successors are for a gadget session with a quorum");
  out.gadget_successors = m.gadget_successors();
  return out;
}

}  // namespace bp::wire
