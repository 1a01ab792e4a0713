#include "bp/server/config.hpp"
#include "bp/wire/tls_profile.hpp"

#include <libpq-fe.h>

#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

namespace bp::server {
namespace {

using Setter = std::function<bool(DealerConfig&, const std::string&)>;

bool to_u64(const std::string& s, uint64_t max, uint64_t& out) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoull(s);
  return out <= max;
}

// "30d", "12h", "15m", "90s" or a plain number of seconds; 0 means never.
bool parse_duration_s(const std::string& v, uint64_t& out) {
  if (v.empty()) return false;
  uint64_t unit = 1;
  std::string digits = v;
  switch (v.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    default: unit = 0;
  }
  if (unit != 0)
    digits.pop_back();
  else
    unit = 1;
  uint64_t n;
  if (!to_u64(digits, 100ull * 365 * 86400 / unit, n)) return false;
  out = n * unit;
  return true;
}

template <class T>
Setter number(T DealerConfig::*field, uint64_t max) {
  return [field, max](DealerConfig& c, const std::string& v) {
    uint64_t x;
    if (!to_u64(v, max, x)) return false;
    c.*field = static_cast<T>(x);
    return true;
  };
}

const std::map<std::string, std::pair<Setter, const char*>>& options() {
  static const std::map<std::string, std::pair<Setter, const char*>> kOptions = {
      {"listen",
       {[](DealerConfig& c, const std::string& v) {
          const auto colon = v.rfind(':');
          uint64_t port;
          if (colon == std::string::npos || colon == 0 || !to_u64(v.substr(colon + 1), 65535, port)) return false;
          // An IP address, IPv6 in brackets or bare ([::1]:8700, ::1:8700): a host name
          // would only fail later, at bind, as an exception instead of this message.
          std::string host = v.substr(0, colon);
          if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
          boost::system::error_code ec;
          boost::asio::ip::make_address(host, ec);
          if (ec) return false;
          c.host = host;
          c.port = static_cast<uint16_t>(port);
          return true;
        },
        "IP:PORT to listen on ([IPv6]:PORT; port 0 picks a free one); default 127.0.0.1:8700"}},
      {"threads", {number(&DealerConfig::threads, 1024), "worker threads; default one per core"}},
      {"store",
       {[](DealerConfig& c, const std::string& v) {
          c.store = v;
          return !v.empty();
        },
        "the outcome record: a SQLite file, or postgresql://... (libpq URL or key=value string, "
        "multi-host allowed) shared by every replica; default memory only"}},
      {"db",
       {[](DealerConfig& c, const std::string& v) {
          c.store = v;
          return !v.empty();
        },
        "the same as --store"}},
      {"store-password-file",
       {[](DealerConfig& c, const std::string& v) {
          c.store_password_file = v;
          return !v.empty();
        },
        "libpq password file (host:port:db:user:password lines, mode 0600) for --store"}},
      {"replica-name",
       {[](DealerConfig& c, const std::string& v) {
          c.replica_name = v;
          return !v.empty() && v.size() <= 128 &&
                 v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:") ==
                     std::string::npos;
        },
        "this dealer's name in a shared record, unique among the replicas (a pod name); "
        "default HOSTNAME:PORT"}},
      {"store-connections",
       {number(&DealerConfig::store_connections, 64),
        "database connections, each on its own thread (PostgreSQL); default 2"}},
      {"store-queue",
       {number(&DealerConfig::store_queue, 100000),
        "record calls that may wait for a connection; more are refused as busy; default 256"}},
      {"store-timeout-ms",
       {number(&DealerConfig::store_timeout_ms, 600000),
        "time limit of every record call, waiting included; default 5000"}},
      {"heartbeat-ms",
       {number(&DealerConfig::heartbeat_ms, 600000),
        "how often this replica tells the record it is alive; default 2000"}},
      {"takeover-after-ms",
       {number(&DealerConfig::takeover_after_ms, 600000),
        "a replica whose heartbeat is this old may have its sessions taken over by the replica "
        "their parties reach; default 6000"}},
      {"replica-ttl-s",
       {number(&DealerConfig::replica_ttl_s, 86400),
        "a session no replica has run for this long (its replica silent, or it was handed over "
        "and nobody took it) is closed in the record as aborted; default 60"}},
      {"max-frame-bytes",
       {number(&DealerConfig::max_frame_bytes, 16 << 20), "largest WebSocket message; default 65536"}},
      {"max-sessions", {number(&DealerConfig::max_sessions, 1000000), "running sessions at once; default 1000"}},
      {"max-connections",
       {number(&DealerConfig::max_connections, 1000000),
        "open connections (lowered at start if the fd limit cannot hold them); default 4096"}},
      {"max-connections-per-ip",
       {number(&DealerConfig::max_connections_per_ip, 1000000), "open connections from one address; default 64"}},
      {"request-timeout-ms",
       {number(&DealerConfig::request_timeout_ms, 600000),
        "time a WebSocket has after the upgrade (and after each operator request) to send "
        "its next request; default 10000"}},
      {"max-sessions-per-operator",
       {number(&DealerConfig::max_sessions_per_operator, 1000000),
        "open sessions one operator key may hold; default 200"}},
      {"max-sessions-per-ip",
       {number(&DealerConfig::max_sessions_per_ip, 1000000), "open sessions created from one address; default 200"}},
      {"max-anonymous-sessions-per-ip",
       {number(&DealerConfig::max_anonymous_sessions_per_ip, 1000000),
        "open unsigned sessions created from one address; default 20"}},
      {"outcome-retention",
       {[](DealerConfig& c, const std::string& v) { return parse_duration_s(v, c.outcome_retention_s); },
        "delete outcome records older than this (N, Ns, Nm, Nh or Nd; 0 keeps them); "
        "default 30d"}},
      {"outcome-cache",
       {number(&DealerConfig::outcome_cache, 10000000),
        "outcomes kept in memory without --store (the only copy); default 4096"}},
      {"verify-threads",
       {number(&DealerConfig::verify_threads, 256),
        "threads for POST /v1/verify, apart from the session threads; default 1"}},
      {"verify-queue",
       {number(&DealerConfig::verify_queue, 100000),
        "verification requests that may wait; more are answered 503; default 8"}},
      {"verify-per-ip-per-s",
       {number(&DealerConfig::verify_per_ip_per_s, 1000000),
        "verification requests one address may make per second (429 beyond); default 10"}},
      {"max-http-body-bytes",
       {number(&DealerConfig::max_http_body_bytes, 64 << 20),
        "largest HTTP request body (413 beyond); default 1048576"}},
      {"max-parties", {number(&DealerConfig::max_parties, 64), "parties per session, at most 64; default 64"}},
      {"handshake-timeout-ms",
       {number(&DealerConfig::handshake_timeout_ms, 600000),
        "time a new connection has to send its request or upgrade; default 5000"}},
      {"idle-timeout-ms",
       {number(&DealerConfig::idle_timeout_ms, 3600000),
        "drop a WebSocket peer that answers no ping for this long; default 60000"}},
      {"max-connects-per-ip-per-s",
       {number(&DealerConfig::max_connects_per_ip_per_s, 1000000),
        "new connections one address may open per second; default 100"}},
      {"round-timeout-ms",
       {number(&DealerConfig::default_round_timeout_ms, 3600000), "default deadline of each round; default 30000"}},
      {"max-round-timeout-ms",
       {number(&DealerConfig::max_round_timeout_ms, 3600000),
        "largest deadline a session may ask for; default 600000"}},
      {"reconnect-grace-ms",
       {number(&DealerConfig::reconnect_grace_ms, 3600000),
        "how long a dropped party may take to resume its seat; default 5000"}},
      {"shutdown-grace-ms",
       {number(&DealerConfig::shutdown_grace_ms, 3600000),
        "on SIGTERM, how long running sessions may finish; default 10000"}},
      {"tls-cert",
       {[](DealerConfig& c, const std::string& v) {
          c.tls_cert = v;
          return !v.empty();
        },
        "PEM certificate chain: serve wss:// and https:// (needs --tls-key)"}},
      {"tls-key",
       {[](DealerConfig& c, const std::string& v) {
          c.tls_key = v;
          return !v.empty();
        },
        "PEM private key of --tls-cert (both are read again on SIGHUP)"}},
      {"tls-min-version",
       {[](DealerConfig& c, const std::string& v) {
          c.tls_min_version = v;
          return wire::tls_floor_from_name(v).has_value();
        },
        "the lowest TLS version offered, 1.2 or 1.3; default 1.2 (ECDHE with AEAD ciphers only)"}},
      {"dealer-key",
       {[](DealerConfig& c, const std::string& v) {
          c.dealer_key_file = v;
          return !v.empty();
        },
        "Ed25519 key file (bp-party keygen) that signs every result; default a new key per run"}},
      {"operator-key",
       {[](DealerConfig& c, const std::string& v) {
          c.operator_keys.clear();
          for (size_t start = 0; start <= v.size();) {
            const size_t comma = std::min(v.find(',', start), v.size());
            if (comma == start) return false;
            c.operator_keys.push_back(v.substr(start, comma - start));
            start = comma + 1;
          }
          return true;
        },
        "public keys (hex or .pub files, comma-separated) allowed to create sessions"}},
      {"allow-anonymous",
       {[](DealerConfig& c, const std::string& v) {
          c.allow_anonymous = v == "true";
          return v == "true" || v == "false";
        },
        "accept unsigned sessions and joins (a flag; loopback addresses only)"}},
      {"log-level",
       {[](DealerConfig& c, const std::string& v) {
          c.log_level = v;
          return v == "trace" || v == "debug" || v == "info" || v == "warn" || v == "error" || v == "off";
        },
        "trace, debug, info, warn, error or off; default info"}},
      {"log-format",
       {[](DealerConfig& c, const std::string& v) {
          c.log_format = v;
          return v == "text" || v == "json";
        },
        "text (default) or json: one JSON object per line with time, level, message and fields"}},
  };
  return kOptions;
}

bool apply(DealerConfig& c, const std::string& key, const std::string& value, std::string& message) {
  const auto it = options().find(key);
  if (it == options().end()) {
    message = "unknown option '" + key + "'";
    return false;
  }
  if (!it->second.first(c, value)) {
    message = "bad value '" + value + "' for " + key;
    return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// libpq's own parser decides (a URL's user:password@, ?password=, or password=...).
bool conninfo_has_password(const std::string& conninfo) {
  if (conninfo.find("://") == std::string::npos && conninfo.find('=') == std::string::npos) return false;  // a file
  char* err = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &err);
  if (err) PQfreemem(err);
  if (!options) return false;  // malformed: the connection will say why
  bool found = false;
  for (auto* o = options; o->keyword; ++o)
    if (std::string(o->keyword) == "password" && o->val && *o->val) found = true;
  PQconninfoFree(options);
  return found;
}

bool is_loopback(const std::string& host) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

}  // namespace

std::string env_name(const std::string& option) {
  std::string out = "BP_DEALER_";
  for (char c : option) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string dealer_usage() {
  std::string out =
      "usage: bp-dealer [--config FILE] [--OPTION VALUE ...]\n"
      "Runs Bulletproofs aggregation sessions over WebSockets; HTTP GET /healthz, /metrics and\n"
      "/v1/sessions/ID on the same port. Flags override environment variables, which override\n"
      "the config file, whose lines are 'option = value' (# starts a comment). Each option's\n"
      "variable is BP_DEALER_ and its name in capitals with '_' for '-' (BP_DEALER_LISTEN,\n"
      "BP_DEALER_OPERATOR_KEY, ...); BP_DEALER_CONFIG names the config file.\n\noptions:\n"
      "  --config FILE  read options from FILE first\n";
  for (const auto& [name, entry] : options()) out += "  --" + name + "  " + entry.second + "\n";
  return out;
}

ConfigOutcome parse_config_text(const std::string& text, const std::string& source_name, DealerConfig base) {
  ConfigOutcome out;
  out.config = std::move(base);
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      out.message = source_name + ":" + std::to_string(number) + ": expected 'option = value'";
      return out;
    }
    if (!apply(out.config, trim(line.substr(0, eq)), trim(line.substr(eq + 1)), out.message)) {
      out.message = source_name + ":" + std::to_string(number) + ": " + out.message;
      return out;
    }
  }
  out.ok = true;
  return out;
}

ConfigOutcome parse_dealer_config(int argc, char** argv) {
  ConfigOutcome out;
  std::map<std::string, std::string> flags;
  std::string config_file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      out.message = dealer_usage();
      return out;
    }
    if (arg.rfind("--", 0) != 0 || (i + 1 >= argc && arg != "--allow-anonymous")) {
      out.message = "expected --option value, got '" + arg + "'";
      return out;
    }
    if (arg == "--allow-anonymous") {  // the one flag without a value
      flags["allow-anonymous"] = "true";
      continue;
    }
    const std::string key = arg.substr(2), value = argv[++i];
    if (key == "config")
      config_file = value;
    else
      flags[key] = value;
  }
  if (config_file.empty())
    if (const char* from_env = std::getenv("BP_DEALER_CONFIG")) config_file = from_env;
  if (!config_file.empty()) {
    std::ifstream in(config_file);
    if (!in) {
      out.message = "cannot read config file " + config_file;
      return out;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto from_file = parse_config_text(text.str(), config_file, out.config);
    if (!from_file.ok) return from_file;
    out.config = from_file.config;
  }
  // Environment (containers): BP_DEALER_MAX_SESSIONS=7 is --max-sessions 7; flags win.
  for (const auto& [name, entry] : options()) {
    if (flags.count(name) != 0) continue;
    if (const char* value = std::getenv(env_name(name).c_str())) {
      if (!apply(out.config, name, value, out.message)) {
        out.message = env_name(name) + ": " + out.message;
        return out;
      }
    }
  }
  for (const auto& [key, value] : flags)
    if (!apply(out.config, key, value, out.message)) return out;
  for (const char* key : {"store", "db"}) {
    if (flags.count(key) != 0 && conninfo_has_password(flags[key])) {
      out.message = std::string("--") + key +
                    " carries a password, which every user of this machine can read (ps): put it in "
                    "--store-password-file, PGPASSFILE or the config file";
      return out;
    }
  }
  if (out.config.heartbeat_ms == 0 || out.config.takeover_after_ms < 2ull * out.config.heartbeat_ms) {
    out.message =
        "--takeover-after-ms must outlast two heartbeats (--heartbeat-ms), or live replicas would lose their "
        "sessions";
    return out;
  }
  if (out.config.replica_ttl_s * 1000ull <= out.config.takeover_after_ms) {
    out.message =
        "--replica-ttl-s must outlast --takeover-after-ms, or sessions would be closed before anyone could "
        "take them over";
    return out;
  }
  if (out.config.tls_cert.empty() != out.config.tls_key.empty()) {
    out.message = "--tls-cert and --tls-key go together";
    return out;
  }
  if (!out.config.allow_anonymous && out.config.operator_keys.empty()) {
    out.message = "no --operator-key: nobody could create a session (or run a loopback demo with --allow-anonymous)";
    return out;
  }
  if (out.config.allow_anonymous && !is_loopback(out.config.host)) {
    out.message = "--allow-anonymous is refused on " + out.config.host + ": only on a loopback address";
    return out;
  }
  if (out.config.threads == 0) out.config.threads = std::max(1u, std::thread::hardware_concurrency());
  out.ok = true;
  return out;
}

}  // namespace bp::server
