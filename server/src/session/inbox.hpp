// A completed round's inbox as the messages of that round, in position (or seat) order.
#pragma once

#include <optional>
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

}  // namespace bp::server
