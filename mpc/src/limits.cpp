#include "bp/mpc/limits.hpp"

namespace bp::mpc {

namespace {
// An item as an error names it: a member's set can run to thousands of characters.
std::string item_name(const GadgetItem& item) {
  std::string text = item.text();
  if (text.size() > 48) text = text.substr(0, 40) + "...";
  return text;
}
}  // namespace

std::optional<std::string> gadget_list_over_limits(const GadgetList& list) {
  const auto n = [](size_t v) { return std::to_string(v); };
  const size_t items = list.items().size();
  if (items == 0 || items > kMaxPositions)
    return "the list names " + n(items) + " seats; a gadget session takes 1 to " + n(kMaxPositions);
  const std::string text = list.text();
  if (text.size() > kMaxGadgetListBytes)
    return "the list is " + n(text.size()) + " bytes; a gadget session's list is at most " + n(kMaxGadgetListBytes);
  if (list.commitments() > kMaxSessionCommitments)
    return "the list takes " + n(list.commitments()) + " commitments; a gadget session takes at most " +
           n(kMaxSessionCommitments);
  if (list.multipliers() > kMaxSessionMultipliers)
    return "the list takes " + n(list.multipliers()) + " multipliers; a gadget session takes at most " +
           n(kMaxSessionMultipliers);
  for (size_t j = 0; j < items; ++j)
    if (const auto& item = list.items()[j]; item.multipliers() > kMaxSeatMultipliers)
      return "seat " + n(j) + " (" + item_name(item) + ") takes " + n(item.multipliers()) +
             " multipliers; a seat takes at most " + n(kMaxSeatMultipliers);
  return std::nullopt;
}

}  // namespace bp::mpc
