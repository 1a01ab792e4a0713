# shellcheck shell=bash
# A bp-dealer on a loopback port with an operator key and a dealer key, for the tests that
# run real clients against it. Sourced.
# start_keyed_dealer BUILD WORK NAME...: writes WORK/{operator,dealer,NAME...}.key (and
# .pub), starts the dealer and sets dealer_pid, url (ws://127.0.0.1:PORT) and dealer_key
# (hex); the caller kills dealer_pid when done.
# shellcheck disable=SC2034  # dealer_pid, url and dealer_key are for the sourcing script
start_keyed_dealer() {
  local build=$1 work=$2 name
  shift 2
  for name in operator dealer "$@"; do "$build/client/bp-party" keygen --out "$work/$name.key" >/dev/null; done
  "$build/server/bp-dealer" --listen 127.0.0.1:0 --operator-key "$work/operator.key.pub" \
    --dealer-key "$work/dealer.key" >"$work/dealer.out" 2>"$work/dealer.log" &
  dealer_pid=$!
  for _ in $(seq 100); do grep -q listening "$work/dealer.out" 2>/dev/null && break; sleep 0.1; done
  url="ws://127.0.0.1:$(sed -E 's/.*:([0-9]+)$/\1/' "$work/dealer.out")"
  dealer_key=$(cat "$work/dealer.key.pub")
}
