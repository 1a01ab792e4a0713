// A completed round's inbox as the messages of that round, in position (or seat) order, and
// a range round's items in the one encoding a resumed party's repeat is compared in.
#pragma once

#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "bp/wire/codec.hpp"

namespace bp::server {

template <class T>
std::vector<T> collect(std::vector<std::optional<wire::Message>>& inbox) {
  std::vector<T> out;
  out.reserve(inbox.size());
  for (auto& m : inbox) out.push_back(std::get<T>(std::move(*m)));
  return out;
}

// The items of a range round in one canonical encoding, whichever form they came in (one
// message per position, or a 1.4 party's list): the session compares a resumed party's
// repeat with what its kind accepted, both encoded so.
template <class Item>
std::vector<uint8_t> canonical(const std::vector<Item>& items) {
  if constexpr (std::is_same_v<Item, BitCommitment>) return wire::encode(wire::BitCommitments{items});
  if constexpr (std::is_same_v<Item, PolyCommitment>) return wire::encode(wire::PolyCommitments{items});
  if constexpr (std::is_same_v<Item, ProofShare>) return wire::encode(wire::ProofShares{items});
}
template <class Item>
std::vector<uint8_t> canonical(const std::vector<wire::Message>& items) {
  std::vector<Item> typed;
  for (const auto& m : items) typed.push_back(std::get<Item>(m));
  return canonical(typed);
}

}  // namespace bp::server
