#!/usr/bin/env bash
# Scale-out figures for docs/scale-out.md, on this machine: sessions/s through nginx (routed
# as deploy/k8s/ingress.yaml) with 1, 2 and 3 dealer replicas on SQLite (a file each) and on
# one shared PostgreSQL 15 (a primary with a synchronous standby, as tests/cluster runs it),
# the dealers' record-write latency from their own histograms, and the sessions/s the
# primary takes from pgbench running one session's writes (its claim, four checkpoints of an
# m = 4 session, its close).
# With JSON_OUT, each row is also written there as a JSON line (the plots' input, tools/plots).
#   tools/netbench/scale-out-bench.sh BUILD_DIR [SECONDS_PER_ROW [JSON_OUT]]   (root: runs PostgreSQL as postgres)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
seconds=${2:-10}
json_out=${3:-}
[ -z "$json_out" ] || : >"$json_out"
# shellcheck source=tests/cluster/postgres.sh
source "$root/tests/cluster/postgres.sh"
work=$(mktemp -d /tmp/bp-scale.XXXXXX)
chmod 755 "$work"
pids=()
nginx_pid=
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [ -z "$nginx_pid" ] || kill "$nginx_pid" 2>/dev/null || true
  pg_pair_down "$work"
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
pg_pair_up "$work"
conninfo=$pg_conninfo
pg1=$pg1_port

start_dealers() {  # start_dealers BACKEND N: N replicas, their ports in $ports
  ports=()
  for k in $(seq "$2"); do
    local store=$conninfo
    [ "$1" = sqlite ] && store="$work/dealer-$k-$RANDOM.db"
    : >"$work/d$k.out"
    "$build/server/bp-dealer" --listen 127.0.0.1:0 --allow-anonymous --replica-name "dealer-$k" --record "$store" \
      --record-password-file "$work/pgpass" --threads 1 --max-connections-per-ip 100000 \
      --max-connects-per-ip-per-s 1000000 --max-sessions-per-ip 100000 --max-anonymous-sessions-per-ip 100000 \
      --log-level warn >"$work/d$k.out" 2>"$work/d$k.log" &
    pids+=($!)
    for _ in $(seq 200); do grep -q listening "$work/d$k.out" && break; sleep 0.05; done
    ports+=("$(sed -nE 's/.*:([0-9]+)$/\1/p' "$work/d$k.out")")
  done
}
stop_dealers() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=()
}
lb=$(free_port)
route() {
  local ups=()
  for p in "${ports[@]}"; do ups+=("127.0.0.1:$p"); done
  "$root/deploy/nginx/render-ingress-conf.sh" "$work/nginx/nginx.conf" "127.0.0.1:$lb" "$work/nginx" "${ups[@]}"
  sed -i "s|access_log $work/nginx/access.log;|access_log off;|" "$work/nginx/nginx.conf"
  if [ -z "$nginx_pid" ]; then
    nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
    nginx_pid=$!
    sleep 0.5
  else
    nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -s reload
    sleep 1
  fi
}
# The dealers' record-write ("close") latency quantile from their histograms, summed.
close_quantile() {
  for p in "${ports[@]}"; do curl -s "http://127.0.0.1:$p/metrics"; done | python3 -c '
import sys, re
q = float(sys.argv[1]); buckets = {}
for line in sys.stdin:
    m = re.match(r"bp_record_call_seconds_bucket\{operation=\"close\",le=\"([^\"]+)\"\} (\d+)", line)
    if m: buckets[m.group(1)] = buckets.get(m.group(1), 0) + int(m.group(2))
edges = sorted((float("inf") if k == "+Inf" else float(k), n) for k, n in buckets.items())
total = edges[-1][1] if edges else 0
prev_le, prev_n = 0.0, 0
for le, n in edges:
    if n >= q * total:
        frac = (q * total - prev_n) / max(n - prev_n, 1)
        print("%.2f" % (1000 * (prev_le + (le - prev_le) * frac)) if le != float("inf") else ">%.0f" % (1000 * prev_le)); break
    prev_le, prev_n = le, n
' "$1"
}

flags=$(grep -m1 -o -w -E 'avx512ifma|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ' || true)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores (${flags:-no AVX2}); dealers, parties, nginx and PostgreSQL share them"
[ -z "$json_out" ] || python3 -c 'import json, os, sys
cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
print(json.dumps({"op": "machine", "cpu": cpu, "cores": os.cpu_count(), "note": sys.argv[1]}))' \
  "dealers, parties, nginx and PostgreSQL share the cores; sessions of n = 8, m = 2, 8 in flight, $seconds s a row" >>"$json_out"
echo "sessions of n = 8, m = 2 (the record's share of the work is largest); 8 in flight; $seconds s a row"
echo
echo "| record | replicas | sessions/s | p50 ms | p99 ms | failed | record write p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for backend in sqlite postgresql; do
  for n in 1 2 3; do
    start_dealers "$backend" "$n"
    route
    line=$("$build/tools/bp-netbench" --target "ws://127.0.0.1:$lb" --bits 8 --parties 2 --parallel 8 \
      --load-seconds "$seconds" --json || true)
    write_p50=$(close_quantile 0.5) write_p99=$(close_quantile 0.99)
    "$root/tools/netbench/replicas_row.py" "$line" "$backend" "$n" "$write_p50" "$write_p99" "$json_out"
    [ "${KEEP_WORK:-}" = 1 ] && for k in $(seq "$n"); do cp "$work/d$k.log" "$work/$backend-$n-d$k.log"; done
    stop_dealers
  done
done

echo
echo "One primary (synchronous standby on), one session's writes per transaction (claim, four checkpoints, close), pgbench -c 8 -j 2 -T $seconds:"
cat >"$work/record.sql" <<'SQL'
\set id random(1, 9000000000000000000)
INSERT INTO bp_sessions (id, replica, open, owner, bits, parties, json, checkpoint) VALUES (:id, 'bench', true, 'addr:bench', 64, 4, repeat('x', 300), repeat('c', 400)) ON CONFLICT (id) DO NOTHING;
UPDATE bp_sessions SET checkpoint = repeat('d', 600), joined = 1 WHERE id = :id::text AND replica = 'bench' AND epoch = 1 AND open AND NOT released;
UPDATE bp_sessions SET checkpoint = repeat('e', 1000), joined = 4 WHERE id = :id::text AND replica = 'bench' AND epoch = 1 AND open AND NOT released;
UPDATE bp_sessions SET checkpoint = repeat('f', 1800), phase = 'poly_commitments' WHERE id = :id::text AND replica = 'bench' AND epoch = 1 AND open AND NOT released;
UPDATE bp_sessions SET checkpoint = repeat('g', 2400), phase = 'proof_shares' WHERE id = :id::text AND replica = 'bench' AND epoch = 1 AND open AND NOT released;
UPDATE bp_sessions SET open = false, ok = true, json = repeat('y', 4300), phase = 'done', recorded_at = now() WHERE id = :id::text AND replica = 'bench' AND epoch = 1 AND open AND NOT released;
SQL
chmod 644 "$work/record.sql"
install -o postgres -m 600 "$work/pgpass" "$work/pgpass.postgres"
pg_as env PGPASSFILE="$work/pgpass.postgres" "$PG_BIN/pgbench" -h 127.0.0.1 -p "$pg1" -U bp -n -c 8 -j 2 -T "$seconds" -f "$work/record.sql" bp 2>/dev/null |
  grep -E 'latency average|^tps' | sed 's/^/   /'
