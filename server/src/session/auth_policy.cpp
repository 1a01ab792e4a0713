#include "session/auth_policy.hpp"

#include "observability/log.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace bp::server {

namespace {
// Every operator key of the config, or the text naming the first bad one.
Result<std::vector<wire::PublicKey>, std::string> operator_keys_of(const DealerConfig& config) {
  std::vector<wire::PublicKey> keys;
  for (const auto& text : config.operator_keys) {
    auto key = wire::parse_public_key(text);
    if (!key) return "operator key '" + text + "' is neither 64 hex characters nor a readable .pub file";
    keys.push_back(*key);
  }
  return keys;
}

wire::Identity load_or_generate(const std::string& path) {
  if (path.empty()) {
    auto fresh = wire::Identity::generate();
    log::warn("no --dealer-key: results are signed with a new key for this run only",
              {{"dealer_key", wire::public_key_hex(fresh.public_key())}});
    return fresh;
  }
  auto loaded = wire::Identity::load(path);
  if (!loaded) throw std::runtime_error(loaded.error());
  return std::move(*loaded);
}
}  // namespace

AuthPolicy::AuthPolicy(const DealerConfig& config)
    : dealer_(load_or_generate(config.dealer_key_file)), allow_anonymous_(config.allow_anonymous) {
  auto keys = operator_keys_of(config);
  if (!keys) throw std::runtime_error(keys.error());
  operators_ = std::move(*keys);
  log::info("keys", {{"dealer_key", wire::public_key_hex(dealer_.public_key())},
                     {"operator_keys", operators_.size()},
                     {"anonymous_sessions", allow_anonymous_ ? "allowed (loopback)" : "refused"}});
}

std::optional<std::string> AuthPolicy::reload(const DealerConfig& config) {
  auto keys = operator_keys_of(config);
  if (!keys) return keys.error();
  {
    std::lock_guard lock(mutex_);
    operators_ = std::move(*keys);
  }
  allow_anonymous_ = config.allow_anonymous;
  return std::nullopt;
}

std::optional<AuthRefusal> AuthPolicy::check_operator(const std::optional<wire::KeySignature>& auth,
                                                      const std::vector<uint8_t>& statement, const char* what) const {
  if (!auth) {
    if (!allow_anonymous_) return AuthRefusal{std::string(what) + " needs an operator's signature"};
    return std::nullopt;
  }
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    known = std::find(operators_.begin(), operators_.end(), auth->key) != operators_.end();
  }
  if (!known) return AuthRefusal{"unknown operator key " + wire::public_key_hex(auth->key)};
  if (!wire::verify_signature(auth->key, statement, auth->signature))
    return AuthRefusal{"the operator's signature does not verify for this connection"};
  return std::nullopt;
}

std::optional<AuthRefusal> AuthPolicy::check_create(const wire::ChannelContext& channel,
                                                    const wire::CreateSessionMsg& create) const {
  const auto key = create.operator_auth ? create.operator_auth->key : wire::PublicKey{};
  if (auto why =
          check_operator(create.operator_auth, wire::create_statement(channel, create, key), "creating a session"))
    return why;
  if (!create.operator_auth) return std::nullopt;
  // The request's own shape, not a key's admission.
  if (create.allowed_parties.empty() && !allow_anonymous_)
    return AuthRefusal{"a session needs the parties' keys", wire::RefusalKind::None};
  const std::set<wire::PublicKey> distinct(create.allowed_parties.begin(), create.allowed_parties.end());
  if (distinct.size() != create.allowed_parties.size())
    return AuthRefusal{"a party key appears twice in the allow-list", wire::RefusalKind::None};
  return std::nullopt;
}

std::optional<AuthRefusal> AuthPolicy::check_manage(const wire::ChannelContext& channel,
                                                    const wire::ManageSessionsMsg& manage) const {
  const auto key = manage.operator_auth ? manage.operator_auth->key : wire::PublicKey{};
  return check_operator(manage.operator_auth, wire::manage_statement(channel, manage, key), "managing sessions");
}

std::optional<AuthRefusal> AuthPolicy::check_join(const wire::ChannelContext& channel,
                                                  const wire::JoinSessionMsg& join) const {
  if (!join.party_auth) return std::nullopt;  // the session decides whether it takes anonymous parties
  const auto& auth = *join.party_auth;
  if (!wire::verify_signature(auth.key, wire::join_statement(channel, join, auth.key), auth.signature))
    return AuthRefusal{"the join signature does not verify for this connection"};
  return std::nullopt;
}

}  // namespace bp::server
