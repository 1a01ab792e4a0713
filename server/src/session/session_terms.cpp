#include "session/session_terms.hpp"

#include <sodium.h>

#include "bp/mpc/session.hpp"

namespace bp::server {

std::vector<SeatShape> SessionTerms::seat_shapes() const {
  if (gadgets) {
    // One position per seat; its values are its item's commitments.
    std::vector<SeatShape> out;
    size_t value = 0;
    for (const auto& item : gadgets->items()) {
      out.push_back(SeatShape{out.size(), 1, value, item.commitments()});
      value += item.commitments();
    }
    return out;
  }
  // One value each unless stated: as many parties as values (a bounded one takes two positions).
  const size_t parties = !values_per_party.empty() ? values_per_party.size()
                         : !bounds.empty()         ? bounds.size()
                                                   : params.positions;
  std::vector<SeatShape> out(parties);
  size_t position = 0, value = 0;
  for (size_t j = 0; j < parties; ++j) {
    SeatShape& seat = out[j];
    seat.first_position = position;
    seat.first_value = value;
    seat.values = values_per_party.empty() ? 1 : values_per_party[j];
    seat.positions = bounds.empty() ? seat.values : bounded_positions(std::span(bounds).subspan(value, seat.values));
    position += seat.positions;
    value += seat.values;
  }
  return out;
}

std::span<const ValueBounds> SessionTerms::bounds_of(const SeatShape& seat) const {
  if (bounds.empty()) return {};
  return std::span(bounds).subspan(seat.first_value, seat.values);
}

SessionTerms SessionTerms::with_set(const std::vector<size_t>& present) const {
  const auto shapes = seat_shapes();
  SessionTerms fixed = *this;
  fixed.allowed.clear();
  fixed.values_per_party.clear();
  fixed.bounds.clear();
  fixed.listed_parties = shapes.size();
  fixed.not_joined.clear();
  fixed.not_joined_keys.clear();
  std::string items;
  size_t kept = 0;
  for (size_t j = 0; j < shapes.size(); ++j) {
    if (kept < present.size() && present[kept] == j) {
      ++kept;
      if (!allowed.empty()) fixed.allowed.push_back(allowed[j]);
      if (!values_per_party.empty()) fixed.values_per_party.push_back(values_per_party[j]);
      const auto seat_bounds = bounds_of(shapes[j]);
      fixed.bounds.insert(fixed.bounds.end(), seat_bounds.begin(), seat_bounds.end());
      if (gadgets) items += (items.empty() ? "" : ";") + gadgets->items()[j].text();
      continue;
    }
    fixed.not_joined.push_back(static_cast<uint32_t>(j));
    if (!allowed.empty()) fixed.not_joined_keys.push_back(allowed[j]);
  }
  if (gadgets) {
    // The items kept are a listed list's, so their list parses (and is canonical) as well.
    const auto user_label = mpc::read_gadget_session_label(params.label, id, gadgets->text());
    fixed.gadgets = GadgetList::parse(items).value();
    fixed.params = mpc::SessionParams{
        0, present.size(),
        mpc::gadget_session_label(id, fixed.gadgets->text(), user_label ? *user_label : std::string())};
    return fixed;
  }
  const auto label = mpc::read_session_transcript_label(params.label, id, params.bits, params.positions);
  size_t values = 0;
  for (size_t j : present) values += shapes[j].values;
  const size_t positions = fixed.bounds.empty() ? values : bounded_positions(fixed.bounds);
  fixed.params =
      mpc::SessionParams{params.bits, positions,
                         mpc::session_transcript_label(id, params.bits, positions,
                                                       label ? label->user_label : std::string(), fixed.bounds)};
  return fixed;
}

std::optional<SessionTerms> SessionTerms::successor(const std::vector<size_t>& remaining,
                                                    const std::string& next_id) const {
  SessionTerms next = with_set(remaining);
  std::optional<std::string> user;
  if (next.gadgets) {
    user = mpc::read_gadget_session_label(next.params.label, id, next.gadgets->text());
    if (user) next.params.label = mpc::gadget_session_label(next_id, next.gadgets->text(), *user + " after=" + id);
  } else if (auto label =
                 mpc::read_session_transcript_label(next.params.label, id, next.params.bits, next.params.positions)) {
    user = label->user_label;
    next.params.label = mpc::session_transcript_label(next_id, next.params.bits, next.params.positions,
                                                      *user + " after=" + id, next.bounds);
  }
  if (!user || next.params.label.size() > wire::kMaxTranscriptLabelBytes ||
      user->size() + 7 + id.size() > mpc::kMaxApplicationLabelBytes)
    return std::nullopt;
  next.id = next_id;
  next.follows = id;
  next.listed_parties = 0;  // a quorum session of its own, gathering the parties that remain
  next.not_joined.clear();
  next.not_joined_keys.clear();
  return next;
}

Result<size_t, std::string> positions_of(size_t bits, size_t parties, const std::vector<uint32_t>& values_per_party,
                                         const std::vector<ValueBounds>& bounds, size_t max_positions) {
  size_t values = values_per_party.empty() ? parties : 0;
  for (uint32_t k : values_per_party) values += k;
  if (!bounds.empty() && bounds.size() != values) return std::string("the bounds name one per value or none");
  if (!check_bounds(bounds, bits))
    return "bounds: each min at most its max, and max - min below 2^" + std::to_string(bits) +
           " (bits covers the widest: the least of 8, 16, 32, 64 that does is " +
           std::to_string(bits_covering(bounds) ? *bits_covering(bounds) : 64) + ")";
  const size_t positions = bounds.empty() ? values : bounded_positions(bounds);
  if (positions > max_positions)
    return std::to_string(values) + " values take " + std::to_string(positions) +
           " positions; this dealer holds at most " + std::to_string(max_positions) + " per session";
  return positions;
}

Result<GadgetList, std::string> gadgets_of(const std::string& text, size_t parties, size_t max_positions) {
  auto list = GadgetList::parse(text);
  if (!list) return "gadgets: " + list.error();
  const size_t items = list->items().size();
  if (items != parties)
    return "the gadget list names " + std::to_string(items) + " seats; the session has " + std::to_string(parties) +
           " parties";
  if (items > max_positions) return "this dealer holds at most " + std::to_string(max_positions) + " seats per session";
  if (auto over = mpc::gadget_list_over_limits(*list)) return *over;
  return std::move(*list);
}

wire::DealerCheckpoint first_checkpoint(const SessionTerms& terms) {
  wire::DealerCheckpoint c;
  c.bits = terms.params.bits;
  c.positions = terms.params.positions;
  c.transcript_label = terms.params.label;
  c.round_timeout_ms = static_cast<uint32_t>(terms.round_timeout.count());
  c.allowed_parties = terms.allowed;
  c.owner_key = terms.owner.operator_key;
  c.owner_address = terms.owner.address;
  randombytes_buf(c.padding_seed.data(), c.padding_seed.size());
  c.values_per_party = terms.values_per_party;
  c.bounds = terms.bounds;
  if (terms.gadgets) c.gadgets = terms.gadgets->text();
  c.seats.resize(terms.seat_shapes().size());
  c.min_parties = terms.min_parties;
  c.join_window_ms = static_cast<uint32_t>(terms.join_window.count());
  c.gadget_successors = terms.gadget_successors;
  return c;
}

namespace {

void quorum_of(const wire::DealerCheckpoint& c, SessionTerms& t) {
  t.min_parties = c.min_parties;
  t.join_window = std::chrono::milliseconds(c.join_window_ms);
  t.listed_parties = c.listed_parties;
  t.not_joined = c.not_joined;
  t.not_joined_keys = c.not_joined_keys;
  t.gadget_successors = c.gadget_successors;
}

// The session a successor's application label names after " after=", if it does.
std::string follows_of(std::string_view user) {
  constexpr std::string_view kAfter = " after=";
  if (user.size() < kAfter.size() + 32 || user.substr(user.size() - 32 - kAfter.size(), kAfter.size()) != kAfter)
    return {};
  const auto id = user.substr(user.size() - 32);
  return wire::valid_session_id(id) ? std::string(id) : std::string();
}

}  // namespace

std::optional<SessionTerms> terms_of(const std::string& id, const wire::DealerCheckpoint& c) {
  if (!c.gadgets.empty()) {
    // A gadget session's: its list, canonical, of one seat per position, and its label over both.
    auto list = GadgetList::parse(c.gadgets);
    const auto user = mpc::read_gadget_session_label(c.transcript_label, id, c.gadgets);
    if (!list || list->text() != c.gadgets || list->items().size() != c.positions || !user) return std::nullopt;
    SessionTerms t;
    t.id = id;
    t.params = mpc::SessionParams{0, c.positions, c.transcript_label};
    t.allowed = c.allowed_parties;
    t.round_timeout = std::chrono::milliseconds(c.round_timeout_ms);
    t.owner = SessionOwner{c.owner_key, c.owner_address};
    t.gadgets = std::move(*list);
    quorum_of(c, t);
    if (t.min_parties != 0) t.follows = follows_of(*user);
    return t;
  }
  // The label must be one of this session's, on these terms (mpc's one reader of labels):
  // a checkpoint stored under another session's row (a damaged record) is refused here.
  const auto label = mpc::read_session_transcript_label(c.transcript_label, id, c.bits, c.positions);
  if (!label || label->bounds != c.bounds) return std::nullopt;
  std::string follows = follows_of(label->user_label);
  SessionTerms t;
  t.id = id;
  t.params = mpc::SessionParams{c.bits, c.positions, c.transcript_label};
  t.allowed = c.allowed_parties;
  t.round_timeout = std::chrono::milliseconds(c.round_timeout_ms);
  t.owner = SessionOwner{c.owner_key, c.owner_address};
  t.values_per_party = c.values_per_party;
  t.bounds = c.bounds;
  quorum_of(c, t);
  if (t.min_parties != 0) t.follows = std::move(follows);
  return t;
}

}  // namespace bp::server
