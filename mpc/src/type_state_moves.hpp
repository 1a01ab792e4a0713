// The definitions that go with bp/mpc/type_state.hpp, in each state's .cpp where its holder
// is complete, and the one answer of a state used after it moved on.
#pragma once

#include "bp/mpc/errors.hpp"
#include "bp/mpc/type_state.hpp"

#define BP_MPC_DEFAULT_MOVES(Class)                    \
  Class::Class(Class&&) noexcept = default;            \
  Class& Class::operator=(Class&&) noexcept = default; \
  Class::~Class() = default;

namespace bp::mpc::detail {

inline MpcError consumed() { return {MpcErrorKind::ConsumedState, {}, "this protocol state was already used"}; }

}  // namespace bp::mpc::detail
