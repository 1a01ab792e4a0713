/* One party of a gadget session, from C through libbp: prove a gadget over its values with
 * a key, print the result line (the one `bp-party join --gadget` prints).
 *
 *   gadget_party DEALER_URL SESSION_ID GADGET V1,V2,... KEY_FILE DEALER_KEY_HEX
 */
#include <bp/bp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_key(const char* hex, uint8_t out[32]) {
  if (strlen(hex) != 64) return 0;
  for (int i = 0; i < 32; ++i)
    if (sscanf(hex + 2 * i, "%2" SCNx8, &out[i]) != 1) return 0;
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: gadget_party DEALER_URL SESSION_ID GADGET V1,V2,... KEY_FILE DEALER_KEY_HEX\n");
    return 64;
  }
  uint64_t values[64];
  size_t count = 0;
  for (char* text = strtok(argv[4], ","); text != NULL && count < 64; text = strtok(NULL, ","))
    values[count++] = strtoull(text, NULL, 10);
  uint8_t dealer_key[32];
  if (!parse_key(argv[6], dealer_key)) {
    fprintf(stderr, "bad dealer key\n");
    return 64;
  }
  bp_error err;
  bp_key* key = NULL;
  if (bp_key_load(argv[5], &key, &err) != BP_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  bp_client_options options;
  bp_client_options_init(&options);
  options.identity = key;
  options.dealer_key = dealer_key;
  options.timeout_ms = 60000;
  bp_join_gadget gadget;
  bp_join_gadget_init(&gadget);
  gadget.gadget = argv[3];
  gadget.values = values;
  gadget.count = count; /* blindings NULL: random ones */
  bp_join_result* result = NULL;
  const int status = bp_join_gadget_and_prove(argv[1], argv[2], &gadget, &options, &result, &err);
  memset(values, 0, sizeof values);
  bp_key_free(key);
  if (status != BP_OK) {
    fprintf(stderr, "%s: %s\n", bp_error_kind_name(status), err.message);
    return status == BP_ERR_ABORTED ? 2 : 1;
  }
  /* The result is checked already; a verifier elsewhere checks it the same way. */
  size_t proof_len = 0;
  const uint8_t* proof = bp_join_result_proof(result, &proof_len);
  const int verified =
      bp_r1cs_verify(bp_join_result_gadgets(result), bp_join_result_commitments(result),
                     bp_join_result_commitment_count(result), proof, proof_len, bp_join_result_label(result), &err);
  if (verified == BP_OK) printf("%s\n", bp_join_result_json(result));
  bp_join_result_free(result);
  return verified == BP_OK ? 0 : 1;
}
