// Dealer URLs and the one-line form of an error.
#include <string>

#include "bp/client/party_client.hpp"
#include "bp/json.hpp"

namespace bp::client {

std::optional<Endpoint> parse_endpoint(std::string_view url) {
  bool tls = false;
  if (url.substr(0, 6) == "wss://") {
    tls = true;
    url.remove_prefix(6);
  } else if (url.substr(0, 5) == "ws://") {
    url.remove_prefix(5);
  } else {
    return std::nullopt;
  }
  if (!url.empty() && url.back() == '/') url.remove_suffix(1);
  std::string prefix;
  if (const auto slash = url.find('/'); slash != std::string_view::npos) {
    prefix = std::string(url.substr(slash));
    url = url.substr(0, slash);
    if (prefix.find_first_of(" ?#") != std::string::npos) return std::nullopt;
  }
  const auto colon = url.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const auto port_text = url.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  const unsigned long port = std::stoul(std::string(port_text));
  if (port == 0 || port > 65535) return std::nullopt;
  return Endpoint{std::string(url.substr(0, colon)), static_cast<uint16_t>(port), tls, prefix};
}

std::string describe(const ClientError& e) {
  static constexpr const char* kNames[] = {"transport",        "timeout",         "protocol",    "abort",
                                           "malicious dealer", "refused",         "unavailable", "internal",
                                           "not allowed",      "no such session", "over limit",  "rate limited"};
  std::string out = std::string(kNames[static_cast<int>(e.kind)]) + ": " + e.detail;
  // An abort names its culprits, even none; a refusal that asks us to come back blames nobody.
  if ((e.kind == ClientErrorKind::Aborted && e.retry_after_ms == 0) || !e.blamed.empty()) {
    out += " blamed=[";
    out += comma_separated(e.blamed);
    out += "]";
  }
  if (e.kind == ClientErrorKind::RateLimited && e.retry_after_ms != 0)
    out += " (retry after " + std::to_string(e.retry_after_ms) + " ms)";
  return out;
}

}  // namespace bp::client
