/* libbp's C ABI from C (compiled as C99, so the header is C): keys, proofs, errors, many
 * threads at once, and a background join cancelled while the dealer never answers. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bp/bp.h"

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void test_keys(void) {
  bp_error err;
  bp_key* key = NULL;
  CHECK(bp_key_generate(&key, &err) == BP_OK);
  char dir[] = "/tmp/bp-c-abi-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[128];
  snprintf(path, sizeof path, "%s/party.key", dir);
  CHECK(bp_key_save(key, path, &err) == BP_OK);
  CHECK(bp_key_save(key, path, &err) == BP_ERR_INVALID_ARGUMENT); /* never overwrites */
  bp_key* loaded = NULL;
  CHECK(bp_key_load(path, &loaded, &err) == BP_OK);
  uint8_t a[32], b[32];
  bp_key_public(key, a);
  bp_key_public(loaded, b);
  CHECK(memcmp(a, b, 32) == 0);
  char hex[65];
  bp_key_public_hex(loaded, hex);
  CHECK(strlen(hex) == 64);
  char pub[160];
  snprintf(pub, sizeof pub, "%s.pub", path);
  FILE* f = fopen(pub, "r");
  char line[80] = {0};
  CHECK(f != NULL && fgets(line, sizeof line, f) != NULL);
  if (f) fclose(f);
  CHECK(strncmp(line, hex, 64) == 0);
  /* A key file others may read is refused, as by bp-party. */
  CHECK(chmod(path, 0644) == 0);
  bp_key* refused = NULL;
  CHECK(bp_key_load(path, &refused, &err) == BP_ERR_INVALID_ARGUMENT && refused == NULL);
  CHECK(strlen(err.message) > 0);
  CHECK(bp_key_load("/nonexistent/key", &refused, &err) == BP_ERR_INVALID_ARGUMENT);
  bp_key_free(key);
  bp_key_free(loaded);
  bp_key_free(NULL);
  unlink(path);
  unlink(pub);
  rmdir(dir);
}

/* ABI 0.4: a gadget list's constraint-system proof, made and checked from C. */
static void test_r1cs(void) {
  bp_error err;
  const char* list = "shuffle:2;range:16;geq:8";
  uint64_t values[7] = {7, 9, 9, 7, 65535, 200, 100};
  uint8_t commitments[7 * 32];
  uint8_t* proof = NULL;
  size_t len = 0;
  CHECK(bp_r1cs_prove(list, values, 7, NULL, "c r1cs", commitments, &proof, &len, &err) == BP_OK);
  CHECK(len == 1 + 32 * (16 + 2 * 5)); /* two phases, 2 + 16 + 8 multipliers: N = 32 */
  CHECK(bp_r1cs_verify(list, commitments, 7, proof, len, "c r1cs", &err) == BP_OK);
  CHECK(bp_r1cs_verify(list, commitments, 7, proof, len, "another", &err) == BP_ERR_VERIFY_FAILED);
  CHECK(bp_r1cs_verify("shuffle:2;range:16;geq:9", commitments, 7, proof, len, "c r1cs", &err) == BP_ERR_VERIFY_FAILED);
  CHECK(bp_r1cs_verify(list, commitments, 6, proof, len, "c r1cs", &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_r1cs_verify(list, commitments, 7, proof, len - 1, "c r1cs", &err) == BP_ERR_INVALID_ARGUMENT);
  bp_bytes_free(proof);
  uint8_t* none = NULL;
  CHECK(bp_r1cs_prove("range:65", values, 1, NULL, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "range:65") != NULL);
  uint64_t below[2] = {3, 7}; /* a >= b is false: the prover refuses */
  CHECK(bp_r1cs_prove("geq:8", below, 2, NULL, "x", commitments, &none, &len, &err) == BP_ERR_REFUSED);
  const uint64_t over[] = {256}; /* not below 2^8: refused, not proved */
  CHECK(bp_r1cs_prove("range:8", over, 1, NULL, "x", commitments, &none, &len, &err) == BP_ERR_REFUSED);
  CHECK(none == NULL);
  CHECK(none == NULL);
}

static void test_proofs(void) {
  bp_error err;
  uint64_t values[4] = {0, 1, 42424242, UINT64_MAX};
  uint8_t blindings[4 * 32];
  for (int j = 0; j < 4; ++j) bp_blinding_random(blindings + 32 * j);
  uint8_t commitments[4 * 32];
  uint8_t* proof = NULL;
  size_t len = 0;
  CHECK(bp_prove(values, blindings, 4, 64, "c abi", commitments, &proof, &len, &err) == BP_OK);
  CHECK(len == 32 * (9 + 2 * 8));
  CHECK(bp_verify(proof, len, commitments, 4, 64, "c abi", &err) == BP_OK);
  CHECK(bp_verify(proof, len, commitments, 4, 64, "another label", &err) == BP_ERR_VERIFY_FAILED);
  CHECK(bp_verify(proof, len - 32, commitments, 4, 64, "c abi", &err) == BP_ERR_INVALID_ARGUMENT);
  /* Batch: the good proof, then the same with commitments swapped, then garbage. */
  uint8_t swapped[4 * 32];
  memcpy(swapped, commitments + 32, 32);
  memcpy(swapped + 32, commitments, 32);
  memcpy(swapped + 64, commitments + 64, 64);
  uint8_t garbage[100] = {1};
  bp_batch_item items[3] = {{sizeof(bp_batch_item), proof, len, commitments, 4, 64, "c abi"},
                            {sizeof(bp_batch_item), proof, len, swapped, 4, 64, "c abi"},
                            {sizeof(bp_batch_item), garbage, sizeof garbage, commitments, 4, 64, "c abi"}};
  size_t failed[3], failed_count = 99;
  CHECK(bp_verify_batch(items, 1, failed, &failed_count, &err) == BP_OK && failed_count == 0);
  CHECK(bp_verify_batch(items, 3, failed, &failed_count, &err) == BP_ERR_VERIFY_FAILED);
  CHECK(failed_count == 2 && failed[0] == 1 && failed[1] == 2);
  bp_bytes_free(proof);

  /* Bad input: a clear error, never a crash. */
  uint8_t* none = NULL;
  CHECK(bp_prove(values, blindings, 3, 64, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_prove(values, blindings, 1, 12, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  uint8_t big[32];
  memset(big, 0xff, 32);
  CHECK(bp_prove(values, big, 1, 64, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "canonical") != NULL);
  uint64_t too_big = 256;
  CHECK(bp_prove(&too_big, blindings, 1, 8, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_prove(NULL, blindings, 1, 64, "x", commitments, &none, &len, &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_prove(values, blindings, 3, 64, "x", commitments, &none, &len, NULL) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_verify(NULL, 0, commitments, 1, 64, "x", &err) == BP_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_MALICIOUS_DEALER), "malicious dealer") == 0);
  CHECK(bp_abi_version() == BP_ABI_MAJOR * 1000 + BP_ABI_MINOR);
  /* ABI 0.5 renamed the proof's position count; the old name answers the same. */
  CHECK(bp_join_result_positions(NULL) == 0 && bp_join_result_parties(NULL) == 0);
}

/* Many threads proving and verifying at once, sharing one key. */
static bp_key* shared_key;
static void* prove_many(void* arg) {
  long* bad = arg;
  for (int i = 0; i < 6; ++i) {
    uint64_t value = (uint64_t)i * 1000003u;
    uint8_t blinding[32], commitment[32];
    bp_blinding_random(blinding);
    uint8_t* proof = NULL;
    size_t len = 0;
    bp_error err;
    if (bp_prove(&value, blinding, 1, 32, "threads", commitment, &proof, &len, &err) != BP_OK ||
        bp_verify(proof, len, commitment, 1, 32, "threads", &err) != BP_OK)
      ++*bad;
    uint8_t pk[32];
    bp_key_public(shared_key, pk);
    bp_bytes_free(proof);
  }
  return NULL;
}

static void test_threads(void) {
  enum { kThreads = 8 };
  pthread_t threads[kThreads];
  long bad[kThreads] = {0};
  CHECK(bp_key_generate(&shared_key, NULL) == BP_OK);
  for (int t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, prove_many, &bad[t]);
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(bad[t] == 0);
  }
  bp_key_free(shared_key);
}

/* A background join to a "dealer" that accepts TCP and never answers: cancel ends it. */
/* ABI 0.7: the kinds of a join's events, in order, and the last one's detail. */
typedef struct event_log {
  int kinds[64];
  size_t count;
  char last_detail[256];
} event_log;
static void on_event(void* user, const bp_event* event) {
  event_log* log = (event_log*)user;
  if (log->count < 64) log->kinds[log->count++] = event->kind;
  snprintf(log->last_detail, sizeof log->last_detail, "%s", event->detail);
}

static pthread_mutex_t done_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done_calls = 0, done_status = -1;
static void on_done(void* user, int status, bp_join_result* result, const bp_error* err) {
  (void)user;
  (void)err;
  bp_join_result_free(result);
  pthread_mutex_lock(&done_mutex);
  ++done_calls;
  done_status = status;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&done_mutex);
}

static void test_cancel(void) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t addr_len = sizeof addr;
  CHECK(bind(listener, (struct sockaddr*)&addr, sizeof addr) == 0 && listen(listener, 4) == 0);
  CHECK(getsockname(listener, (struct sockaddr*)&addr, &addr_len) == 0);
  char url[64];
  snprintf(url, sizeof url, "ws://127.0.0.1:%u", (unsigned)ntohs(addr.sin_port));
  bp_join_handle* handle = NULL;
  bp_error err;
  CHECK(bp_join_start(url, "00112233445566778899aabbccddeeff", 7, NULL, NULL, on_done, NULL, &handle, &err) == BP_OK);
  struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
  pthread_mutex_lock(&done_mutex);
  CHECK(done_calls == 0); /* still waiting for the dealer */
  pthread_mutex_unlock(&done_mutex);
  bp_join_cancel(handle);
  bp_join_handle_free(handle); /* waits for on_done */
  CHECK(done_calls == 1 && done_status == BP_ERR_CANCELLED);
  /* Bad arguments come back at once, not through the callback. */
  CHECK(bp_join_start("http://x", "00", 1, NULL, NULL, on_done, NULL, &handle, &err) == BP_ERR_INVALID_ARGUMENT);
  bp_client_options bad_size;
  bp_client_options_init(&bad_size);
  bad_size.size = 3;
  bp_join_result* result = NULL;
  CHECK(bp_join_and_prove(url, "00", 1, NULL, &bad_size, &result, &err) == BP_ERR_INVALID_ARGUMENT);
  close(listener);
  /* Nobody listens now: with reconnection off, a transport error, blocking form. */
  bp_client_options options;
  bp_client_options_init(&options);
  options.timeout_ms = 5000;
  options.reconnect_attempts = 0;
  CHECK(bp_join_and_prove(url, "00112233445566778899aabbccddeeff", 1, NULL, &options, &result, &err) ==
        BP_ERR_TRANSPORT);
  CHECK(err.kind == BP_ERR_TRANSPORT && strstr(err.message, "transport") != NULL);
  CHECK(result == NULL);
  /* With the policy: two more connections 20 ms apart, then "unavailable" naming the cause. */
  options.reconnect_attempts = 2;
  options.reconnect_first_delay_ms = 20;
  options.reconnect_max_delay_ms = 20;
  event_log events = {{0}, 0, {0}};
  options.on_event = on_event;
  options.event_user = &events;
  CHECK(bp_join_and_prove(url, "00112233445566778899aabbccddeeff", 1, NULL, &options, &result, &err) ==
        BP_ERR_UNAVAILABLE);
  /* Its events: a connection, then per reconnection a wait and a connection, then giving up
   * and the end, which says why. */
  CHECK(events.count == 7);
  CHECK(events.kinds[0] == BP_EVENT_CONNECTING && events.kinds[1] == BP_EVENT_RECONNECTING &&
        events.kinds[2] == BP_EVENT_CONNECTING && events.kinds[3] == BP_EVENT_RECONNECTING &&
        events.kinds[4] == BP_EVENT_CONNECTING && events.kinds[5] == BP_EVENT_GAVE_UP &&
        events.kinds[6] == BP_EVENT_DONE);
  CHECK(strstr(events.last_detail, "gave up after 2 reconnections") != NULL);
  /* A 0.6 caller's struct ends before the callback: accepted, no events. */
  options.size = offsetof(bp_client_options, on_event);
  events.count = 0;
  CHECK(bp_join_and_prove(url, "00112233445566778899aabbccddeeff", 1, NULL, &options, &result, &err) ==
        BP_ERR_UNAVAILABLE);
  CHECK(events.count == 0);
  options.size = sizeof options;
  CHECK(strstr(err.message, "gave up after 2 reconnections") != NULL && strstr(err.message, "connect") != NULL);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_UNAVAILABLE), "unavailable") == 0);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_NOT_ALLOWED), "not allowed") == 0);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_NO_SUCH_SESSION), "no such session") == 0);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_OVER_LIMIT), "over limit") == 0);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_RATE_LIMITED), "rate limited") == 0);
  CHECK(strcmp(bp_error_kind_name(BP_ERR_RATE_LIMITED + 1), "unknown") == 0);
  /* A caller built against ABI 0.1 passes the smaller struct: still accepted. */
  bp_client_options old;
  bp_client_options_init(&old);
  old.size = offsetof(bp_client_options, reconnect_first_delay_ms);
  old.reconnect_attempts = 0;
  CHECK(bp_join_and_prove(url, "00112233445566778899aabbccddeeff", 1, NULL, &old, &result, &err) == BP_ERR_TRANSPORT);
  /* ABI 0.4: the statement's bit size. A value over it is refused before connecting; a bit
   * size that is none of 8, 16, 32, 64 is a bad argument; a 0.3 struct states 64. */
  uint64_t value = 300;
  bp_join_values values;
  bp_join_values_init(&values);
  values.values = &value;
  values.count = 1;
  values.bits = 8;
  CHECK(bp_join_values_and_prove(url, "00112233445566778899aabbccddeeff", &values, &old, &result, &err) ==
        BP_ERR_REFUSED);
  CHECK(strstr(err.message, "not below 2^8") != NULL);
  values.bits = 7;
  CHECK(bp_join_values_and_prove(url, "00112233445566778899aabbccddeeff", &values, &old, &result, &err) ==
        BP_ERR_INVALID_ARGUMENT);
  values.size = offsetof(bp_join_values, bits);
  CHECK(bp_join_values_and_prove(url, "00112233445566778899aabbccddeeff", &values, &old, &result, &err) ==
        BP_ERR_TRANSPORT);
}

int main(void) {
  test_keys();
  test_proofs();
  test_r1cs();
  test_threads();
  test_cancel();
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("C ABI: all checks passed\n");
  return 0;
}
