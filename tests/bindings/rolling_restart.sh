#!/usr/bin/env bash
# A rolling restart with a party of every language in one session: two bp-dealer replicas
# on one PostgreSQL 15 record behind nginx (routed as deploy/k8s/ingress.yaml says), a
# gadget session of five seats listing five keys. The C++ client (bp-party), the C ABI
# (example_gadget_party), Python (examples/party.py) and Go (examples/party) take four seats,
# each with its binding's defaults: no reconnect setting anywhere. Once the four are seated
# the replica holding the session gets SIGTERM (it releases the session and sends its
# parties on), is started again on its port, and a fifth party (bp-party) joins. All five
# must print the same proof, which bp r1cs verify accepts with the dealer's signature.
#   tests/bindings/rolling_restart.sh BUILD VENV_PYTHON
# Needs PostgreSQL 15 and nginx (the cluster stage's packages) and root (the database runs
# as the postgres user). About 15 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
python=$2
# shellcheck source=tests/cluster/postgres.sh
. "$root/tests/cluster/postgres.sh"
# shellcheck source=tests/bindings/go_env.sh
. "$root/tests/bindings/go_env.sh"
# shellcheck source=tests/bindings/gadget_parties.sh
. "$root/tests/bindings/gadget_parties.sh"
party_bin="$BUILD/client/bp-party"
work=$(mktemp -d /tmp/bp-rolling.XXXXXX)
chmod 755 "$work"
declare -A dealer_pid=() dealer_port=()
nginx_pid=
gadget_pids=()
cleanup() {
  for p in "${gadget_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for name in "${!dealer_pid[@]}"; do kill -9 "${dealer_pid[$name]}" 2>/dev/null || true; done
  [ -z "$nginx_pid" ] || kill "$nginx_pid" 2>/dev/null || true
  pg_stop "$work/pg"
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "work kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "error: $*" >&2
  for name in a b; do echo "-- dealer $name:" >&2; tail -15 "$work/$name.log" >&2; done
  exit 1
}

(cd "$root/bindings/go" && go build -o "$work/go-party" ./examples/party)
for name in operator dealer p0 p1 p2 p3 p4; do "$party_bin" keygen --out "$work/$name.key" >/dev/null; done
dealer_key=$(cat "$work/dealer.key.pub")

pg_port=$(free_port)
pg_init_primary "$work/pg" "$pg_port"
echo "127.0.0.1:*:bp:bp:bp-test-password" >"$work/pgpass"
chmod 600 "$work/pgpass"
record="postgresql://bp@127.0.0.1:$pg_port/bp?connect_timeout=2"

# start_dealer NAME [PORT]: a replica on the record (on PORT when restarted, so the
# balancer's list stays right), with the shared dealer key and the operator's key
start_dealer() {
  local name=$1 port=${2:-0}
  : >"$work/$name.out"
  "$BUILD/server/bp-dealer" --listen "127.0.0.1:$port" --replica-name "$name" --record "$record" \
    --record-password-file "$work/pgpass" --dealer-key "$work/dealer.key" --operator-key "$work/operator.key.pub" \
    --heartbeat-ms 500 --takeover-after-ms 1500 --log-level info >>"$work/$name.out" 2>>"$work/$name.log" &
  dealer_pid[$name]=$!
  for _ in $(seq 200); do grep -qs listening "$work/$name.out" && break; sleep 0.05; done
  dealer_port[$name]=$(sed -nE 's/.*listening on .*:([0-9]+)$/\1/p' "$work/$name.out" | tail -1)
  [ -n "${dealer_port[$name]}" ] || fail "replica $name did not start"
}
start_dealer a
start_dealer b
lb_port=$(free_port)
mkdir -p "$work/nginx"
"$root/deploy/nginx/render-ingress-conf.sh" "$work/nginx/nginx.conf" "127.0.0.1:$lb_port" "$work/nginx" \
  "127.0.0.1:${dealer_port[a]}" "127.0.0.1:${dealer_port[b]}"
nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
nginx_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$lb_port/healthz" && break; sleep 0.05; done
url="ws://127.0.0.1:$lb_port"

session=$("$party_bin" create-session --dealer "$url" --gadgets "shuffle:2;range:32;range:64;example:9;range:8" \
  --label "rolling restart" --round-timeout-ms 60000 --key "$work/operator.key" --dealer-key "$dealer_key" \
  --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub,$work/p4.key.pub")
start_gadget_parties "$url" "$session" "$dealer_key" "$work" "$work/r"

field() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null; }
state=
for _ in $(seq 300); do
  state=$(curl -s --max-time 2 "http://127.0.0.1:$lb_port/v1/sessions/$session" || true)
  [ "$(field "$state" joined)" = 4 ] && break
  sleep 0.1
done
[ "$(field "$state" joined)" = 4 ] || fail "the four parties were not seated: $state"
holder=$(field "$state" replica)
[ -n "${dealer_pid[$holder]+set}" ] || fail "the session is held by '$holder', not a or b"
other=a
[ "$holder" = a ] && other=b

# The rolling restart: SIGTERM, the process exits cleanly, the same replica comes back.
kill -TERM "${dealer_pid[$holder]}"
status=0
wait "${dealer_pid[$holder]}" || status=$?
[ $status -eq 0 ] || fail "replica $holder exited $status on SIGTERM"
start_dealer "$holder" "${dealer_port[$holder]}"

"$party_bin" join --dealer "$url" --session "$session" --gadget range:8 --value 200 --key "$work/p4.key" \
  --dealer-key "$dealer_key" >"$work/r4" 2>"$work/e4" &
gadget_pids+=($!)
status=0
names=("C++ (bp-party)" "C" "Python" "Go" "C++ (bp-party, after the restart)")
for i in 0 1 2 3 4; do
  wait "${gadget_pids[$i]}" || { echo "${names[$i]} party failed: $(cat "$work/e$i")" >&2; status=1; }
done
gadget_pids=()
[ $status -eq 0 ] || fail "not every party finished"
same_gadget_results "$work"/r{0,1,2,3,4}
grep -q "shutting down" "$work/$holder.log" || fail "replica $holder did not say it was shutting down"
grep -q "session taken over" "$work/a.log" "$work/b.log" || fail "no replica says it took the session over"
verify_gadget_result "$work/r0" "$session" "$work/dealer.key.pub" >/dev/null ||
  fail "bp r1cs verify refused the proof"
echo "rolling restart: replica $holder stopped with SIGTERM and started again while C++, C, Python and Go" \
  "parties held seats; they followed the session to replica $other by their defaults, a fifth party joined," \
  "and all five printed the same proof, which bp r1cs verify accepts"
