#!/usr/bin/env bash
# docs/embedding.md's batch example (client/examples/prove_balances.cpp) against a real
# bp-dealer on loopback with keys: an exchange proves three balances within [100, 10^6] in
# one seat beside a bp-party holding one; a balance outside the bounds is refused before
# anything is sent and the session goes on; bp verify accepts the result with its bounds
# and the dealer's signature, and refuses it without the bounds or with other bounds.
#   tests/integration/prove_balances.sh BUILD
set -euo pipefail
BUILD=$(cd "$1" && pwd)
# shellcheck source=tests/lib/keyed_dealer.sh
. "$(dirname "$0")/../lib/keyed_dealer.sh"
work=$(mktemp -d)
dealer_pid=
cleanup() {
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"; [ -z "${KEEP:-}" ] || echo "kept $work"
}
trap cleanup EXIT
fail() { echo "error: $*" >&2; exit 1; }
party_bin="$BUILD/client/bp-party"
example="$BUILD/client/example_prove_balances"
bp="$BUILD/tools/bp"
start_keyed_dealer "$BUILD" "$work" exchange alice
session=$("$party_bin" create-session --dealer "$url" --bits 32 --parties 2 --values-per-party 3,1 \
  --min 100 --max 1000000 --label "balances" --key "$work/operator.key" --dealer-key "$dealer_key" \
  --allow "$work/exchange.key.pub,$work/alice.key.pub")

# A balance below the minimum: refused by the client itself, nothing sent.
if "$example" "$url" "$session" "$work/exchange.key" 100 1000000 250 99 4000 >/dev/null 2>"$work/refused"; then
  fail "a balance outside its bounds was proved"
fi
grep -q "bounds" "$work/refused" || fail "the refusal does not name the bounds: $(cat "$work/refused")"

"$example" "$url" "$session" "$work/exchange.key" 100 1000000 250 1000000 4000 >"$work/exchange" 2>"$work/e0" &
exchange_pid=$!
"$party_bin" join --dealer "$url" --session "$session" --value 100 --bits 32 --min 100 --max 1000000 --key "$work/alice.key" \
  --dealer-key "$dealer_key" >"$work/alice" 2>"$work/e1" || fail "bp-party join: $(cat "$work/e1")"
wait "$exchange_pid" || fail "the example failed: $(cat "$work/e0")"
grep -q "3 balances at positions 0..5 of a 8-position proof" "$work/e0" || fail "unexpected seat: $(cat "$work/e0")"

field() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r[sys.argv[2]]; print(",".join(v) if isinstance(v, list) else v)' "$@"; }
[ "$(field "$work/exchange" proof)" = "$(field "$work/alice" proof)" ] || fail "the two parties hold different proofs"
verify() {
  "$bp" verify --bits "$(field "$work/exchange" bits)" --commitments "$(field "$work/exchange" commitments)" \
    --proof "$(field "$work/exchange" proof)" --label "$(field "$work/exchange" label)" \
    --session "$session" --dealer-key "$work/dealer.key.pub" --signature "$(field "$work/exchange" dealer_signature)" "$@"
}
[ "$(verify --min 100 --max 1000000)" = ok ] || fail "bp verify refuses the bounded result: $(verify --min 100 --max 1000000)"
if verify >/dev/null; then fail "the bounded proof verified without its bounds"; fi
if verify --min 100 --max 2000000 >/dev/null; then fail "the bounded proof verified against other bounds"; fi
echo "prove_balances: 3 balances and 1 more in one bounded session; bp verify accepts it with its bounds only"
