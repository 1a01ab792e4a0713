// What parties and dealer agree on before the first round: the bit size n, how many
// positions the proof aggregates, and the exact transcript label. The label is the session's identity:
// a proof is only valid under it, so binding the session id and parameters into it stops
// a proof from being replayed into another session.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "bp/bounds.hpp"
#include "bp/mpc/limits.hpp"

namespace bp::mpc {

inline constexpr unsigned kProtocolVersion = 1;
[[deprecated("kMaxParties counted positions: use kMaxPositions")]] inline constexpr size_t kMaxParties = kMaxPositions;

struct SessionParams {
  // The bit size: 8, 16, 32 or 64. `n` is its old name, kept for one release; both name the
  // same storage (a union of one type, which GCC and Clang read either way).
  union {
    size_t bits = 64;
    [[deprecated("SessionParams::n is the bit size: use bits")]] size_t n;
  };
  size_t positions = 1;  // real positions, 1..256 (one per value, or two for a bounded one)
  std::string label;     // the full transcript label (see session_label)

  // SessionParams{bits, positions, label} as before the union (which would otherwise ask
  // for braces around the first member).
  SessionParams() = default;
  SessionParams(size_t bit_size, size_t position_count, std::string transcript_label)
      : bits(bit_size), positions(position_count), label(std::move(transcript_label)) {}

  // The proof aggregates the next power of two; positions positions..padded_m()-1 are
  // padding run by the dealer (value 0, blinding 0, so their commitment is the identity).
  size_t padded_m() const;
  bool valid() const;
};

// "bp-agg/v1 session=<id> n=<n> m=<padded m> parties=<m> label=<user label>": every
// parameter that changes the meaning of the proof, then the application's own label. A
// session of bounded values states their number before the label ("... parties=<m>
// bounded=<k> label=..."), and its transcript label adds their bounds after it (bp/bounds.hpp's
// bounded_label), so no user label makes one session's label another kind's. The label's
// text says "parties=" for the count of positions: it is what every proof so far was made
// under, so it stays.
std::string session_label(std::string_view session_id, size_t bits, size_t positions, std::string_view user_label,
                          size_t bounded_values = 0);
// Everything session_label writes before the user's label (up to and including "label="):
// what the dealer, the client and a checkpoint's reader all compare a label's start with.
std::string session_label_prefix(std::string_view session_id, size_t bits, size_t positions, size_t bounded_values = 0);

// The transcript label of a session whose values may carry bounds (empty: none): session_label,
// and with bounds the count before the user's label and bounded_label's " bounds=..." after it.
std::string session_transcript_label(std::string_view session_id, size_t bits, size_t positions,
                                     std::string_view user_label, std::span<const ValueBounds> bounds);

// What a session's transcript label says beyond what a party knows before it joins (its
// session id, the bit size it proves, the session's positions): the application's label and
// every value's bounds (empty: an unbounded session).
struct LabelTerms {
  std::string user_label;
  std::vector<ValueBounds> bounds;
};

// Reads a transcript label as one of session_id's, for `bits` bits and `positions` positions, and
// returns its terms only when session_transcript_label rebuilds exactly this label from them:
// a label for another session, bit size or count of positions, or one whose bounds do not take
// those positions, gives nothing. Public data; a party calls it on its Joined.
std::optional<LabelTerms> read_session_transcript_label(std::string_view label, std::string_view session_id,
                                                        size_t bits, size_t positions);

// A gadget session's transcript label (wire 1.5):
// "bp-agg-r1cs/v1 session=<id> gadgets=<canonical list> label=<user label>". Its own tag, so
// no range session's label is a gadget session's; the list (GadgetList::text: letters, digits,
// ':', ';' and '|', no space) sits before the user's label, whatever that says.
std::string gadget_session_label(std::string_view session_id, std::string_view gadgets, std::string_view user_label);
// The application's label when `label` is session_id's gadget session label over exactly
// `gadgets` (canonical); nothing otherwise. Public data; a party calls it on its Joined.
std::optional<std::string> read_gadget_session_label(std::string_view label, std::string_view session_id,
                                                     std::string_view gadgets);

}  // namespace bp::mpc
