#!/usr/bin/env bash
# One session, four languages' clients: two C++ bp-party processes, the Python example
# (bindings/python/examples/party.py, with the installed package) and the Go example
# (bindings/go/examples/party), against a real bp-dealer on loopback with keys and a
# pinned dealer key. The four must print the same proof, which bp verify accepts with the
# dealer's signature. Then a gadget session the same way, its four seats proved by bp-party,
# the C example (bindings/c/examples/gadget_party.c), Python and Go: one R1CS proof, which
# bp r1cs verify accepts with the dealer's signature.
#   tests/bindings/mixed_session.sh BUILD VENV_PYTHON
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
python=$2
# shellcheck source=deploy/lib/demo-results.sh
. "$root/deploy/lib/demo-results.sh"
# shellcheck source=tests/bindings/go_env.sh
. "$root/tests/bindings/go_env.sh"
# shellcheck source=tests/bindings/gadget_parties.sh
. "$root/tests/bindings/gadget_parties.sh"
# shellcheck source=tests/lib/keyed_dealer.sh
. "$(dirname "$0")/../lib/keyed_dealer.sh"
work=$(mktemp -d)
dealer_pid=
cleanup() {
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
party_bin="$BUILD/client/bp-party"
(cd "$root/bindings/go" && go build -o "$work/go-party" ./examples/party)
start_keyed_dealer "$BUILD" "$work" p0 p1 p2 p3
session=$("$party_bin" create-session --dealer "$url" --bits 64 --parties 4 --label "mixed languages" \
  --key "$work/operator.key" --dealer-key "$dealer_key" \
  --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub")
pids=()
"$party_bin" join --dealer "$url" --session "$session" --value 1 --key "$work/p0.key" --dealer-key "$dealer_key" >"$work/r0" 2>"$work/e0" &
pids+=($!)
"$party_bin" join --dealer "$url" --session "$session" --value 2 --key "$work/p1.key" --dealer-key "$dealer_key" >"$work/r1" 2>"$work/e1" &
pids+=($!)
"$python" "$root/bindings/python/examples/party.py" "$url" "$session" 3 "$work/p2.key" "$dealer_key" >"$work/r2" 2>"$work/e2" &
pids+=($!)
"$work/go-party" "$url" "$session" 4 "$work/p3.key" "$dealer_key" >"$work/r3" 2>"$work/e3" &
pids+=($!)
status=0
for i in 0 1 2 3; do
  wait "${pids[$i]}" || { echo "party $i failed: $(cat "$work/e$i")" >&2; status=1; }
done
[ $status -eq 0 ] || exit 1
same_result "$work"/r{0,1,2,3}
verify_result "$work/r0" "$session" "$work/dealer.key.pub" "$BUILD/tools/bp"
echo "mixed session: C++, C++, Python and Go parties printed the same proof; bp verify accepts it"

gadgets="shuffle:2;range:32;range:64;example:9"
session=$("$party_bin" create-session --dealer "$url" --gadgets "$gadgets" --label "mixed gadgets" \
  --key "$work/operator.key" --dealer-key "$dealer_key" \
  --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub")
gadget_pids=()
start_gadget_parties "$url" "$session" "$dealer_key" "$work" "$work/g"
for i in 0 1 2 3; do
  wait "${gadget_pids[$i]}" || { echo "gadget party $i failed: $(cat "$work/e$i")" >&2; status=1; }
done
[ $status -eq 0 ] || exit 1
same_gadget_results "$work"/g{0,1,2,3}
verify_gadget_result "$work/g0" "$session" "$work/dealer.key.pub"
echo "mixed gadget session: C++, C, Python and Go seats printed the same R1CS proof; bp r1cs verify accepts it"
