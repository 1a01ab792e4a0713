// bp-party: create a session (operators) or join one as a party.
#include <sodium.h>

#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>

#include "bp/client/party_client.hpp"
#include "bp/hex.hpp"
#include "bp/json.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/random.hpp"
#include "bp/wire/bounds_text.hpp"
#include "bp/wire/identity.hpp"
#include "bp/wire/json.hpp"
#include "bp/wire/version.hpp"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  bp-party --version\n"
    "      the release, the commit it was built from, the wire and C ABI versions, the backend\n"
    "  bp-party keygen --out FILE\n"
    "      writes a new Ed25519 identity key to FILE (mode 0600, never overwriting) and its\n"
    "      public key to FILE.pub; prints the public key in hex\n"
    "  bp-party create-session --dealer ws[s]://HOST:PORT --bits N --parties M --key OPERATOR_KEY_FILE\n"
    "                          --allow KEY1,KEY2,... [--label L] [--round-timeout-ms T]\n"
    "                          [--session-id ID] [--values-per-party K1,K2,...] [--min A --max B]\n"
    "                          [--min-parties K [--join-window-ms T]] [--timeout-ms T]\n"
    "      the keys (hex or .pub files) of the parties, in seat order; prints the session id\n"
    "      (ID, 32 hex characters, if given; else a random one). --values-per-party: how many\n"
    "      values each party proves (default one each); --min/--max: public bounds on every\n"
    "      value (one entry for all, or one per value in party order; an empty --max entry: a\n"
    "      minimum only). A value with both bounds takes two positions; --bits must cover\n"
    "      max - min (8, 16, 32 or 64). A dealer holds up to its --max-positions (at most 256).\n"
    "      --min-parties: a quorum; the session starts with the parties present once all have\n"
    "      joined or --join-window-ms (default: the round timeout) ends with at least K of them\n"
    "      (fewer: it aborts, naming who was missing). Gadget sessions take it too.\n"
    "      --timeout-ms: the whole request (default 120000); a connection the dealer declines\n"
    "      for now (HTTP 429, 503; a balancer's 502, 504) is tried again after its Retry-After.\n"
    "  bp-party create-session --dealer ws[s]://HOST:PORT --gadgets LIST --key OPERATOR_KEY_FILE\n"
    "                          --allow KEY1,KEY2,... [--label L] [--round-timeout-ms T] [--session-id ID]\n"
    "                          [--min-parties K [--join-window-ms T] [--gadget-successors yes]]\n"
    "      a constraint-system session: one gadget per seat, in seat order, as bp r1cs reads a\n"
    "      list (\"shuffle:3;range:32;range:32\"); the parties are the list's items (--parties, if\n"
    "      given, must agree). The result is one R1CS proof of the list (bp r1cs verify).\n"
    "  bp-party join --dealer ws[s]://HOST:PORT --session ID --value V1[,V2,...] --key KEY_FILE\n"
    "                [--bits N] [--blinding HEX1[,HEX2,...]] [--min A --max B] [--timeout-ms T]\n"
    "                [--reconnect-attempts N] [--reconnect-give-up-ms T] [--events FILE]\n"
    "                [--require-parties K]\n"
    "      proves each value in one seat (one message per round for all of them) as stated here:\n"
    "      each below 2^N (--bits, default 64), or within --min/--max (a minimum alone: in\n"
    "      [min, min + 2^N)). A seat of another bit size, count or bounds, or a transcript label\n"
    "      not this session's, is refused before anything about the values is sent, whatever\n"
    "      they are; a value outside the statement is refused before connecting. --timeout-ms\n"
    "      (default 120000) bounds the whole join, reconnections included. Prints the final JSON (bits, label, "
    "commitments, proof, padding,\n"
    "      position, position_count, session, dealer_key, dealer_signature; a bounded session adds\n"
    "      bounds, positions' commitments and transcript_label, as bp prove --min does); on an\n"
    "      abort exits 2 with 'abort: <reason> blamed=[..]'.\n"
    "      A dropped connection, or a dealer that hands the session to another replica, is\n"
    "      followed by joining again with the seat's token: at most N connections (default 20)\n"
    "      and T ms (default 60000) per outage, each noted on stderr. --events appends one JSON\n"
    "      line per step (connections, joins, each challenge answered or replayed, the end).\n"
    "      --require-parties: our own minimum of parties in the session (an anonymity set); a\n"
    "      seat in a smaller one (or from a dealer before wire 1.7) is refused before committing.\n"
    "  bp-party join --dealer ws[s]://HOST:PORT --session ID --gadget G --value V1[,V2,...] --key KEY_FILE\n"
    "                [--blinding HEX1[,...]] [--timeout-ms T] [--reconnect-attempts N]\n"
    "                [--reconnect-give-up-ms T] [--events FILE] [--require-parties K]\n"
    "      proves gadget G (one list item: range:32, shuffle:3, member:1|5|10, ...) over the\n"
    "      values, one per commitment of G in its order, in a gadget session's seat that proves\n"
    "      G; a seat of another gadget, or a label not this session's over its list, is refused\n"
    "      before anything is committed, whatever the values are; values that do not satisfy G\n"
    "      are refused before connecting. Prints the result as bp r1cs prove prints a proof\n"
    "      (gadgets, label, commitments, proof) with seat, session, dealer_key, dealer_signature.\n"
    "  bp-party sessions --dealer ws[s]://HOST:PORT --key OPERATOR_KEY_FILE [--cancel ID1,ID2,...]\n"
    "                    [--timeout-ms T]\n"
    "      lists the open sessions this operator key created on that dealer (one line each: id,\n"
    "      phase, parties joined/total, bits), after cancelling those given with --cancel\n"
    "  --key may be left out only against a dealer run with --allow-anonymous.\n"
    "  --dealer-key HEX|FILE refuses a dealer with any other key.\n"
    "  --dealer may end in a path prefix (wss://lb.example/bp): the WebSocket path is PREFIX/v1/session/ID.\n"
    "  with wss://: --ca FILE (PEM) to verify the dealer's certificate (default: system CAs);\n"
    "  --insecure-skip-verify yes turns verification off (tests only)\n";

struct Flags {
  std::map<std::string, std::string> values;
  std::string error;
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
  bool has(const std::string& k) const { return values.count(k) != 0; }
};

Flags parse(int argc, char** argv, std::initializer_list<const char*> allowed) {
  Flags f;
  for (int i = 2; i < argc; i += 2) {
    const std::string arg = argv[i];
    bool known = false;
    for (const char* a : allowed) known |= arg == std::string("--") + a;
    if (!known || i + 1 >= argc) {
      f.error = known ? arg + " needs a value" : "unknown argument '" + arg + "'";
      return f;
    }
    f.values[arg.substr(2)] = argv[i + 1];
  }
  return f;
}

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

std::optional<std::string> optional_flag(const Flags& f, const std::string& name) {
  return f.has(name) ? std::optional<std::string>(f.get(name)) : std::nullopt;
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "error: %s (see bp-party --help)\n", what.c_str());
  return 64;
}

// The options every command shares: TLS, our key, the dealer's pinned key.
std::optional<bp::client::Options> common_options(const Flags& f, std::string& error) {
  bp::client::Options o;
  o.ca_file = f.get("ca");
  o.insecure_skip_verify = f.get("insecure-skip-verify") == "yes";
  if (f.has("key")) {
    auto identity = bp::wire::Identity::load(f.get("key"));
    if (!identity) {
      error = identity.error();
      return std::nullopt;
    }
    o.identity = std::make_shared<const bp::wire::Identity>(std::move(*identity));
  }
  if (f.has("dealer-key")) {
    o.dealer_key = bp::wire::parse_public_key(f.get("dealer-key"));
    if (!o.dealer_key) {
      error = "--dealer-key must be 64 hex characters or a .pub file";
      return std::nullopt;
    }
  }
  return o;
}

int keygen(int argc, char** argv) {
  const Flags f = parse(argc, argv, {"out"});
  if (!f.error.empty()) return usage_error(f.error);
  if (!f.has("out")) return usage_error("--out FILE is required");
  const auto identity = bp::wire::Identity::generate();
  if (auto why = identity.save(f.get("out"))) {
    std::fprintf(stderr, "error: %s\n", why->c_str());
    return 1;
  }
  std::printf("%s\n", bp::wire::public_key_hex(identity.public_key()).c_str());
  return 0;
}

int client_failure(const bp::client::ClientError& e) {
  std::fprintf(stderr, "%s\n", bp::client::describe(e).c_str());
  // 2: the dealer ended it or refused us (an abort, or a refusal of a kind); 1: anything else.
  using Kind = bp::client::ClientErrorKind;
  return e.kind == Kind::Aborted || e.kind == Kind::NotAllowed || e.kind == Kind::NoSuchSession ||
                 e.kind == Kind::OverLimit
             ? 2
             : 1;
}

// An operator's request's one deadline (--timeout-ms): a connection the dealer declines for
// now (429, 503, a balancer's 502 or 504) is tried again until it passes.
bool request_deadline(const Flags& f, bp::client::Options& options, std::string& error) {
  if (!f.has("timeout-ms")) return true;
  uint64_t ms = 0;
  if (!parse_u64(f.get("timeout-ms"), ms) || ms == 0 || ms > UINT32_MAX) {
    error = "--timeout-ms must be a positive number of milliseconds";
    return false;
  }
  options.timeout = std::chrono::milliseconds(ms);
  return true;
}

int create_session(int argc, char** argv) {
  const Flags f = parse(argc, argv,
                        {"dealer", "bits", "parties", "label", "round-timeout-ms", "ca", "insecure-skip-verify", "key",
                         "allow", "dealer-key", "session-id", "values-per-party", "min", "max", "gadgets",
                         "min-parties", "join-window-ms", "gadget-successors", "timeout-ms"});
  if (!f.error.empty()) return usage_error(f.error);
  const auto dealer = bp::client::parse_endpoint(f.get("dealer"));
  if (!dealer) return usage_error("--dealer must be ws://HOST:PORT or wss://HOST:PORT");
  uint64_t bits = 0, parties = 0, timeout = 0;
  if (f.has("gadgets")) {
    // A gadget session: the list says the seats; no bits, values or bounds.
    const auto list = bp::GadgetList::parse(f.get("gadgets"));
    if (!list) return usage_error("--gadgets: " + list.error());
    if (f.has("bits") || f.has("values-per-party") || f.has("min") || f.has("max"))
      return usage_error("--gadgets takes no --bits, --values-per-party, --min or --max: each gadget states its own");
    if (f.has("parties") && (!parse_u64(f.get("parties"), parties) || parties != list->items().size()))
      return usage_error("--parties must be the list's " + std::to_string(list->items().size()) + " items");
    parties = list->items().size();
  } else if (!parse_u64(f.get("bits"), bits) || !parse_u64(f.get("parties"), parties)) {
    return usage_error("--bits and --parties are required numbers");
  }
  if (f.has("round-timeout-ms") && (!parse_u64(f.get("round-timeout-ms"), timeout) || timeout > UINT32_MAX))
    return usage_error("--round-timeout-ms must be a number of milliseconds");
  std::string error;
  auto options = common_options(f, error);
  if (!options) return usage_error(error);
  if (!request_deadline(f, *options, error)) return usage_error(error);
  bp::client::SessionRequest request{
      bits, parties, f.get("label", "bp"), static_cast<uint32_t>(timeout), f.get("session-id"), {}};
  request.gadgets = f.get("gadgets");
  uint64_t quorum = 0, window = 0;
  if (f.has("min-parties") && (!parse_u64(f.get("min-parties"), quorum) || quorum == 0 || quorum > parties))
    return usage_error("--min-parties must be 1.." + std::to_string(parties));
  if (f.has("join-window-ms") &&
      (!f.has("min-parties") || !parse_u64(f.get("join-window-ms"), window) || window == 0 || window > UINT32_MAX))
    return usage_error("--join-window-ms takes --min-parties and a number of milliseconds");
  request.min_parties = static_cast<uint32_t>(quorum);
  if (f.has("gadget-successors") && (f.get("gadget-successors") != "yes" || !f.has("gadgets") || !f.has("min-parties")))
    return usage_error("--gadget-successors yes takes --gadgets and --min-parties");
  request.gadget_successors = f.get("gadget-successors") == "yes";
  request.join_window_ms = static_cast<uint32_t>(window);
  size_t values = parties;
  if (f.has("values-per-party")) {
    auto counts = bp::wire::parse_u64_list(f.get("values-per-party"), "--values-per-party");
    if (!counts) return usage_error(counts.error());
    if (counts->size() != parties) return usage_error("--values-per-party: one count per party");
    values = 0;
    for (uint64_t k : *counts) {
      if (k == 0 || k > 256) return usage_error("--values-per-party: each party brings 1 to 256 values");
      request.values_per_party.push_back(static_cast<uint32_t>(k));
      values += k;
    }
  }
  if (f.has("min") || f.has("max")) {
    auto bounds = bp::wire::parse_bounds_text(optional_flag(f, "min"), optional_flag(f, "max"), values);
    if (!bounds) return usage_error(bounds.error());
    if (!bp::check_bounds(*bounds, bits))
      return usage_error("--bits " + std::to_string(bits) + " does not cover max - min (the least that does is " +
                         std::to_string(bp::bits_covering(*bounds).value()) + ")");
    request.bounds = std::move(*bounds);
  }
  const std::string allow = f.get("allow");
  for (size_t start = 0; start < allow.size();) {
    const size_t comma = std::min(allow.find(',', start), allow.size());
    const auto key = bp::wire::parse_public_key(allow.substr(start, comma - start));
    if (!key)
      return usage_error("--allow: '" + allow.substr(start, comma - start) + "' is not a public key or .pub file");
    request.allowed_parties.push_back(*key);
    start = comma + 1;
  }
  auto created = bp::client::create_session(*dealer, request, *options);
  if (!created) return client_failure(created.error());
  std::printf("%s\n", created->session_id.c_str());
  return 0;
}

const char* event_name(bp::client::PartyEvent::Kind kind) {
  using Kind = bp::client::PartyEvent::Kind;
  switch (kind) {
    case Kind::Connecting: return "connecting";
    case Kind::Joined: return "joined";
    case Kind::Resumed: return "resumed";
    case Kind::Answered: return "answered";
    case Kind::Replayed: return "replayed";
    case Kind::Reconnecting: return "reconnecting";
    case Kind::GaveUp: return "gave_up";
    case Kind::Done: return "done";
  }
  return "?";
}

// Each step on stderr when it is news to a person (a reconnection), and as a JSON line in
// `events` (if open) for a checker.
void report(const bp::client::PartyEvent& e, std::FILE* events) {
  using Kind = bp::client::PartyEvent::Kind;
  if (e.kind == Kind::Reconnecting)
    std::fprintf(stderr, "bp-party: joining again in %lld ms (connection %zu of this outage): %s\n",
                 static_cast<long long>(e.delay.count()), e.attempt, e.detail.c_str());
  if (!events) return;
  const auto now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  bp::JsonObject line;
  line.number("time_ms", static_cast<uint64_t>(now.count())).text("event", event_name(e.kind));
  line.number("position", e.position).number("attempt", e.attempt);
  if (e.round != 0) line.number("round", static_cast<size_t>(e.round)).text("challenge", e.challenge);
  if (!e.detail.empty()) line.text("detail", e.detail);
  if (e.kind == Kind::Reconnecting) line.number("delay_ms", static_cast<uint64_t>(e.delay.count()));
  std::fprintf(events, "%s\n", line.str().c_str());
  std::fflush(events);
}

int join(int argc, char** argv) {
  const Flags f = parse(
      argc, argv,
      {"dealer", "session", "value", "blinding", "timeout-ms", "ca", "insecure-skip-verify", "key", "dealer-key",
       "reconnect-attempts", "reconnect-give-up-ms", "events", "min", "max", "bits", "gadget", "require-parties"});
  if (!f.error.empty()) return usage_error(f.error);
  const auto dealer = bp::client::parse_endpoint(f.get("dealer"));
  if (!dealer) return usage_error("--dealer must be ws://HOST:PORT or wss://HOST:PORT");
  uint64_t timeout = 120000, bits = 64;
  if (f.has("bits") && (!parse_u64(f.get("bits"), bits) || !bp::is_valid_bitsize(bits)))
    return usage_error("--bits must be 8, 16, 32 or 64");
  if (!f.has("value")) return usage_error("--value is required");
  auto parsed_values = bp::wire::parse_u64_list(f.get("value"), "--value");
  if (!parsed_values) return usage_error(parsed_values.error());
  const size_t most_values = f.has("gadget") ? bp::wire::Limits{}.max_r1cs_commitments : 256;
  if (parsed_values->size() > most_values)
    return usage_error("--value: at most " + std::to_string(most_values) + " values");
  if (!f.has("session")) return usage_error("--session is required");
  if (f.has("timeout-ms") && !parse_u64(f.get("timeout-ms"), timeout)) return usage_error("bad --timeout-ms");
  bp::client::PartyValues input{std::move(*parsed_values), {}, std::nullopt, static_cast<size_t>(bits)};
  if (f.has("blinding")) {
    const std::string list = f.get("blinding");
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      const auto bytes = bp::from_hex(list.substr(start, comma - start));
      if (!bytes || bytes->size() != 32) return usage_error("--blinding must be 32 bytes of hex per value");
      auto s = bp::Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(bytes->data(), 32));
      if (!s) return usage_error("--blinding is not a canonical scalar");
      input.blindings.push_back(*s);
      start = comma + 1;
    }
    if (input.blindings.size() != input.values.size()) return usage_error("--blinding: one per value");
  } else {
    bp::SystemRandom rng;
    for (size_t i = 0; i < input.values.size(); ++i) input.blindings.push_back(bp::Scalar::random(rng));
  }
  if (f.has("gadget") && (f.has("min") || f.has("max") || f.has("bits")))
    return usage_error("--gadget takes no --bits, --min or --max: the gadget states what is proved");
  if (f.has("min") || f.has("max")) {
    auto bounds = bp::wire::parse_bounds_text(optional_flag(f, "min"), optional_flag(f, "max"), input.values.size());
    if (!bounds) return usage_error(bounds.error());
    if (!bp::check_bounds(*bounds, bits))
      return usage_error("--bits " + std::to_string(bits) + " does not cover max - min (the least that does is " +
                         std::to_string(bp::bits_covering(*bounds).value()) + ")");
    input.bounds = std::move(*bounds);
  }
  std::string error;
  auto common = common_options(f, error);
  if (!common) return usage_error(error);
  bp::client::Options options = std::move(*common);
  options.timeout = std::chrono::milliseconds(timeout);
  uint64_t attempts = options.reconnect.attempts,
           give_up = static_cast<uint64_t>(options.reconnect.give_up_after.count());
  if (f.has("reconnect-attempts") && (!parse_u64(f.get("reconnect-attempts"), attempts) || attempts > 10000))
    return usage_error("--reconnect-attempts must be a number up to 10000");
  if (f.has("reconnect-give-up-ms") && !parse_u64(f.get("reconnect-give-up-ms"), give_up))
    return usage_error("--reconnect-give-up-ms must be a number of milliseconds");
  uint64_t required = 0;
  if (f.has("require-parties") && (!parse_u64(f.get("require-parties"), required) || required > 256))
    return usage_error("--require-parties must be a number up to 256");
  options.min_session_parties = static_cast<size_t>(required);
  options.reconnect.attempts = static_cast<unsigned>(attempts);
  options.reconnect.give_up_after = std::chrono::milliseconds(give_up);
  std::FILE* events = nullptr;
  if (f.has("events") && !(events = std::fopen(f.get("events").c_str(), "a")))
    return usage_error("cannot open --events file " + f.get("events") + ": " + std::strerror(errno));
  options.on_event = [events](const bp::client::PartyEvent& e) { report(e, events); };
  if (f.has("gadget")) {
    bp::client::PartyGadget gadget{f.get("gadget"), std::move(input.values), std::move(input.blindings)};
    auto outcome = bp::client::join_gadget_session(*dealer, f.get("session"), std::move(gadget), options);
    if (events) std::fclose(events);
    if (!outcome) return client_failure(outcome.error());
    std::printf("%s\n", bp::wire::r1cs_result_json(outcome->result, outcome->seat, outcome->chain).c_str());
    return 0;
  }
  auto outcome = bp::client::join_and_prove(*dealer, f.get("session"), std::move(input), options);
  if (events) std::fclose(events);
  if (!outcome) return client_failure(outcome.error());
  std::printf("%s\n", bp::wire::result_json(outcome->result, outcome->position, outcome->attestation, outcome->bounds,
                                            outcome->positions, outcome->chain)
                          .c_str());
  return 0;
}

int sessions(int argc, char** argv) {
  const Flags f =
      parse(argc, argv, {"dealer", "ca", "insecure-skip-verify", "key", "dealer-key", "cancel", "timeout-ms"});
  if (!f.error.empty()) return usage_error(f.error);
  const auto dealer = bp::client::parse_endpoint(f.get("dealer"));
  if (!dealer) return usage_error("--dealer must be ws://HOST:PORT or wss://HOST:PORT");
  std::vector<std::string> cancel;
  const std::string ids = f.get("cancel");
  for (size_t start = 0; start < ids.size();) {
    const size_t comma = std::min(ids.find(',', start), ids.size());
    cancel.push_back(ids.substr(start, comma - start));
    if (!bp::wire::valid_session_id(cancel.back()))
      return usage_error("--cancel: '" + cancel.back() + "' is not a session id");
    start = comma + 1;
  }
  std::string error;
  auto options = common_options(f, error);
  if (!options) return usage_error(error);
  if (!request_deadline(f, *options, error)) return usage_error(error);
  auto listing = bp::client::manage_sessions(*dealer, cancel, *options);
  if (!listing) return client_failure(listing.error());
  for (const auto& id : cancel)
    if (std::find(listing->not_cancelled.begin(), listing->not_cancelled.end(), id) == listing->not_cancelled.end())
      std::printf("cancelled %s\n", id.c_str());
  for (const auto& id : listing->not_cancelled)
    std::fprintf(stderr, "not cancelled (not an open session of yours): %s\n", id.c_str());
  for (const auto& s : listing->sessions)
    std::printf("%s %s %zu/%zu bits=%zu%s%s\n", s.session_id.c_str(), s.phase.c_str(), s.joined, s.parties, s.bits,
                s.replica.empty() ? "" : " on ", s.replica.c_str());
  return listing->not_cancelled.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) return 1;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  const std::string command = argv[1];
  if (command == "--version") {
    std::printf("%s\n", bp::wire::version_line("bp-party").c_str());
    return 0;
  }
  if (command == "keygen") return keygen(argc, argv);
  if (command == "create-session") return create_session(argc, argv);
  if (command == "join") return join(argc, argv);
  if (command == "sessions") return sessions(argc, argv);
  return usage_error("unknown command '" + command + "'");
}
