# shellcheck shell=bash
# The four-language gadget parties that mixed_session.sh and rolling_restart.sh seat, and the
# checks of what they print. Sourced; the caller sets BUILD, root and python, and has built
# the Go example as WORK/go-party and written WORK/p0.key .. p3.key.
# shellcheck disable=SC2154  # BUILD, root and python are the sourcing script's

# start_gadget_parties URL SESSION DEALER_KEY WORK OUT: seats 0 to 3 of a session whose list
# begins "shuffle:2;range:32;range:64;example:9", proved by bp-party (C++), the C example,
# Python's and Go's examples, each with its binding's defaults; seat i prints to OUTi and
# WORK/ei. Appends their process ids to gadget_pids.
start_gadget_parties() {
  local url=$1 session=$2 dealer_key=$3 work=$4 out=$5
  "$BUILD/client/bp-party" join --dealer "$url" --session "$session" --gadget shuffle:2 --value 3,9,9,3 \
    --key "$work/p0.key" --dealer-key "$dealer_key" >"${out}0" 2>"$work/e0" &
  gadget_pids+=($!)
  "$BUILD/bindings/c/example_gadget_party" "$url" "$session" range:32 77 "$work/p1.key" "$dealer_key" \
    >"${out}1" 2>"$work/e1" &
  gadget_pids+=($!)
  "$python" "$root/bindings/python/examples/party.py" "$url" "$session" "range:64=18446744073709551615" \
    "$work/p2.key" "$dealer_key" >"${out}2" 2>"$work/e2" &
  gadget_pids+=($!)
  "$work/go-party" "$url" "$session" "example:9=1,2,3,4,12" "$work/p3.key" "$dealer_key" >"${out}3" 2>"$work/e3" &
  gadget_pids+=($!)
}

# same_gadget_results FILE...: every party printed the same result but for its seat, and the
# seats are 0, 1, ... in the files' order.
same_gadget_results() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
results = [json.load(open(path)) for path in sys.argv[1:]]
strip = lambda r: {k: v for k, v in r.items() if k != "seat"}
assert all(strip(r) == strip(results[0]) for r in results), "the parties printed different results"
assert [r["seat"] for r in results] == list(range(len(results))), [r["seat"] for r in results]
PY
}

# verify_gadget_result FILE SESSION DEALER_PUB_FILE: bp r1cs verify of a printed result, with
# the dealer's signature.
verify_gadget_result() {
  local json
  json=$(cat "$1")
  gadget_field() {
    /usr/bin/python3 -c "import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(','.join(v) if isinstance(v, list) else v)" "$json" "$1"
  }
  "$BUILD/tools/bp" r1cs verify --gadgets "$(gadget_field gadgets)" --commitments "$(gadget_field commitments)" \
    --proof "$(gadget_field proof)" --label "$(gadget_field label)" --session "$2" --dealer-key "$3" \
    --signature "$(gadget_field dealer_signature)"
}
