#!/usr/bin/env bash
# The main job: build, make Ed25519 keys for an operator, the dealer and four parties, start
# bp-dealer on loopback, create a session that admits exactly those four keys, run four
# bp-party processes (separate OS processes, real sockets) with 64-bit values, print the
# aggregated proof, verify it and the dealer's signature with bp verify, print per-round
# timings and bytes and the outcome as the record holds it (read over plain HTTP with bash
# alone: a minimal Debian root has no HTTP client), and shut the dealer down cleanly with SIGTERM.
# Every section prints something or the demo fails saying which step could not run
# (tests/demo/check_demo.sh holds the output to that).
#   deploy/demo.sh                      build the three programs (Release) and run
#   deploy/demo.sh --build-dir DIR      run the programs of an existing build tree (the test command)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=deploy/lib/http-get.sh
. "$root/deploy/lib/http-get.sh"
fail() { echo "error: $*" >&2; exit 1; }
build=
case "${1:-}" in
  "") ;;
  --build-dir) [ -n "${2:-}" ] || fail "--build-dir needs a directory"; build=$(cd "$2" && pwd) ;;
  *) echo "usage: $0 [--build-dir DIR]" >&2; exit 2 ;;
esac
"$root/deploy/install-deps.sh" --build  # only what the three programs need
if [ -z "$build" ]; then
  build="$root/build/release"
  echo "== building (Release)"
  # Only the three programs it runs (not libbp, bp-netbench or the examples): a sixth fewer
  # compilations on a fresh machine. The proofs' arithmetic keeps its -O3 (core's own flag);
  # the rest, the network code that nobody times here, is built at -O1, which compiles its
  # Boost.Beast templates about a third faster, and as a unity build (a few sources to one
  # compilation, so Asio's and Beast's headers are parsed once per group, not per file).
  # A fresh build of the three programs on 2 cores without ccache: 3 min 20 s at -O3,
  # 2 min 45 s at -O1, 1 min 54 s at -O1 as a unity build (the image builds so too).
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target bp bp-dealer bp-party >/dev/null
fi
bp="$build/tools/bp"
dealer="$build/server/bp-dealer"
party="$build/client/bp-party"

work=$(mktemp -d)
dealer_pid=
cleanup() {
  if [ -n "$dealer_pid" ]; then kill "$dealer_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== keys: bp-party keygen for the operator, the dealer and four parties"
for name in operator dealer party0 party1 party2 party3; do
  printf '   %-8s %s\n' "$name" "$("$party" keygen --out "$work/$name.key")"
done

"$dealer" --listen 127.0.0.1:0 --record "$work/outcomes.db" --operator-key "$work/operator.key.pub" \
  --dealer-key "$work/dealer.key" >"$work/dealer.out" 2>"$work/dealer.log" &
dealer_pid=$!
for _ in $(seq 100); do grep -q listening "$work/dealer.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -nE 's/.*listening.*:([0-9]+)$/\1/p' "$work/dealer.out")
[ -n "$port" ] || { cat "$work/dealer.log" >&2; fail "bp-dealer did not start listening within 10 s (its log above)"; }
url="ws://127.0.0.1:$port"
echo "== bp-dealer listening on $url (pid $dealer_pid)"

allow="$work/party0.key.pub,$work/party1.key.pub,$work/party2.key.pub,$work/party3.key.pub"
session=$("$party" create-session --dealer "$url" --bits 64 --parties 4 --label "demo payroll" --round-timeout-ms 20000 \
  --key "$work/operator.key" --allow "$allow")
echo "== session $session created by the operator for the four listed keys, n = 64"

values=(1000000 18446744073709551615 0 42424242)
start=$(date +%s%N)
pids=()
for i in 0 1 2 3; do
  "$party" join --dealer "$url" --session "$session" --value "${values[$i]}" --key "$work/party$i.key" \
    --dealer-key "$work/dealer.key.pub" >"$work/party$i.json" 2>"$work/party$i.err" &
  pids+=($!)
done
status=0
for i in 0 1 2 3; do wait "${pids[$i]}" || status=1; done
end=$(date +%s%N)
if [ $status -ne 0 ]; then
  echo "error: a party failed:" >&2
  cat "$work"/party*.err >&2
  exit 1
fi
echo "== all four parties received the same proof in $(( (end - start) / 1000000 )) ms (wall time, four processes)"
json=$(cat "$work/party0.json")
echo "$json"
for i in 1 2 3; do
  # Every party got the same proof and commitments (their positions differ).
  [ "$(sed -E 's/,"position":[0-9]+//' "$work/party$i.json")" = "$(sed -E 's/,"position":[0-9]+//' <<<"$json")" ] ||
    { echo "error: party $i received a different result" >&2; exit 1; }
done

label=$(sed -E 's/.*"label":"([^"]*)".*/\1/' <<<"$json")
commitments=$(sed -E 's/.*"commitments":\[([^]]*)\].*/\1/; s/"//g' <<<"$json")
proof=$(sed -E 's/.*"proof":"([0-9a-f]*)".*/\1/' <<<"$json")
signature=$(sed -E 's/.*"dealer_signature":"([0-9a-f]*)".*/\1/' <<<"$json")
echo "== verifying the proof and the dealer's signature with bp verify --label '$label'"
"$bp" verify --bits 64 --commitments "$commitments" --proof "$proof" --label "$label" \
  --session "$session" --dealer-key "$work/dealer.key.pub" --signature "$signature"

echo "== per-round timings and bytes (from the dealer's /metrics)"
metrics=$(http_get 127.0.0.1 "$port" /metrics) || fail "cannot read the dealer's /metrics"
rows=$(grep -E '^bp_round_latency_seconds_(sum|count)|^bp_bytes_(in|out)_total|^bp_sessions_(started|completed)_total' <<<"$metrics") ||
  fail "the dealer's /metrics holds no per-round timings or byte counts"
echo "$rows"
echo "== the outcome as the dealer recorded it: GET /v1/sessions/$session"
outcome=$(http_get 127.0.0.1 "$port" "/v1/sessions/$session") || fail "cannot read the session's record"
grep -q "\"$session\"" <<<"$outcome" || fail "the record's answer does not name the session: $outcome"
cut -c1-160 <<<"$outcome"

echo "== stopping the dealer (SIGTERM)"
kill -TERM "$dealer_pid"
dealer_status=0
wait "$dealer_pid" || dealer_status=$?
dealer_pid=
echo "== dealer exited with status $dealer_status"
[ "$dealer_status" -eq 0 ] || { cat "$work/dealer.log" >&2; fail "bp-dealer did not shut down cleanly (its log above)"; }
