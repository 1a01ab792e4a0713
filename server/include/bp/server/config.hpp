// bp-dealer's configuration: command-line flags over an optional "key = value" file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bp/errors.hpp"

namespace bp::server {

struct DealerConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 8700;  // 0 picks a free port (printed on stdout)
  // --metrics-listen: /metrics, health and the session listing on their own address (empty:
  // none; /metrics stays on the parties' port).
  std::string metrics_host;
  uint16_t metrics_port = 0;
  std::string metrics_token_file;      // the bearer token every request to that port carries (empty: none)
  unsigned threads = 0;                // 0 = one per core
  std::string record;                  // a SQLite file, or a postgresql:// URL (or libpq "key=value"
                                       // string) shared by replicas; empty = memory only
  std::string record_password_file;    // libpq passfile for the database password (never on the command line)
  std::string replica_name;            // this dealer's name in a shared record; empty = HOSTNAME:PORT
  size_t record_connections = 2;       // database connections (threads); SQLite and memory use one
  size_t record_queue = 256;           // record calls (claims, reads) that may wait; more are answered busy
  uint32_t record_timeout_ms = 5000;   // every record call, queueing included
  uint32_t heartbeat_ms = 2000;        // how often this replica says in the record that it is alive
  uint32_t takeover_after_ms = 6000;   // a replica silent this long may have its sessions taken over
  uint32_t replica_ttl_s = 60;         // a session no replica has run for this long is closed in the
                                       // record as aborted
  size_t max_frame_bytes = 64 * 1024;  // larger WebSocket messages are refused (and blamed)
  size_t max_sessions = 1000;          // running sessions at once
  size_t max_connections = 4096;       // open sockets, lowered at start to what the fd limit allows
  size_t max_connections_per_ip = 64;  // open sockets from one address
  size_t max_parties = 64;             // per session (the protocol allows at most 256)
  // Positions per session (a value each, two for a value with both bounds; at most 256). The
  // generators' tables grow with it: about 1.1 MiB per position once built (64: 68 MiB).
  size_t max_positions = 64;
  uint32_t handshake_timeout_ms = 5000;      // to send the HTTP request / WebSocket upgrade
  uint32_t idle_timeout_ms = 60000;          // a WebSocket peer that answers no ping for this long is dropped
  uint32_t request_timeout_ms = 10000;       // after the upgrade (and after each operator request): until the next
                                             // CreateSession, JoinSession or ManageSessions
  uint32_t max_connects_per_ip_per_s = 100;  // new connections one address may open per second
  uint32_t default_round_timeout_ms = 30000;
  uint32_t max_round_timeout_ms = 600000;
  uint32_t reconnect_grace_ms = 5000;         // how long a dropped party may take to resume its seat
  uint32_t shutdown_grace_ms = 10000;         // on SIGTERM, how long running sessions may finish
  size_t max_sessions_per_operator = 200;     // open sessions one operator key may hold
  size_t max_sessions_per_ip = 200;           // open sessions created from one address
  size_t max_anonymous_sessions_per_ip = 20;  // the same for unsigned (--allow-anonymous) creates
  uint64_t outcome_retention_s = 30 * 86400;  // outcome records older than this are deleted; 0 = kept forever
  size_t outcome_cache = 4096;                // outcomes kept in memory without --record (the only copy)
  unsigned verify_threads = 1;                // POST /v1/verify runs on these (low-priority) threads, never on
                                              // the threads that serve sessions
  size_t verify_queue = 8;                    // verification requests waiting; more get 503
  uint32_t verify_per_ip_per_s = 10;          // verification requests one address may make per second; more get 429
  size_t max_http_body_bytes = 1 << 20;       // POST bodies (256 proofs of 16 parties fit); larger get 413
  std::string log_level = "info";
  std::string log_format = "text";         // or "json": one object per line
  std::string tls_cert;                    // PEM certificate chain; with tls_key: serve wss:// and https://
  std::string tls_key;                     // PEM private key
  std::string tls_min_version = "1.2";     // the lowest TLS version offered: 1.2 or 1.3
  std::string dealer_key_file;             // Ed25519 key that signs results; empty = a new one per run
  std::vector<std::string> operator_keys;  // public keys (hex or .pub files) allowed to create sessions
  bool allow_anonymous = false;            // unsigned sessions and joins; only on a loopback address

  // The arguments it was parsed from (argv after the program's name): SIGHUP parses them
  // again, with the environment and the config file as they are then.
  std::vector<std::string> command_line;
};

// Fills the config from argv (flags override the --config file). On error, --help or
// --version, the string is the message to print; `help` says it was --help or --version.
struct ConfigOutcome {
  bool ok = false;
  bool help = false;
  std::string message;
  DealerConfig config;
};
// Besides parsing, refuses a configuration that would let anyone in: no operator key and no
// --allow-anonymous, or --allow-anonymous on an address other than loopback.
ConfigOutcome parse_dealer_config(int argc, char** argv);
ConfigOutcome parse_dealer_config(const std::vector<std::string>& args);
// The options (their names, as --help spells them) whose values differ between two configs.
std::vector<std::string> changed_options(const DealerConfig& before, const DealerConfig& after);
// What SIGHUP applies to a running dealer: who may create sessions, the session limits, the
// log level (and the TLS certificate's files, read again). Any other option needs a restart.
bool reloadable_option(const std::string& name);
// The config file's "option = value" lines applied over `base` (also what the fuzzer drives).
ConfigOutcome parse_config_text(const std::string& text, const std::string& source_name, DealerConfig base);
std::string dealer_usage();
// The environment variable of an option: "max-sessions" -> "BP_DEALER_MAX_SESSIONS".
std::string env_name(const std::string& option);

}  // namespace bp::server
