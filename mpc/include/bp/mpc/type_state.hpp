// The one idiom of every protocol state in mpc (range and constraint-system, party and
// dealer): move-only, built only by the step before it from a private holder of its secrets,
// and consumed by its transition (a moved-from state answers ConsumedState).
#pragma once

#include <memory>

// The special members of a move-only state: declared here, defaulted in its .cpp
// (BP_MPC_DEFAULT_MOVES), where the holder's type is complete.
#define BP_MPC_MOVE_ONLY(Class)            \
  Class(Class&&) noexcept;                 \
  Class& operator=(Class&&) noexcept;      \
  Class(const Class&) = delete;            \
  Class& operator=(const Class&) = delete; \
  ~Class()

// The same, with the private holder `s_` of type Hold and the constructor the step before
// calls. Leaves the class in its private section.
#define BP_MPC_TYPE_STATE(Class, Hold)     \
  BP_MPC_MOVE_ONLY(Class);                 \
                                           \
 private:                                  \
  explicit Class(std::unique_ptr<Hold> s); \
  std::unique_ptr<Hold> s_
