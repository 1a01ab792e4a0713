// Every size a session may take, in one place: the dealer refuses to create a session over
// them, the decoder refuses a frame over them, and a party refuses a seat over them before it
// allocates or computes anything for it. A dealer run by someone else cannot make a party
// spend more than the largest session these admit (SECURITY.md states what that costs).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "bp/r1cs_gadget_list.hpp"

namespace bp::mpc {

// Positions in one session (a party may hold several; the proof aggregates them all). In a
// gadget session, its seats.
inline constexpr size_t kMaxPositions = 256;
// An application's label, as an operator gives it (and an abort's reason).
inline constexpr size_t kMaxApplicationLabelBytes = 1024;
// The longest transcript label: 92 bytes of terms, an application label of 1,024 bytes, and
// " bounds=" with 256 minimum-only values of 20 digits (5,888 bytes) come to 7,012.
inline constexpr size_t kMaxTranscriptLabelBytes = 8192;
// A gadget session's list as text (a member item's set makes a list long).
inline constexpr size_t kMaxGadgetListBytes = 4096;
// A gadget session's value commitments, all seats together: a broadcast of every seat's
// first phase fits a 64 KiB frame.
inline constexpr size_t kMaxSessionCommitments = 1024;
// One seat's multipliers: its proof share's l and r fit a frame.
inline constexpr size_t kMaxSeatMultipliers = 512;
// A gadget session's multipliers, so its generators (the next power of two, at most this):
// what the reference's own tests go to.
inline constexpr size_t kMaxSessionMultipliers = 4096;

// Why a gadget list is larger than a session may be (the first limit it passes, named with
// its figure), or nothing when it fits. Public data only: the same answer for every party.
std::optional<std::string> gadget_list_over_limits(const GadgetList& list);

}  // namespace bp::mpc
