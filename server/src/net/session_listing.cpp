#include "net/session_listing.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "bp/json.hpp"
#include "net/json_bodies.hpp"

namespace bp::server {

namespace {

struct ListingQuery {
  std::string phase;  // empty: any
  uint64_t min_running_s = 0;
  size_t limit = kListingDefaultLimit;
  std::string after;  // the last id of the previous page
};

HttpAnswer bad_request(const std::string& why) { return {400, "application/json", error_json(why) + "\n"}; }

std::optional<uint64_t> number_of(std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Parameters are plain words and numbers, so nothing needs percent-decoding; anything else is
// refused by name rather than guessed at.
std::variant<ListingQuery, std::string> parse(std::string_view query) {
  ListingQuery out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (name == "phase") {
      // The phase names the record and `bp-party sessions` show.
      static const std::vector<std::string_view> kPhases = {"join",         "bit_commitments", "poly_commitments",
                                                            "proof_shares", "first_phase",     "second_phase"};
      if (std::find(kPhases.begin(), kPhases.end(), value) == kPhases.end())
        return "phase is one of join, bit_commitments, poly_commitments, proof_shares, first_phase, "
               "second_phase";
      out.phase = value;
    } else if (name == "min_running_s") {
      const auto n = number_of(value);
      if (!n) return std::string("min_running_s is a whole number of seconds");
      out.min_running_s = *n;
    } else if (name == "limit") {
      const auto n = number_of(value);
      if (!n || *n == 0 || *n > kListingMaxLimit)
        return "limit is a number from 1 to " + std::to_string(kListingMaxLimit);
      out.limit = *n;
    } else if (name == "after") {
      if (!wire::valid_session_id(std::string(value))) return std::string("after is a session id (32 lowercase hex)");
      out.after = value;
    } else {
      return "unknown parameter '" + std::string(name.substr(0, 64)) + "' (phase, min_running_s, limit, after)";
    }
  }
  return out;
}

}  // namespace

HttpAnswer session_listing(std::string_view query, const std::vector<SessionListing>& sessions) {
  auto parsed = parse(query);
  if (auto* why = std::get_if<std::string>(&parsed)) return bad_request(*why);
  const auto& q = std::get<ListingQuery>(parsed);
  std::string rows;
  size_t shown = 0;
  bool more = false;
  std::string last;
  for (const auto& s : sessions) {
    if (!q.after.empty() && s.summary.session_id <= q.after) continue;
    if (!q.phase.empty() && s.summary.phase != q.phase) continue;
    if (s.running_s < static_cast<double>(q.min_running_s)) continue;
    if (shown == q.limit) {
      more = true;
      break;
    }
    if (shown++ != 0) rows += ',';
    rows += JsonObject()
                .text("id", s.summary.session_id)
                .text("phase", s.summary.phase)
                .number("bits", static_cast<uint64_t>(s.summary.bits))
                .number("parties", static_cast<uint64_t>(s.summary.parties))
                .number("joined", static_cast<uint64_t>(s.summary.joined))
                .text("owner", s.owner)
                .number("running_s", s.running_s, 1)
                .text("replica", s.summary.replica)
                .str();
    last = s.summary.session_id;
  }
  // "next": the id to pass as ?after= for the next page; null on the last one.
  const std::string body =
      JsonObject().json("sessions", "[" + rows + "]").json("next", more ? "\"" + last + "\"" : "null").str();
  return {200, "application/json", body + "\n"};
}

}  // namespace bp::server
