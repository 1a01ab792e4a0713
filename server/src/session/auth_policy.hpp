// Who may create sessions and join them: the dealer's own key, the operators' keys, and
// whether unsigned (anonymous) requests are accepted. Checks here are the signature checks;
// which key sits where is the session's business (session.cpp).
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bp/server/config.hpp"
#include "bp/wire/auth.hpp"
#include "bp/wire/codec.hpp"

namespace bp::server {

// A request refused: why, and whether it is for want of an admitted key (NotAllowed) or the
// request's own shape (None).
struct AuthRefusal {
  std::string reason;
  wire::RefusalKind kind = wire::RefusalKind::NotAllowed;
};

class AuthPolicy {
 public:
  // Loads the dealer key (or makes a fresh one) and parses the operator keys; throws
  // std::runtime_error naming the bad file or key.
  explicit AuthPolicy(const DealerConfig& config);

  const wire::Identity& dealer() const { return dealer_; }
  bool anonymous_allowed() const { return allow_anonymous_; }
  // SIGHUP: the operator keys and --allow-anonymous of a config parsed again. Every key is
  // read before any is used: on an error nothing changes and the text says why. (The
  // dealer's own key is not reloaded: a restart changes it.)
  std::optional<std::string> reload(const DealerConfig& config);

  // The refusal, or nullopt when the request may go ahead.
  std::optional<AuthRefusal> check_create(const wire::ChannelContext& channel,
                                          const wire::CreateSessionMsg& create) const;
  std::optional<AuthRefusal> check_manage(const wire::ChannelContext& channel,
                                          const wire::ManageSessionsMsg& manage) const;
  std::optional<AuthRefusal> check_join(const wire::ChannelContext& channel, const wire::JoinSessionMsg& join) const;

 private:
  // An operator's request: unsigned only in anonymous mode, else a configured key whose
  // signature over `statement` verifies. `what` names the request in the refusal.
  std::optional<AuthRefusal> check_operator(const std::optional<wire::KeySignature>& auth,
                                            const std::vector<uint8_t>& statement, const char* what) const;

  wire::Identity dealer_;
  // Read by every connection's thread, replaced by a reload.
  mutable std::mutex mutex_;
  std::vector<wire::PublicKey> operators_;
  std::atomic<bool> allow_anonymous_;
};

}  // namespace bp::server
