#include "bp/server/config.hpp"

#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "bp/wire/tls_profile.hpp"
#include "bp/wire/version.hpp"
#include "record/postgres_connection.hpp"

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

// One option: how a value sets it, how its current value reads (its default, in --help),
// what it is for. A default is said in DealerConfig alone; --help and the documentation's
// tables (checked by tests/docs/check_docs.py) read it from there.
struct Option {
  Setter set;
  std::function<std::string(const DealerConfig&)> show;  // "" when it has no default worth saying
  const char* help;
  const char* alias_of = nullptr;  // an old spelling, kept working
};

template <class T>
Option number(T DealerConfig::*field, uint64_t max, const char* help) {
  return {[field, max](DealerConfig& c, const std::string& v) {
            uint64_t x;
            if (!to_u64(v, max, x)) return false;
            c.*field = static_cast<T>(x);
            return true;
          },
          [field](const DealerConfig& c) { return std::to_string(c.*field); }, help};
}

// A path, URL or name: any nonempty value.
Option text(std::string DealerConfig::*field, const char* help, std::string shown_when_empty = "") {
  return {[field](DealerConfig& c, const std::string& v) {
            c.*field = v;
            return !v.empty();
          },
          [field, shown_when_empty](const DealerConfig& c) { return (c.*field).empty() ? shown_when_empty : c.*field; },
          help};
}

// One of a few words.
Option choice(std::string DealerConfig::*field, std::vector<std::string> words, const char* help) {
  return {[field, words](DealerConfig& c, const std::string& v) {
            c.*field = v;
            return std::find(words.begin(), words.end(), v) != words.end();
          },
          [field](const DealerConfig& c) { return c.*field; }, help};
}

Option alias(const char* of) { return {{}, {}, "", of}; }

std::string show_duration(uint64_t seconds) {
  if (seconds != 0 && seconds % 86400 == 0) return std::to_string(seconds / 86400) + "d";
  if (seconds != 0 && seconds % 3600 == 0) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds) + "s";
}

// IP:PORT, [IPv6]:PORT or a bare IPv6 address with its port (::1:8700). An IP address only:
// a host name would fail later, at bind, as an exception instead of this message.
bool parse_address(const std::string& v, std::string& host_out, uint16_t& port_out) {
  const auto colon = v.rfind(':');
  uint64_t port;
  if (colon == std::string::npos || colon == 0 || !to_u64(v.substr(colon + 1), 65535, port)) return false;
  std::string host = v.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  if (ec) return false;
  host_out = host;
  port_out = static_cast<uint16_t>(port);
  return true;
}

const std::map<std::string, Option>& options() {
  static const std::map<std::string, Option> kOptions = {
      {"listen",
       {[](DealerConfig& c, const std::string& v) { return parse_address(v, c.host, c.port); },
        [](const DealerConfig& c) { return c.host + ":" + std::to_string(c.port); },
        "IP:PORT to listen on ([IPv6]:PORT; port 0 picks a free one)"}},
      {"metrics-listen",
       {[](DealerConfig& c, const std::string& v) { return parse_address(v, c.metrics_host, c.metrics_port); },
        [](const DealerConfig& c) {
          return c.metrics_host.empty() ? std::string() : c.metrics_host + ":" + std::to_string(c.metrics_port);
        },
        "IP:PORT serving /metrics, /healthz, /readyz, /v1/version, the session listing GET /v1/sessions and POST "
        "/v1/reload (as SIGHUP), apart "
        "from the parties' port (plain HTTP: an address only operators reach); default none"}},
      {"threads",
       {number(&DealerConfig::threads, 1024, "worker threads; 0: one per core").set,
        [](const DealerConfig& c) { return c.threads == 0 ? std::string("one per core") : std::to_string(c.threads); },
        "worker threads"}},
      {"record", text(&DealerConfig::record,
                      "the record: a SQLite file, or postgresql://... (libpq URL or key=value string, multi-host "
                      "allowed) shared by every replica",
                      "memory only")},
      {"store", alias("record")},
      {"db", alias("record")},
      {"metrics-token-file",
       text(&DealerConfig::metrics_token_file,
            "a file (mode 0600) holding the token every request to --metrics-listen must carry as 'Authorization: "
            "Bearer TOKEN' (401 otherwise); default none: that port's network is its only guard")},
      {"record-password-file", text(&DealerConfig::record_password_file,
                                    "libpq password file (host:port:db:user:password lines, mode 0600) for --record")},
      {"store-password-file", alias("record-password-file")},
      {"replica-name",
       {[](DealerConfig& c, const std::string& v) {
          c.replica_name = v;
          return !v.empty() && v.size() <= 128 &&
                 v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:") ==
                     std::string::npos;
        },
        [](const DealerConfig& c) { return c.replica_name.empty() ? std::string("HOSTNAME:PORT") : c.replica_name; },
        "this dealer's name in a shared record, unique among the replicas (a pod name)"}},
      {"record-connections",
       number(&DealerConfig::record_connections, 64, "database connections, each on its own thread (PostgreSQL)")},
      {"store-connections", alias("record-connections")},
      {"record-queue", number(&DealerConfig::record_queue, 100000,
                              "record calls that may wait for a connection; more are refused as busy")},
      {"store-queue", alias("record-queue")},
      {"record-timeout-ms", number(&DealerConfig::record_timeout_ms, 600000,
                                   "time limit of every record call, waiting included; a running session's write "
                                   "is tried again for as long")},
      {"store-timeout-ms", alias("record-timeout-ms")},
      {"heartbeat-ms",
       number(&DealerConfig::heartbeat_ms, 600000, "how often this replica tells the record it is alive")},
      {"takeover-after-ms", number(&DealerConfig::takeover_after_ms, 600000,
                                   "a replica whose heartbeat is this old may have its sessions taken over by the "
                                   "replica their parties reach")},
      {"replica-ttl-s", number(&DealerConfig::replica_ttl_s, 86400,
                               "a session no replica has run for this long (its replica silent, or handed over and "
                               "not taken) is closed in the record as aborted")},
      {"max-frame-bytes", number(&DealerConfig::max_frame_bytes, 16 << 20, "largest WebSocket message")},
      {"max-sessions", number(&DealerConfig::max_sessions, 1000000, "running sessions at once")},
      {"max-connections", number(&DealerConfig::max_connections, 1000000,
                                 "open connections (lowered at start if the fd limit cannot hold them)")},
      {"max-connections-per-ip",
       number(&DealerConfig::max_connections_per_ip, 1000000, "open connections from one address")},
      {"request-timeout-ms", number(&DealerConfig::request_timeout_ms, 600000,
                                    "time a WebSocket has after the upgrade (and after each operator request) to send "
                                    "its next request")},
      {"max-sessions-per-operator",
       number(&DealerConfig::max_sessions_per_operator, 1000000, "open sessions one operator key may hold")},
      {"max-sessions-per-ip",
       number(&DealerConfig::max_sessions_per_ip, 1000000, "open sessions created from one address")},
      {"max-anonymous-sessions-per-ip", number(&DealerConfig::max_anonymous_sessions_per_ip, 1000000,
                                               "open unsigned sessions created from one address")},
      {"outcome-retention",
       {[](DealerConfig& c, const std::string& v) { return parse_duration_s(v, c.outcome_retention_s); },
        [](const DealerConfig& c) { return show_duration(c.outcome_retention_s); },
        "delete outcome records older than this (N, Ns, Nm, Nh or Nd; 0 keeps them)"}},
      {"outcome-cache",
       number(&DealerConfig::outcome_cache, 10000000, "outcomes kept in memory without --record (the only copy)")},
      {"verify-threads",
       number(&DealerConfig::verify_threads, 256, "threads for POST /v1/verify, apart from the session threads")},
      {"verify-queue",
       number(&DealerConfig::verify_queue, 100000, "verification requests that may wait; more are answered 503")},
      {"verify-per-ip-per-s", number(&DealerConfig::verify_per_ip_per_s, 1000000,
                                     "verification requests one address may make per second (429 beyond)")},
      {"max-http-body-bytes",
       number(&DealerConfig::max_http_body_bytes, 64 << 20, "largest HTTP request body (413 beyond)")},
      {"max-parties", number(&DealerConfig::max_parties, 256, "parties per session, at most 256")},
      {"max-positions",
       number(&DealerConfig::max_positions, 256,
              "positions per session (values, two per bounded one), at most 256; tables grow with it")},
      {"handshake-timeout-ms",
       number(&DealerConfig::handshake_timeout_ms, 600000, "time a new connection has to send its request or upgrade")},
      {"idle-timeout-ms", number(&DealerConfig::idle_timeout_ms, 3600000,
                                 "drop a WebSocket peer that answers no ping for this long (it is pinged at half)")},
      {"max-connects-per-ip-per-s",
       number(&DealerConfig::max_connects_per_ip_per_s, 1000000, "new connections one address may open per second")},
      {"round-timeout-ms",
       number(&DealerConfig::default_round_timeout_ms, 3600000, "deadline of each round, unless a session asks")},
      {"max-round-timeout-ms",
       number(&DealerConfig::max_round_timeout_ms, 3600000, "largest deadline a session may ask for")},
      {"reconnect-grace-ms",
       number(&DealerConfig::reconnect_grace_ms, 3600000, "how long a dropped party may take to resume its seat")},
      {"shutdown-grace-ms", number(&DealerConfig::shutdown_grace_ms, 3600000,
                                   "on SIGTERM, how long handing sessions over (or, in memory, finishing them) may "
                                   "take")},
      {"tls-cert", text(&DealerConfig::tls_cert, "PEM certificate chain: serve wss:// and https:// (needs --tls-key)")},
      {"tls-key", text(&DealerConfig::tls_key, "PEM private key of --tls-cert (both are read again on SIGHUP)")},
      {"tls-min-version",
       {[](DealerConfig& c, const std::string& v) {
          c.tls_min_version = v;
          return wire::tls_floor_from_name(v).has_value();
        },
        [](const DealerConfig& c) { return c.tls_min_version; },
        "the lowest TLS version offered, 1.2 or 1.3 (ECDHE with AEAD ciphers only)"}},
      {"dealer-key", text(&DealerConfig::dealer_key_file,
                          "Ed25519 key file (bp-party keygen) that signs every result; the same on every replica",
                          "a new key per run")},
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
        [](const DealerConfig&) { return std::string(); },
        "public keys (hex or .pub files, comma-separated) allowed to create sessions"}},
      {"allow-anonymous",
       {[](DealerConfig& c, const std::string& v) {
          c.allow_anonymous = v == "true";
          return v == "true" || v == "false";
        },
        [](const DealerConfig&) { return std::string(); },
        "accept unsigned sessions and joins (a flag; loopback addresses only)"}},
      {"log-level", choice(&DealerConfig::log_level, {"trace", "debug", "info", "warn", "error", "off"},
                           "trace, debug, info, warn, error or off")},
      {"log-format", choice(&DealerConfig::log_format, {"text", "json"},
                            "text, or json: one JSON object per line with time, level, message and fields")},
  };
  return kOptions;
}

// The option a name (or an old spelling of it) means, or none.
const std::pair<const std::string, Option>* find_option(const std::string& name) {
  auto it = options().find(name);
  if (it == options().end()) return nullptr;
  if (it->second.alias_of) it = options().find(it->second.alias_of);
  return &*it;
}

bool apply(DealerConfig& c, const std::string& key, const std::string& value, std::string& message) {
  const auto* option = find_option(key);
  if (!option) {
    message = "unknown option '" + key + "'";
    return false;
  }
  if (!option->second.set(c, value)) {
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
      "usage: bp-dealer [--config FILE] [--OPTION VALUE ...] | --version | --help\n"
      "Runs Bulletproofs aggregation sessions over WebSockets; HTTP GET /healthz, /metrics and\n"
      "/v1/sessions/ID on the same port. Flags override environment variables, which override\n"
      "the config file, whose lines are 'option = value' (# starts a comment). Each option's\n"
      "variable is BP_DEALER_ and its name in capitals with '_' for '-' (BP_DEALER_LISTEN,\n"
      "BP_DEALER_OPERATOR_KEY, ...); BP_DEALER_CONFIG names the config file.\n\noptions:\n"
      "  --config FILE  read options from FILE first\n";
  const DealerConfig defaults;
  for (const auto& [name, option] : options()) {
    if (option.alias_of) {
      out += "  --" + name + "  the old name of --" + option.alias_of + "\n";
      continue;
    }
    const std::string shown = option.show(defaults);
    out += "  --" + name + "  " + option.help + (shown.empty() ? "" : "; default " + shown) + "\n";
  }
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
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_dealer_config(args);
}

ConfigOutcome parse_dealer_config(const std::vector<std::string>& args) {
  ConfigOutcome out;
  out.config.command_line = args;
  std::map<std::string, std::string> flags;
  std::string config_file;
  const size_t argc = args.size();
  for (size_t i = 0; i < argc; ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      out.message = dealer_usage();
      return out;
    }
    if (arg == "--version") {
      out.help = true;
      out.message = wire::version_line("bp-dealer") + "\n";
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
    const std::string key = arg.substr(2), value = args[++i];
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
  // Environment (containers): BP_DEALER_MAX_SESSIONS=7 is --max-sessions 7; flags win (an
  // old spelling's variable, BP_DEALER_STORE, still counts).
  for (const auto& [name, option] : options()) {
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
  for (const char* key : {"record", "store", "db"}) {
    if (flags.count(key) != 0 && conninfo_has_password(flags[key])) {
      out.message = std::string("--") + key +
                    " carries a password, which every user of this machine can read (ps): put it in "
                    "--record-password-file, PGPASSFILE or the config file";
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

std::vector<std::string> changed_options(const DealerConfig& before, const DealerConfig& after) {
  std::vector<std::string> changed;
  for (const auto& [name, option] : options())
    if (!option.alias_of && option.show && option.show(before) != option.show(after)) changed.push_back(name);
  // Shown as nothing in --help (a list, a flag): compared as they are.
  if (before.operator_keys != after.operator_keys) changed.emplace_back("operator-key");
  if (before.allow_anonymous != after.allow_anonymous) changed.emplace_back("allow-anonymous");
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  return changed;
}

bool reloadable_option(const std::string& name) {
  static const std::set<std::string> kReloadable = {"operator-key",
                                                    "allow-anonymous",
                                                    "log-level",
                                                    "max-sessions",
                                                    "max-sessions-per-ip",
                                                    "max-sessions-per-operator",
                                                    "max-anonymous-sessions-per-ip",
                                                    "max-parties",
                                                    "max-round-timeout-ms",
                                                    "round-timeout-ms"};
  return kReloadable.count(name) != 0;
}

}  // namespace bp::server
