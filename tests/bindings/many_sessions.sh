#!/usr/bin/env bash
# Many sessions from one backend: 200 two-party sessions at once against one bp-dealer with
# its default limits (100 new connections a second and 64 open ones from one address, 200
# sessions per operator), one party of each from a single Python process (asyncio,
# join_and_prove_async, one key) and the other from a single Go process
# (bindings/go/examples/many, a goroutine each, another key), every session listing the
# two keys. Every session must end with the same proof for both parties: the burst's 429s
# and 503s are waited out inside the joins' deadline, and a seated listed party no longer
# counts against its address, so the 400 connections are not held to 64. The operator's
# 200 creates come from Python too, one after another.
#   tests/bindings/many_sessions.sh BUILD VENV_PYTHON [SESSIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
python=$2
count=${3:-200}
# shellcheck source=tests/bindings/go_env.sh
. "$root/tests/bindings/go_env.sh"
work=$(mktemp -d)
dealer_pid=
cleanup() {
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
(cd "$root/bindings/go" && go build -o "$work/go-many" ./examples/many)
for name in operator python go; do "$BUILD/client/bp-party" keygen --out "$work/$name.key" >/dev/null; done
"$BUILD/server/bp-dealer" --listen 127.0.0.1:0 --record "$work/outcomes.db" --operator-key "$work/operator.key.pub" \
  >"$work/dealer.out" 2>"$work/dealer.log" &
dealer_pid=$!
for _ in $(seq 200); do grep -q listening "$work/dealer.out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -nE 's/.*listening.*:([0-9]+)$/\1/p' "$work/dealer.out")
[ -n "$port" ] || { cat "$work/dealer.log" >&2; exit 1; }
url="ws://127.0.0.1:$port"
started=$(date +%s%N)
"$python" - "$url" "$count" "$work" >"$work/sessions" <<'PY'
import sys
import bp_aggregation as bp
url, count, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
parties = [bp.Key.load(f"{work}/{name}.key").public_key for name in ("python", "go")]
with bp.Key.load(f"{work}/operator.key") as operator:
    for _ in range(count):
        print(bp.create_session(url, bits=64, parties=2, label="many", round_timeout_ms=60000,
                                allowed_parties=parties, identity=operator, timeout_ms=60000, on_event=None))
PY
created=$(( ($(date +%s%N) - started) / 1000000 ))
"$python" - "$url" "$work/sessions" "$work/python.key" >"$work/python.out" 2>"$work/python.err" <<'PY' &
import asyncio, sys
import bp_aggregation as bp

async def main():
    ids = open(sys.argv[2]).read().split()
    key = bp.Key.load(sys.argv[3])
    joins = [bp.join_and_prove_async(sys.argv[1], sid, 7, identity=key, timeout_ms=120000, on_event=None)
             for sid in ids]
    results = await asyncio.gather(*joins, return_exceptions=True)
    failed = 0
    for sid, r in zip(ids, results):
        if isinstance(r, Exception):
            failed += 1
            print(f"{sid}: {type(r).__name__}: {r}", file=sys.stderr)
        else:
            print(sid, r.proof.hex())
    sys.exit(1 if failed else 0)

asyncio.run(main())
PY
python_pid=$!
"$work/go-many" "$url" "$work/sessions" 9 "$work/go.key" >"$work/go.out" 2>"$work/go.err" &
go_pid=$!
status=0
wait $python_pid || { echo "Python: $(tail -5 "$work/python.err")" >&2; status=1; }
wait $go_pid || { echo "Go: $(tail -5 "$work/go.err")" >&2; status=1; }
joined=$(( ($(date +%s%N) - started) / 1000000 - created ))
[ $status -eq 0 ] || exit 1
if [ "$(wc -l <"$work/python.out")" != "$count" ] || [ "$(wc -l <"$work/go.out")" != "$count" ]; then
  echo "error: $(wc -l <"$work/python.out") Python and $(wc -l <"$work/go.out") Go results of $count" >&2
  exit 1
fi
cmp -s <(sort "$work/python.out") <(sort "$work/go.out") ||
  { echo "error: the two processes hold different proofs for some session" >&2; exit 1; }
# What the dealer turned away during the burst (and the client waited out), by reason.
refusals=$(sed -nE 's/.* refused .*reason="([^"]*)".*/\1/p' "$work/dealer.log" | sort | uniq -c |
  awk '{n=$1; $1=""; printf "%s%s x%d", sep, substr($0, 2), n; sep="; "}')
echo "many sessions: $count two-party sessions, one party each from one Python and one Go process, all with" \
  "the same proof; creates $created ms, joins $joined ms; refusals waited out: ${refusals:-none}"
