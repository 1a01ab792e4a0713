#!/usr/bin/env bash
# docs/embedding.md's gadget example (client/examples/prove_solvency.cpp) against a real
# bp-dealer on loopback with keys: two exchanges prove their balances add up to their
# totals (sum:3 and sum:2) in one gadget session; an exchange whose seat is another gadget
# is refused before it commits, and the session goes on; bp r1cs verify accepts the result
# with the dealer's signature, and refuses it under another list.
#   tests/integration/prove_solvency.sh BUILD
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
example="$BUILD/client/example_prove_solvency"
bp="$BUILD/tools/bp"
start_keyed_dealer "$BUILD" "$work" first second
session=$("$party_bin" create-session --dealer "$url" --gadgets "sum:3;sum:2" --label "solvency" \
  --key "$work/operator.key" --dealer-key "$dealer_key" --allow "$work/first.key.pub,$work/second.key.pub")

# The second exchange's seat is sum:2: with three balances it states sum:3, refused at join.
if "$example" "$url" "$session" "$work/second.key" 5 6 7 >/dev/null 2>"$work/refused"; then
  fail "a party of another gadget was seated"
fi
grep -q "seat 1 proves sum:2; the party states sum:3" "$work/refused" || fail "unexpected refusal: $(cat "$work/refused")"

"$example" "$url" "$session" "$work/first.key" 250 1000000 4000 >"$work/first" 2>"$work/e0" &
first_pid=$!
"$example" "$url" "$session" "$work/second.key" 70 30 >"$work/second" 2>"$work/e1" || fail "$(cat "$work/e1")"
wait "$first_pid" || fail "the first exchange failed: $(cat "$work/e0")"
grep -q 'seat 0 of "sum:3;sum:2": 7 commitments' "$work/e0" || fail "unexpected seat: $(cat "$work/e0")"

field() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r[sys.argv[2]]; print(",".join(v) if isinstance(v, list) else v)' "$@"; }
[ "$(field "$work/first" proof)" = "$(field "$work/second" proof)" ] || fail "the two exchanges hold different proofs"
verify() {
  "$bp" r1cs verify --commitments "$(field "$work/first" commitments)" --proof "$(field "$work/first" proof)" \
    --label "$(field "$work/first" label)" --session "$session" --dealer-key "$work/dealer.key.pub" \
    --signature "$(field "$work/first" dealer_signature)" "$@"
}
[ "$(verify --gadgets "sum:3;sum:2")" = ok ] || fail "bp r1cs verify refuses the result: $(verify --gadgets "sum:3;sum:2")"
if verify --gadgets "sum:2;sum:3" >/dev/null; then fail "the proof verified under another list"; fi
echo "prove_solvency: two exchanges' sums in one gadget session; bp r1cs verify accepts it with the dealer's signature"
