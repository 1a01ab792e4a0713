/* libbp: the C ABI of the Bulletproofs aggregation client (C99; no C++ types).
 *
 * What a party, an operator and a verifier need from any language: identity keys, range
 * proofs (prove, verify, batch verify), and the networked session against a bp-dealer
 * (create a session; join one and get the aggregated proof, blocking or in the background).
 *
 * Rules of this ABI
 *  - Every function returns an int: BP_OK (0) or a bp_error_kind; when it fails and `err`
 *    is not NULL, *err says why (kind, message, blamed positions). Nothing throws, exits or
 *    aborts on bad input; NULL where a pointer is required is BP_ERR_INVALID_ARGUMENT.
 *  - Ownership: the caller owns what it passes in and keeps it. Every object or buffer the
 *    library allocates is returned through an out-pointer and has exactly one free
 *    function, named beside it (bp_key_free, bp_bytes_free, bp_join_result_free,
 *    bp_join_handle_free). Free functions accept NULL. Strings returned inside an object
 *    live as long as the object.
 *  - Secrets (values, blindings, secret keys) are copied in, used, and wiped inside the
 *    library; wiping the caller's own copies is the caller's business. A bp_key wipes its
 *    secret key when freed.
 *  - Thread safety: every function may be called from many threads at once; a bp_key may
 *    be shared between threads (it is never modified after creation), a bp_join_handle may
 *    be cancelled from any thread.
 *  - Versioning: the soname is libbp.so.BP_ABI_MAJOR. Within a major version functions and
 *    enum values are only added; structs that the caller allocates (bp_client_options,
 *    bp_session_request, bp_batch_item) begin with a `size` field set to sizeof by the
 *    caller, so later minor versions can append fields. bp_error never changes layout
 *    within a major version. Removing or changing anything is a new major version.
 */
#ifndef BP_BP_H
#define BP_BP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BP_API __attribute__((visibility("default")))
#else
#define BP_API
#endif

#define BP_ABI_MAJOR 0
#define BP_ABI_MINOR 8

/* Version of the library actually loaded: major * 1000 + minor. */
BP_API int bp_abi_version(void);

/* ---- errors ---------------------------------------------------------------------- */

typedef enum bp_error_kind {
  BP_OK = 0,
  /* The same kinds as bp::client::ClientErrorKind (the session functions). */
  BP_ERR_TRANSPORT = 1,        /* could not connect, TLS failed, or the connection broke */
  BP_ERR_TIMEOUT = 2,          /* the exchange took longer than timeout_ms */
  BP_ERR_PROTOCOL = 3,         /* the dealer sent something undecodable or unexpected */
  BP_ERR_ABORTED = 4,          /* the dealer aborted the session or refused us; see blamed */
  BP_ERR_MALICIOUS_DEALER = 5, /* the dealer's key, challenge, result or signature failed our checks */
  BP_ERR_REFUSED = 6,          /* our own input was refused before anything was sent */
  /* The library's own. */
  BP_ERR_INVALID_ARGUMENT = 7, /* NULL, a bad size, a non-canonical scalar, a bad URL or file */
  BP_ERR_VERIFY_FAILED = 8,    /* a proof did not verify (bp_verify, bp_verify_batch) */
  BP_ERR_CANCELLED = 9,        /* bp_join_cancel was called before the join finished */
  BP_ERR_INTERNAL = 10,        /* a bug or an allocation failure; the message says which */
  /* ABI 0.2. */
  BP_ERR_UNAVAILABLE = 11, /* the session could not be reached again within the reconnect policy */
  /* ABI 0.7: the dealer refused the request itself (wire 1.6 dealers; older ones' are BP_ERR_ABORTED). */
  BP_ERR_NOT_ALLOWED = 12,     /* our key or signature is not admitted (operator key, allow-list) */
  BP_ERR_NO_SUCH_SESSION = 13, /* the session id is unknown to the dealer and its record */
  BP_ERR_OVER_LIMIT = 14,      /* a limit of the dealer's: sessions running, per operator, per address */
  BP_ERR_RATE_LIMITED =
      15 /* too many new connections from our address until the deadline; the message says when to retry */
} bp_error_kind;

#define BP_MAX_BLAMED 64

typedef struct bp_error {
  int kind;            /* a bp_error_kind */
  char message[512];   /* NUL-terminated, one line */
  size_t blamed_count; /* positions the dealer blamed (BP_ERR_ABORTED), at most BP_MAX_BLAMED; */
                       /* when it blamed more, message begins "N positions blamed, ..." */
  uint32_t blamed[BP_MAX_BLAMED];
} bp_error;

/* "transport", "timeout", ... "internal": a static string. */
BP_API const char* bp_error_kind_name(int kind);

/* ---- buffers --------------------------------------------------------------------- */

/* Frees a byte buffer the library returned (proofs). Accepts NULL. */
BP_API void bp_bytes_free(uint8_t* bytes);

/* ---- keys (Ed25519 identities; the same files as `bp-party keygen`) -------------- */

typedef struct bp_key bp_key;

BP_API int bp_key_generate(bp_key** out, bp_error* err);
/* Reads a secret key file; refuses one that group or others may read (like ssh). */
BP_API int bp_key_load(const char* path, bp_key** out, bp_error* err);
/* Writes the secret key to `path` (mode 0600, never overwriting) and its public key in
 * hex to `path`.pub. */
BP_API int bp_key_save(const bp_key* key, const char* path, bp_error* err);
BP_API void bp_key_public(const bp_key* key, uint8_t public_key[32]);
/* 64 lowercase hex characters and a NUL. */
BP_API void bp_key_public_hex(const bp_key* key, char hex[65]);
/* Wipes the secret key and frees. Accepts NULL. */
BP_API void bp_key_free(bp_key* key);

/* ---- range proofs ---------------------------------------------------------------- */

/* A fresh random blinding (a canonical scalar, from libsodium's generator). */
BP_API void bp_blinding_random(uint8_t blinding[32]);

/* Proves that each of the m values is below 2^n (n in 8, 16, 32, 64; m a power of two,
 * at most 64), with the blindings given (m × 32 bytes, canonical scalars), under the
 * transcript label. Writes the m commitments (m × 32 bytes) and returns the proof in
 * *proof (free with bp_bytes_free), *proof_len bytes. m = 1 is a single proof. */
BP_API int bp_prove(const uint64_t* values, const uint8_t* blindings, size_t m, size_t n, const char* label,
                    uint8_t* commitments_out, uint8_t** proof, size_t* proof_len, bp_error* err);

/* BP_OK if the proof shows the m commitments (m × 32 bytes) open to values below 2^n under
 * the label; BP_ERR_VERIFY_FAILED if not; BP_ERR_INVALID_ARGUMENT if it cannot be parsed. */
BP_API int bp_verify(const uint8_t* proof, size_t proof_len, const uint8_t* commitments, size_t m, size_t n,
                     const char* label, bp_error* err);

typedef struct bp_batch_item {
  size_t size; /* sizeof(bp_batch_item) */
  const uint8_t* proof;
  size_t proof_len;
  const uint8_t* commitments; /* m × 32 bytes */
  size_t m;
  size_t n;
  const char* label;
} bp_batch_item;

/* Verifies `count` proofs at once. BP_OK when all verify; BP_ERR_VERIFY_FAILED when some
 * do not, with their indices (ascending) in failed[0..*failed_count) (failed has room for
 * `count`); a proof that cannot be parsed counts as failed. */
BP_API int bp_verify_batch(const bp_batch_item* items, size_t count, size_t* failed, size_t* failed_count,
                           bp_error* err);

/* ---- constraint-system proofs (docs/r1cs.md) --------------------------------------- */

/* ABI 0.4: proves a gadget list ("shuffle:3;range:32", as `bp r1cs` reads it) over `count`
 * values (as many as the list takes commitments) with their blindings (count × 32 bytes,
 * canonical; NULL: random ones), under the transcript label. Writes the count commitments
 * (count × 32 bytes) and returns the proof in *proof (free with bp_bytes_free), *proof_len
 * bytes. BP_ERR_INVALID_ARGUMENT for a bad list, count or blinding; BP_ERR_REFUSED when a
 * gadget refuses the values (geq with a < b). A false statement otherwise gives a proof that
 * does not verify. */
BP_API int bp_r1cs_prove(const char* gadgets, const uint64_t* values, size_t count, const uint8_t* blindings,
                         const char* label, uint8_t* commitments_out, uint8_t** proof, size_t* proof_len,
                         bp_error* err);

/* ABI 0.4: BP_OK if the proof shows the gadget list holds over the count commitments (count
 * × 32 bytes) under the label; BP_ERR_VERIFY_FAILED if not; BP_ERR_INVALID_ARGUMENT for a bad
 * list or count, or bytes that are not a proof. */
BP_API int bp_r1cs_verify(const char* gadgets, const uint8_t* commitments, size_t count, const uint8_t* proof,
                          size_t proof_len, const char* label, bp_error* err);

/* ---- sessions against a bp-dealer ------------------------------------------------- */

/* ABI 0.7: what a join does as it does it, for a backend's logs and metrics. The callback
 * runs on libbp's thread; `event` and its `detail` are valid during the call only. */
typedef enum bp_event_kind {
  BP_EVENT_CONNECTING = 0,   /* a connection to the dealer; attempt: its count in this outage */
  BP_EVENT_JOINED = 1,       /* seated; position: our first */
  BP_EVENT_RESUMED = 2,      /* back in our seat after a reconnection */
  BP_EVENT_ANSWERED = 3,     /* a round's challenge answered; round: which */
  BP_EVENT_REPLAYED = 4,     /* our last answer sent again after a reconnection */
  BP_EVENT_RECONNECTING = 5, /* the connection dropped or the session moved; detail: why, delay_ms: the wait */
  BP_EVENT_GAVE_UP = 6,      /* the reconnect policy is spent; detail: the last error */
  BP_EVENT_DONE = 7          /* the join ended; detail: "ok" or the error */
} bp_event_kind;
typedef struct bp_event {
  int kind; /* a bp_event_kind */
  size_t attempt;
  size_t position;
  int round;
  uint32_t delay_ms;
  const char* detail; /* NUL-terminated; "" when there is nothing to say */
} bp_event;
typedef void (*bp_event_callback)(void* user, const bp_event* event);

typedef struct bp_client_options {
  size_t size;               /* sizeof(bp_client_options) */
  uint32_t timeout_ms;       /* the whole exchange, every reconnection included; 0: 120000 */
  const char* ca_file;       /* wss://: PEM CA the dealer's certificate must chain to; NULL: system CAs */
  const bp_key* identity;    /* signs the join or the session request; NULL: anonymous */
  const uint8_t* dealer_key; /* 32 bytes: refuse a dealer with any other key; NULL: any */
  /* Connections a join makes per outage (a drop, or the dealer moving the session to another
   * replica: it joins again with its seat's token); 0: never reconnect; < 0: the default (20). */
  int reconnect_attempts;
  /* ABI 0.2 (a 0.1 caller's smaller struct is still accepted): the rest of the reconnect
   * policy and the ping deadline, see docs/embedding.md; 0 for any: its default. */
  uint32_t reconnect_first_delay_ms;   /* before the first reconnection, doubling after; 0: 200 */
  uint32_t reconnect_max_delay_ms;     /* 0: 5000 */
  uint32_t reconnect_give_up_after_ms; /* an outage longer than this ends the join (BP_ERR_UNAVAILABLE); 0: 60000 */
  uint32_t idle_timeout_ms;            /* a dealer that answers no ping for this long is left; 0: 15000 */
  /* ABI 0.7 (an older caller's smaller struct is still accepted): the join's events, NULL for
   * none; event_user is the callback's first argument. */
  bp_event_callback on_event;
  void* event_user;
  /* ABI 0.8: a join's own minimum of parties in its session (an anonymity set): a seat in a
   * session of fewer, or from a dealer before wire 1.7 that does not say, is refused before
   * committing (BP_ERR_REFUSED, the same whatever the values). 0: any. */
  uint32_t min_session_parties;
} bp_client_options;

/* Fills *options with the defaults (size set). */
BP_API void bp_client_options_init(bp_client_options* options);

/* ABI 0.3: public bounds on a committed value: v >= min, and v <= max when has_max (max -
 * min below 2^bits). A value with both ends takes two positions of a session. */
typedef struct bp_value_bounds {
  uint64_t min;
  uint64_t max;
  int has_max;
} bp_value_bounds;

typedef struct bp_session_request {
  size_t size;                    /* sizeof(bp_session_request) */
  size_t bits;                    /* n */
  size_t parties;                 /* parties (seats) */
  const char* label;              /* NULL: "bp" */
  uint32_t round_timeout_ms;      /* 0: the dealer's default */
  const char* session_id;         /* 32 lowercase hex to propose; NULL: a random one */
  const uint8_t* allowed_parties; /* parties × 32 bytes, the parties' keys in seat order; NULL: anonymous */
  /* ABI 0.3 (a 0.2 caller's smaller struct is still accepted; wire 1.4 dealers only): */
  const uint32_t* values_per_party; /* `parties` counts, the values each brings; NULL: one each */
  const bp_value_bounds* bounds;    /* bounds_count bounds, one per value in party order; NULL: none */
  size_t bounds_count;
  /* ABI 0.6 (wire 1.5 dealers only): a gadget session instead, one gadget per seat in seat
   * order as bp r1cs reads a list ("shuffle:3;range:32;range:32"); `parties` must be its
   * number of items, and bits, values_per_party and bounds are not used. NULL: ranges. */
  const char* gadgets;
  /* ABI 0.8 (wire 1.7 dealers only; an older one refuses): a quorum. The session starts with
   * the parties present once every listed party has joined, or once join_window_ms (0: the
   * round timeout) ends with at least min_parties of them; fewer: it aborts. 0: every party. */
  uint32_t min_parties;
  uint32_t join_window_ms;
  /* ABI 0.8: nonzero: a gadget session with a quorum may go on without the parties it
   * blames, its list without their items (the statement changes). */
  int gadget_successors;
} bp_session_request;

BP_API void bp_session_request_init(bp_session_request* request);

/* Opens a session (as an operator: options->identity signs it). Writes its id, 32 hex
 * characters and a NUL, to session_id_out. dealer_url: ws://HOST:PORT or wss://HOST:PORT. */
BP_API int bp_create_session(const char* dealer_url, const bp_session_request* request,
                             const bp_client_options* options, char session_id_out[33], bp_error* err);

typedef struct bp_join_result bp_join_result;

/* Joins the session with a value and its blinding (32 bytes, canonical; NULL: a random
 * one), stating it below 2^64 with no bounds (bp_join_values_and_prove states others: a
 * seat of other terms is refused before committing), runs the protocol and returns the
 * aggregated proof, checked, with the dealer's signature checked too. Blocks until done,
 * at most options->timeout_ms in all. Free the result with bp_join_result_free. */
BP_API int bp_join_and_prove(const char* dealer_url, const char* session_id, uint64_t value, const uint8_t* blinding,
                             const bp_client_options* options, bp_join_result** out, bp_error* err);

/* ABI 0.3: several values in one seat (one message per round for all of them). `values`
 * holds count values; blindings count × 32 bytes (canonical; NULL: random ones). The party
 * states what it proves: each value below 2^bits, or, with bounds, the count bounds given
 * (a minimum alone: v in [min, min + 2^bits)). A seat of another bit size, count or bounds,
 * or a transcript label that is not this session's, is refused before anything about the
 * values is sent (BP_ERR_REFUSED, or BP_ERR_MALICIOUS_DEALER for a label), with the same
 * answer whatever the values are; a value outside the statement is refused (BP_ERR_REFUSED)
 * before connecting. The library wipes its copies of values and blindings. */
typedef struct bp_join_values {
  size_t size; /* sizeof(bp_join_values) */
  const uint64_t* values;
  size_t count;
  const uint8_t* blindings;
  const bp_value_bounds* bounds;
  /* ABI 0.4 (a 0.3 caller's smaller struct is still accepted, and states 64): the bit size
   * the party proves, 8, 16, 32 or 64; 0: 64. */
  size_t bits;
} bp_join_values;

BP_API void bp_join_values_init(bp_join_values* values);
BP_API int bp_join_values_and_prove(const char* dealer_url, const char* session_id, const bp_join_values* values,
                                    const bp_client_options* options, bp_join_result** out, bp_error* err);

/* ABI 0.6: proves one gadget (one list item: "range:32", "shuffle:3", "member:1|5|10", ...)
 * over `count` values, one per commitment of the gadget in its order, with their blindings
 * (count × 32 bytes, canonical; NULL: random ones), in a gadget session's seat of that
 * gadget. Values that do not satisfy the gadget are refused before connecting
 * (BP_ERR_REFUSED); a seat of another gadget, or a label not this session's over its list,
 * before anything is committed, the same whatever the values are. The result is one R1CS
 * proof of the session's list, checked: it verifies, holds our commitments in our seat, and
 * is signed by the dealer. The library wipes its copies of values and blindings. */
typedef struct bp_join_gadget {
  size_t size; /* sizeof(bp_join_gadget) */
  const char* gadget;
  const uint64_t* values;
  size_t count;
  const uint8_t* blindings;
} bp_join_gadget;

BP_API void bp_join_gadget_init(bp_join_gadget* gadget);
BP_API int bp_join_gadget_and_prove(const char* dealer_url, const char* session_id, const bp_join_gadget* gadget,
                                    const bp_client_options* options, bp_join_result** out, bp_error* err);

/* The result: the same JSON line `bp-party join` prints; and its parts. A gadget session's
 * result: its position is the seat, position_count 1, bits 0, and the proof R1CS bytes. */
BP_API const char* bp_join_result_json(const bp_join_result* result);
BP_API size_t bp_join_result_position(const bp_join_result* result);       /* the first of ours */
BP_API size_t bp_join_result_position_count(const bp_join_result* result); /* ABI 0.3: how many were ours */
BP_API size_t bp_join_result_positions(const bp_join_result* result);      /* ABI 0.5: m, the proof's positions */
/* The name of bp_join_result_positions before ABI 0.5 (it counts positions, not parties). */
BP_API size_t bp_join_result_parties(const bp_join_result* result);
BP_API size_t bp_join_result_bits(const bp_join_result* result);       /* n */
BP_API const char* bp_join_result_label(const bp_join_result* result); /* the transcript label */
/* Commitments: m × 32 bytes. Proof: *len bytes. Signature: 64 bytes. Owned by the result. */
BP_API const uint8_t* bp_join_result_commitments(const bp_join_result* result);
BP_API const uint8_t* bp_join_result_proof(const bp_join_result* result, size_t* len);
BP_API const uint8_t* bp_join_result_dealer_signature(const bp_join_result* result);
/* ABI 0.6: how many 32-byte commitments bp_join_result_commitments holds (a range
 * session's positions; a gadget session's commitments of every seat), and a gadget
 * session's list (NULL for a range session). */
BP_API size_t bp_join_result_commitment_count(const bp_join_result* result);
BP_API const char* bp_join_result_gadgets(const bp_join_result* result);
BP_API void bp_join_result_free(bp_join_result* result);

/* The background form: returns at once; `done` is called exactly once, from a library
 * thread, with BP_OK and the result (the callee owns it: free with bp_join_result_free) or
 * an error kind, the error (valid during the call only) and NULL. */
typedef void (*bp_join_callback)(void* user, int status, bp_join_result* result, const bp_error* err);
typedef struct bp_join_handle bp_join_handle;

BP_API int bp_join_start(const char* dealer_url, const char* session_id, uint64_t value, const uint8_t* blinding,
                         const bp_client_options* options, bp_join_callback done, void* user, bp_join_handle** out,
                         bp_error* err);
/* Asks the join to stop: its connection is closed and `done` gets BP_ERR_CANCELLED (unless
 * it already finished). Returns at once; safe from any thread, and from `done` itself. */
BP_API void bp_join_cancel(bp_join_handle* handle);
/* ABI 0.3: the background form of bp_join_values_and_prove. */
BP_API int bp_join_values_start(const char* dealer_url, const char* session_id, const bp_join_values* values,
                                const bp_client_options* options, bp_join_callback done, void* user,
                                bp_join_handle** out, bp_error* err);
/* ABI 0.6: the background form of bp_join_gadget_and_prove. */
BP_API int bp_join_gadget_start(const char* dealer_url, const char* session_id, const bp_join_gadget* gadget,
                                const bp_client_options* options, bp_join_callback done, void* user,
                                bp_join_handle** out, bp_error* err);
/* Waits until `done` has returned, then frees the handle. Accepts NULL. Not from `done`. */
BP_API void bp_join_handle_free(bp_join_handle* handle);

#ifdef __cplusplus
}
#endif

#endif /* BP_BP_H */
