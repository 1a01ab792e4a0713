// The refusals more than one part of the dealer gives, worded once: a client, a test or an
// operator's grep sees the same text wherever it came from.
#pragma once

#include <string>

namespace bp::server::refusal {

inline constexpr const char* kRecordBusy = "the outcome record is busy; try again shortly";
inline constexpr const char* kShuttingDown = "the dealer is shutting down";
inline constexpr const char* kIdInUse = "session id in use";
inline constexpr const char* kNoSuchSession = "no such session";
inline constexpr const char* kSessionEnded = "the session has ended";
// What the record says of a party that withdrew: the kind only, never the party's words.
inline constexpr const char* kPartyWithdrew = "a party withdrew before committing: its seat was not its statement";

// An abort's reason travels in one frame, whose reason the codec bounds: a longer one is cut.
inline std::string one_reason(std::string why) {
  constexpr size_t kMax = 480;
  if (why.size() > kMax) why = why.substr(0, kMax) + "...";
  return why;
}

// The record failed a call: "the outcome record is unavailable (WHY)".
inline std::string record_unavailable(const std::string& why) {
  return "the outcome record is unavailable (" + why + ")";
}
// While it fails, no session is created here.
inline std::string no_new_sessions(const std::string& why) {
  return record_unavailable(why) + "; no new sessions until it is back";
}

}  // namespace bp::server::refusal
