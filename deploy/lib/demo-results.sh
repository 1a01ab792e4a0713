# shellcheck shell=bash
# Checks shared by the demos that run the compose scripts (deploy/netns-demo.sh,
# deploy/container-demo.sh): the four parties' printed results, and the proof with its
# signature given to `bp verify`. Sourced; each function fails with a message.

# same_result FILE...: every file holds the same result JSON but for the party's position.
same_result() {
  local first=$1 f
  shift
  for f in "$@"; do
    [ "$(sed -E 's/,"position":[0-9]+//' "$f")" = "$(sed -E 's/,"position":[0-9]+//' "$first")" ] ||
      { echo "error: $f holds a different result from $first" >&2; return 1; }
  done
  grep -q '"proof":"[0-9a-f]\{100,\}"' "$first" || { echo "error: $first holds no proof" >&2; return 1; }
}

# verify_result FILE SESSION DEALER_KEY_PUB BP...: runs `BP... verify` on FILE's proof,
# commitments and the dealer's signature (BP... is how to run bp: a path, or a container).
verify_result() {
  local json session=$2 dealer_key=$3 commitments label proof signature
  json=$(cat "$1")
  shift 3
  commitments=$(sed -E 's/.*"commitments":\[([^]]*)\].*/\1/; s/"//g' <<<"$json")
  label=$(sed -E 's/.*"label":"([^"]*)".*/\1/' <<<"$json")
  proof=$(sed -E 's/.*"proof":"([^"]*)".*/\1/' <<<"$json")
  signature=$(sed -E 's/.*"dealer_signature":"([^"]*)".*/\1/' <<<"$json")
  "$@" verify --bits 64 --commitments "$commitments" --proof "$proof" --label "$label" \
    --session "$session" --dealer-key "$dealer_key" --signature "$signature"
}

# record_matches RECORD RESULT: the record's JSON (GET /v1/sessions/ID) says completed and
# holds the proof and commitments of a party's result JSON.
record_matches() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
record, result = (json.load(open(path)) for path in sys.argv[1:3])
same = record.get("status") == "completed" and all(record.get(k) == result[k] for k in ("proof", "commitments"))
if not same:
    print(f"error: the record {sys.argv[1]} does not hold the result {sys.argv[2]}: {record}", file=sys.stderr)
sys.exit(0 if same else 1)
PY
}
