// Sessions against a bp-dealer through the C ABI: create, join (blocking and background).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <sodium.h>

#include "bp/client/party_client.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/random.hpp"
#include "bp/wire/json.hpp"
#include "bp/wire/version.hpp"
#include "edge.hpp"
#include "key.hpp"

using bp::c_abi::fail;
using bp::c_abi::guarded;
using bp::c_abi::succeed;

struct bp_join_result {
  bp::client::PartyOutcome outcome;                   // a range session's (empty for a gadget one)
  std::optional<bp::client::GadgetOutcome> gadget{};  // a gadget session's
  size_t seats = 0;                                   // a gadget session's
  std::string json;
  std::vector<uint8_t> commitments;
  std::vector<uint8_t> proof;
};

// What every program's --version says of libbp.
static_assert(BP_ABI_MAJOR == bp::wire::kCAbiMajor && BP_ABI_MINOR == bp::wire::kCAbiMinor,
              "bp.h's ABI version and bp/wire/version.hpp's differ");
// bp_event_kind is PartyEvent::Kind in the same order.
static_assert(BP_EVENT_CONNECTING == static_cast<int>(bp::client::PartyEvent::Kind::Connecting) &&
              BP_EVENT_JOINED == static_cast<int>(bp::client::PartyEvent::Kind::Joined) &&
              BP_EVENT_RESUMED == static_cast<int>(bp::client::PartyEvent::Kind::Resumed) &&
              BP_EVENT_ANSWERED == static_cast<int>(bp::client::PartyEvent::Kind::Answered) &&
              BP_EVENT_REPLAYED == static_cast<int>(bp::client::PartyEvent::Kind::Replayed) &&
              BP_EVENT_RECONNECTING == static_cast<int>(bp::client::PartyEvent::Kind::Reconnecting) &&
              BP_EVENT_GAVE_UP == static_cast<int>(bp::client::PartyEvent::Kind::GaveUp) &&
              BP_EVENT_DONE == static_cast<int>(bp::client::PartyEvent::Kind::Done));

namespace {

int client_failure(bp_error* err, const bp::client::ClientError& e) {
  using Kind = bp::client::ClientErrorKind;
  int kind = BP_ERR_INTERNAL;
  switch (e.kind) {
    case Kind::Transport: kind = BP_ERR_TRANSPORT; break;
    case Kind::Timeout: kind = BP_ERR_TIMEOUT; break;
    case Kind::Protocol: kind = BP_ERR_PROTOCOL; break;
    case Kind::Aborted: kind = BP_ERR_ABORTED; break;
    case Kind::MaliciousDealer: kind = BP_ERR_MALICIOUS_DEALER; break;
    case Kind::Refused: kind = BP_ERR_REFUSED; break;
    case Kind::Unavailable: kind = BP_ERR_UNAVAILABLE; break;
    case Kind::Internal: kind = BP_ERR_INTERNAL; break;
    case Kind::NotAllowed: kind = BP_ERR_NOT_ALLOWED; break;
    case Kind::NoSuchSession: kind = BP_ERR_NO_SUCH_SESSION; break;
    case Kind::OverLimit: kind = BP_ERR_OVER_LIMIT; break;
    case Kind::RateLimited: kind = BP_ERR_RATE_LIMITED; break;
  }
  return fail(err, kind, bp::client::describe(e), e.blamed);
}

// The C options as the client's; the message says what is wrong.
std::optional<bp::client::Options> to_options(const bp_client_options* in, std::string& why) {
  bp::client::Options out;
  if (in == nullptr) return out;
  // A caller built against ABI 0.1 passes the struct without the 0.2 fields.
  constexpr size_t kAbi01Size = offsetof(bp_client_options, reconnect_first_delay_ms);
  if (in->size < kAbi01Size || in->size > sizeof *in) {
    why = "options->size is not sizeof(bp_client_options) (call bp_client_options_init)";
    return std::nullopt;
  }
  // ABI 0.2 added the policy's fields, 0.7 the event callback: an older caller's struct ends
  // before them.
  const bool has_policy = in->size >= offsetof(bp_client_options, on_event);
  const bool has_events = in->size >= offsetof(bp_client_options, min_session_parties);
  if (in->size >= offsetof(bp_client_options, min_session_parties) + sizeof in->min_session_parties)
    out.min_session_parties = in->min_session_parties;
  if (in->timeout_ms != 0) out.timeout = std::chrono::milliseconds(in->timeout_ms);
  if (in->ca_file != nullptr) out.ca_file = in->ca_file;
  if (in->identity != nullptr) out.identity = in->identity->identity;
  if (in->dealer_key != nullptr) {
    bp::wire::PublicKey key;
    std::memcpy(key.data(), in->dealer_key, key.size());
    out.dealer_key = key;
  }
  if (in->reconnect_attempts >= 0) out.reconnect.attempts = static_cast<unsigned>(in->reconnect_attempts);
  if (has_policy) {
    using std::chrono::milliseconds;
    if (in->reconnect_first_delay_ms != 0) out.reconnect.first_delay = milliseconds(in->reconnect_first_delay_ms);
    if (in->reconnect_max_delay_ms != 0) out.reconnect.max_delay = milliseconds(in->reconnect_max_delay_ms);
    if (in->reconnect_give_up_after_ms != 0) out.reconnect.give_up_after = milliseconds(in->reconnect_give_up_after_ms);
    if (in->idle_timeout_ms != 0) out.idle_timeout = milliseconds(in->idle_timeout_ms);
  }
  if (has_events && in->on_event != nullptr) {
    out.on_event = [callback = in->on_event, user = in->event_user](const bp::client::PartyEvent& e) {
      const bp_event event{
          static_cast<int>(e.kind), e.attempt, e.position, e.round, static_cast<uint32_t>(e.delay.count()),
          e.detail.c_str()};
      callback(user, &event);
    };
  }
  return out;
}

// The dealer's URL and the client options, checked and converted (both calls need them).
int read_target(const char* url, const bp_client_options* options, bp::client::Endpoint& endpoint,
                bp::client::Options& converted, bp_error* err) {
  auto parsed = bp::client::parse_endpoint(url);
  if (!parsed) return fail(err, BP_ERR_INVALID_ARGUMENT, "dealer_url must be ws://HOST:PORT or wss://HOST:PORT");
  std::string why;
  auto read = to_options(options, why);
  if (!read) return fail(err, BP_ERR_INVALID_ARGUMENT, why);
  endpoint = std::move(*parsed);
  converted = std::move(*read);
  return BP_OK;
}

// Everything a join needs, checked and copied out of the caller's memory; the blinding is
// wiped when this is destroyed.
struct JoinArgs {
  bp::client::Endpoint dealer;
  std::string session_id;
  bp::client::PartyValues input;
  bp::client::Options options;
  std::string gadget;  // a gadget join's statement (empty: a range join)
  JoinArgs() = default;
  JoinArgs(const JoinArgs&) = delete;
  JoinArgs& operator=(const JoinArgs&) = delete;
  ~JoinArgs() { wipe(); }
  void wipe() {
    for (auto& b : input.blindings) b.wipe();
    if (!input.values.empty()) sodium_memzero(input.values.data(), input.values.size() * sizeof input.values[0]);
  }
};

bp::ValueBounds to_bounds(const bp_value_bounds& b) {
  return bp::ValueBounds{b.min, b.has_max ? std::optional<uint64_t>(b.max) : std::nullopt};
}

int read_join_args(const char* url, const char* session_id, const uint64_t* values, size_t count,
                   const uint8_t* blindings, const bp_value_bounds* bounds, const bp_client_options* options,
                   JoinArgs& args, bp_error* err, size_t most_values = bp::wire::kMaxPositions) {
  if (url == nullptr || session_id == nullptr)
    return fail(err, BP_ERR_INVALID_ARGUMENT, "dealer_url or session_id is NULL");
  if (values == nullptr || count == 0 || count > most_values)
    return fail(err, BP_ERR_INVALID_ARGUMENT, "values must hold 1 to " + std::to_string(most_values) + " values");
  if (int status = read_target(url, options, args.dealer, args.options, err)) return status;
  args.session_id = session_id;
  args.input.values.assign(values, values + count);
  bp::SystemRandom rng;
  for (size_t i = 0; i < count; ++i) {
    if (blindings == nullptr) {
      args.input.blindings.push_back(bp::Scalar::random(rng));
      continue;
    }
    auto s = bp::Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(blindings + 32 * i, 32));
    if (!s) return fail(err, BP_ERR_INVALID_ARGUMENT, "a blinding is not a canonical scalar");
    args.input.blindings.push_back(*s);
    s->wipe();
  }
  if (bounds != nullptr) {
    std::vector<bp::ValueBounds> wanted;
    for (size_t i = 0; i < count; ++i) {
      if (bounds[i].has_max && bounds[i].max < bounds[i].min)
        return fail(err, BP_ERR_INVALID_ARGUMENT, "bounds: a min above its max");
      wanted.push_back(to_bounds(bounds[i]));
    }
    args.input.bounds = std::move(wanted);
  }
  return BP_OK;
}

// A bp_join_values from the caller: at least the fields of ABI 0.3 (which states 64 bits).
int read_join_values(const char* url, const char* session_id, const bp_join_values* v, const bp_client_options* options,
                     JoinArgs& args, bp_error* err) {
  if (v == nullptr || v->size < offsetof(bp_join_values, bits))
    return fail(err, BP_ERR_INVALID_ARGUMENT, "values is NULL or its size is wrong (call bp_join_values_init)");
  const size_t bits = v->size >= sizeof(bp_join_values) && v->bits != 0 ? v->bits : 64;
  if (!bp::is_valid_bitsize(bits)) return fail(err, BP_ERR_INVALID_ARGUMENT, "bits must be 8, 16, 32 or 64");
  args.input.bits = bits;
  return read_join_args(url, session_id, v->values, v->count, v->blindings, v->bounds, options, args, err);
}

bp_join_result* make_result(bp::client::PartyOutcome&& outcome) {
  auto result = std::make_unique<bp_join_result>();
  result->json = bp::wire::result_json(outcome.result, outcome.position, outcome.attestation, outcome.bounds,
                                       outcome.positions, outcome.chain);
  for (const auto& c : outcome.result.commitments)
    result->commitments.insert(result->commitments.end(), c.bytes.begin(), c.bytes.end());
  result->proof = outcome.result.proof.to_bytes();
  result->outcome = std::move(outcome);
  return result.release();
}

bp_join_result* make_result(bp::client::GadgetOutcome&& outcome) {
  auto result = std::make_unique<bp_join_result>();
  result->json = bp::wire::r1cs_result_json(outcome.result, outcome.seat, outcome.chain);
  for (const auto& c : outcome.result.commitments)
    result->commitments.insert(result->commitments.end(), c.bytes.begin(), c.bytes.end());
  result->proof = outcome.result.proof.to_bytes();
  result->outcome.position = outcome.seat;
  const auto list = bp::GadgetList::parse(outcome.result.gadgets);  // the client read it already
  result->seats = list ? list->items().size() : 0;
  result->outcome.result.label = outcome.result.label;
  result->outcome.result.bits = 0;
  if (outcome.result.attestation) result->outcome.attestation = *outcome.result.attestation;
  result->gadget = std::move(outcome);
  return result.release();
}

// A bp_join_gadget from the caller: its values and blindings read as a range join's are
// (checked, copied, wiped with the args), and the gadget's text kept beside them.
int read_join_gadget(const char* url, const char* session_id, const bp_join_gadget* gadget,
                     const bp_client_options* options, JoinArgs& args, bp_error* err) {
  if (gadget == nullptr || gadget->size != sizeof *gadget || gadget->gadget == nullptr)
    return fail(err, BP_ERR_INVALID_ARGUMENT,
                "gadget is NULL, names no gadget or its size is wrong (call bp_join_gadget_init)");
  const size_t most = bp::wire::Limits{}.max_r1cs_commitments;
  if (int status = read_join_args(url, session_id, gadget->values, gadget->count, gadget->blindings, nullptr, options,
                                  args, err, most))
    return status;
  args.gadget = gadget->gadget;
  return BP_OK;
}

// The party's gadget statement, moved out of the args (which wipe what is left).
bp::client::PartyGadget gadget_of(JoinArgs&& args) {
  return bp::client::PartyGadget{args.gadget, std::move(args.input.values), std::move(args.input.blindings)};
}

bp_join_handle* start_range_join(std::shared_ptr<JoinArgs> args, bp_join_callback done, void* user);

int join_blocking(JoinArgs& args, bp_join_result** out, bp_error* err) {
  auto outcome = bp::client::join_and_prove(args.dealer, args.session_id, std::move(args.input), args.options);
  args.wipe();
  if (!outcome) return client_failure(err, outcome.error());
  *out = make_result(std::move(*outcome));
  return succeed(err);
}

// Runs `launch(ioc, handler)` (an asynchronous join on the handle's io_context) on a thread of
// its own; `done` hears its outcome once. `args` holds the caller's copied secrets.
template <class Outcome, class Launch>
bp_join_handle* start_join(std::shared_ptr<JoinArgs> args, bp_join_callback done, void* user, Launch launch);

}  // namespace

struct bp_join_handle {
  boost::asio::io_context ioc;
  std::thread thread;
  std::atomic<bool> cancelled{false};
};

extern "C" {

void bp_client_options_init(bp_client_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->size = sizeof *options;
  options->reconnect_attempts = -1;
}

void bp_session_request_init(bp_session_request* request) {
  if (request == nullptr) return;
  std::memset(request, 0, sizeof *request);
  request->size = sizeof *request;
  request->bits = 64;
  request->parties = 1;
}

int bp_create_session(const char* dealer_url, const bp_session_request* request, const bp_client_options* options,
                      char session_id_out[33], bp_error* err) {
  return guarded(err, [&] {
    if (dealer_url == nullptr || session_id_out == nullptr)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "dealer_url or session_id_out is NULL");
    // A caller built against ABI 0.2 passes the struct without the 0.3 fields, one built
    // against 0.3 to 0.5 without the 0.6 field.
    constexpr size_t kAbi02Size = offsetof(bp_session_request, values_per_party);
    if (request == nullptr || request->size < kAbi02Size || request->size > sizeof *request)
      return fail(err, BP_ERR_INVALID_ARGUMENT, "request is NULL or its size is wrong (call bp_session_request_init)");
    const bool has_values = request->size >= offsetof(bp_session_request, gadgets);
    bp::client::Endpoint endpoint;
    bp::client::Options converted;
    if (int status = read_target(dealer_url, options, endpoint, converted, err)) return status;
    bp::client::SessionRequest wanted;
    wanted.bits = request->bits;
    wanted.parties = request->parties;
    if (request->label != nullptr) wanted.label = request->label;
    wanted.round_timeout_ms = request->round_timeout_ms;
    if (request->session_id != nullptr) wanted.session_id = request->session_id;
    if (request->allowed_parties != nullptr)
      for (size_t i = 0; i < request->parties; ++i) {
        bp::wire::PublicKey key;
        std::memcpy(key.data(), request->allowed_parties + 32 * i, key.size());
        wanted.allowed_parties.push_back(key);
      }
    if (has_values && request->values_per_party != nullptr)
      wanted.values_per_party.assign(request->values_per_party, request->values_per_party + request->parties);
    if (has_values && request->bounds != nullptr)
      for (size_t i = 0; i < request->bounds_count; ++i) wanted.bounds.push_back(to_bounds(request->bounds[i]));
    if (request->size >= offsetof(bp_session_request, gadgets) + sizeof request->gadgets && request->gadgets != nullptr)
      wanted.gadgets = request->gadgets;
    if (request->size >= offsetof(bp_session_request, join_window_ms) + sizeof request->join_window_ms) {
      wanted.min_parties = request->min_parties;
      wanted.join_window_ms = request->join_window_ms;
    }
    if (request->size >= offsetof(bp_session_request, gadget_successors) + sizeof request->gadget_successors)
      wanted.gadget_successors = request->gadget_successors != 0;
    auto created = bp::client::create_session(endpoint, wanted, converted);
    if (!created) return client_failure(err, created.error());
    std::memset(session_id_out, 0, 33);
    std::memcpy(session_id_out, created->session_id.data(), std::min<size_t>(created->session_id.size(), 32));
    return succeed(err);
  });
}

int bp_join_and_prove(const char* dealer_url, const char* session_id, uint64_t value, const uint8_t* blinding,
                      const bp_client_options* options, bp_join_result** out, bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    JoinArgs args;
    if (int status = read_join_args(dealer_url, session_id, &value, 1, blinding, nullptr, options, args, err))
      return status;
    return join_blocking(args, out, err);
  });
}

void bp_join_values_init(bp_join_values* values) {
  if (values == nullptr) return;
  std::memset(values, 0, sizeof *values);
  values->size = sizeof *values;
}

int bp_join_values_and_prove(const char* dealer_url, const char* session_id, const bp_join_values* values,
                             const bp_client_options* options, bp_join_result** out, bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    JoinArgs args;
    if (int status = read_join_values(dealer_url, session_id, values, options, args, err)) return status;
    return join_blocking(args, out, err);
  });
}

void bp_join_gadget_init(bp_join_gadget* gadget) {
  if (gadget == nullptr) return;
  std::memset(gadget, 0, sizeof *gadget);
  gadget->size = sizeof *gadget;
}

int bp_join_gadget_and_prove(const char* dealer_url, const char* session_id, const bp_join_gadget* gadget,
                             const bp_client_options* options, bp_join_result** out, bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    JoinArgs args;
    if (int status = read_join_gadget(dealer_url, session_id, gadget, options, args, err)) return status;
    auto outcome =
        bp::client::join_gadget_session(args.dealer, args.session_id, gadget_of(std::move(args)), args.options);
    if (!outcome) return client_failure(err, outcome.error());
    *out = make_result(std::move(*outcome));
    return succeed(err);
  });
}

int bp_join_gadget_start(const char* dealer_url, const char* session_id, const bp_join_gadget* gadget,
                         const bp_client_options* options, bp_join_callback done, void* user, bp_join_handle** out,
                         bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr || done == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out or done is NULL");
    *out = nullptr;
    auto args = std::make_shared<JoinArgs>();
    if (int status = read_join_gadget(dealer_url, session_id, gadget, options, *args, err)) return status;
    *out = start_join<bp::client::GadgetOutcome>(args, done, user, [args](boost::asio::io_context& ioc, auto handler) {
      bp::client::async_join_gadget_session(ioc, args->dealer, args->session_id, gadget_of(std::move(*args)),
                                            args->options, std::move(handler));
    });
    return succeed(err);
  });
}

int bp_join_start(const char* dealer_url, const char* session_id, uint64_t value, const uint8_t* blinding,
                  const bp_client_options* options, bp_join_callback done, void* user, bp_join_handle** out,
                  bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr || done == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out or done is NULL");
    *out = nullptr;
    auto args = std::make_shared<JoinArgs>();
    if (int status = read_join_args(dealer_url, session_id, &value, 1, blinding, nullptr, options, *args, err))
      return status;
    *out = start_range_join(std::move(args), done, user);
    return succeed(err);
  });
}

int bp_join_values_start(const char* dealer_url, const char* session_id, const bp_join_values* values,
                         const bp_client_options* options, bp_join_callback done, void* user, bp_join_handle** out,
                         bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr || done == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out or done is NULL");
    *out = nullptr;
    auto args = std::make_shared<JoinArgs>();
    if (int status = read_join_values(dealer_url, session_id, values, options, *args, err)) return status;
    *out = start_range_join(std::move(args), done, user);
    return succeed(err);
  });
}

}  // extern "C"

namespace {

template <class Outcome, class Launch>
bp_join_handle* start_join(std::shared_ptr<JoinArgs> args, bp_join_callback done, void* user, Launch launch) {
  auto handle = std::make_unique<bp_join_handle>();
  bp_join_handle* h = handle.get();
  // The join runs on the handle's own io_context and thread. Cancelling stops that
  // io_context: run() returns without calling the client's handler, the sockets close
  // with the context, and the thread reports BP_ERR_CANCELLED.
  h->thread = std::thread([h, args, done, user, launch = std::move(launch)] {
    bool reported = false;
    auto report = [&](int status, bp_join_result* result, const bp_error* e) {
      reported = true;
      try {
        done(user, status, result, e);
      } catch (...) {
      }
    };
    try {
      launch(h->ioc, [&](bp::client::ClientResult<Outcome> r) {
        args->wipe();
        if (h->cancelled.load()) return;  // reported below
        bp_error e{};
        if (!r) {
          const int kind = client_failure(&e, r.error());
          report(kind, nullptr, &e);
        } else {
          report(BP_OK, make_result(std::move(*r)), nullptr);
        }
      });
      h->ioc.run();
    } catch (const std::exception& ex) {
      if (!reported) {
        bp_error e{};
        report(fail(&e, BP_ERR_INTERNAL, std::string("internal error: ") + ex.what()), nullptr, &e);
      }
    }
    args->wipe();
    if (!reported) {
      bp_error e{};
      report(fail(&e, BP_ERR_CANCELLED, "cancelled"), nullptr, &e);
    }
  });
  return handle.release();
}

bp_join_handle* start_range_join(std::shared_ptr<JoinArgs> args, bp_join_callback done, void* user) {
  return start_join<bp::client::PartyOutcome>(args, done, user, [args](boost::asio::io_context& ioc, auto handler) {
    bp::client::async_join_and_prove(ioc, args->dealer, args->session_id, std::move(args->input), args->options,
                                     std::move(handler));
  });
}

}  // namespace

extern "C" {

void bp_join_cancel(bp_join_handle* handle) {
  if (handle == nullptr) return;
  handle->cancelled.store(true);
  handle->ioc.stop();
}

void bp_join_handle_free(bp_join_handle* handle) {
  if (handle == nullptr) return;
  if (handle->thread.joinable()) handle->thread.join();
  delete handle;
}

const char* bp_join_result_json(const bp_join_result* r) { return r ? r->json.c_str() : nullptr; }
size_t bp_join_result_position(const bp_join_result* r) { return r ? r->outcome.position : 0; }
size_t bp_join_result_position_count(const bp_join_result* r) { return r ? r->outcome.positions : 0; }  // 1 for a seat
size_t bp_join_result_positions(const bp_join_result* r) {
  if (r == nullptr) return 0;
  return r->gadget ? r->seats : r->outcome.result.commitments.size();
}
size_t bp_join_result_parties(const bp_join_result* r) { return bp_join_result_positions(r); }
size_t bp_join_result_bits(const bp_join_result* r) { return r ? r->outcome.result.bits : 0; }
size_t bp_join_result_commitment_count(const bp_join_result* r) { return r ? r->commitments.size() / 32 : 0; }
const char* bp_join_result_gadgets(const bp_join_result* r) {
  return r && r->gadget ? r->gadget->result.gadgets.c_str() : nullptr;
}
const char* bp_join_result_label(const bp_join_result* r) { return r ? r->outcome.result.label.c_str() : nullptr; }
const uint8_t* bp_join_result_commitments(const bp_join_result* r) { return r ? r->commitments.data() : nullptr; }
const uint8_t* bp_join_result_proof(const bp_join_result* r, size_t* len) {
  if (r == nullptr) return nullptr;
  if (len != nullptr) *len = r->proof.size();
  return r->proof.data();
}
const uint8_t* bp_join_result_dealer_signature(const bp_join_result* r) {
  return r ? r->outcome.attestation.signature.data() : nullptr;
}
void bp_join_result_free(bp_join_result* r) { delete r; }

}  // extern "C"
