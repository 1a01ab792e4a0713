#!/usr/bin/env bash
# The figures' script (tools/plots/plot_benchmarks.py) on the benchmarks' current output, so a
# change of a JSON line's format fails here and not when the next engineer refreshes
# docs/data: bp bench --sweep --quick, bp-netbench --sweep-in-flight --quick, and one
# replicas row through a real bp-dealer on a SQLite record (the scale-out script's own row
# writer); then the committed data, which the docs' figures are drawn from.
#   check_plots.sh SOURCE_DIR BP BP_NETBENCH BP_DEALER
set -euo pipefail
trap 'echo "FAIL: check_plots.sh stopped at line $LINENO: $BASH_COMMAND" >&2' ERR
root=$1 bp=$2 netbench=$3 dealer=$4
work=$(mktemp -d /tmp/bp-plots.XXXXXX)
dealer_pid=
cleanup() {
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$bp" bench --sweep --quick --json >"$work/bench-sweep.jsonl"
"$netbench" --sweep-in-flight --quick --json >"$work/in-flight.jsonl"

# Every party comes from 127.0.0.1: the per-address limits are lifted, as scale-out-bench.sh does.
"$dealer" --listen 127.0.0.1:0 --allow-anonymous --record "$work/record.db" --log-level warn \
  --max-connections-per-ip 100000 --max-connects-per-ip-per-s 1000000 --max-sessions-per-ip 100000 \
  --max-anonymous-sessions-per-ip 100000 >"$work/dealer.out" 2>"$work/dealer.log" &
dealer_pid=$!
for _ in $(seq 200); do grep -qs listening "$work/dealer.out" && break; sleep 0.05; done
port=$(sed -nE 's/.*:([0-9]+)$/\1/p' "$work/dealer.out")
[ -n "$port" ] || { cat "$work/dealer.log" >&2; echo "error: bp-dealer did not start" >&2; exit 1; }
echo '{"op": "machine", "cpu": "test", "cores": 2, "note": "check_plots.sh"}' >"$work/replicas.jsonl"
line=$("$netbench" --target "ws://127.0.0.1:$port" --bits 8 --parties 2 --parallel 2 --load-seconds 1 --json)
"$root/tools/netbench/replicas_row.py" "$line" sqlite 1 - - "$work/replicas.jsonl"

"$root/tools/plots/plot_benchmarks.py" --data "$work" --reference "$root/docs/data/reference.jsonl" \
  --out "$work/current"
"$root/tools/plots/plot_benchmarks.py" --data "$root/docs/data" --out "$work/committed"
for f in "$work"/current/*.png "$work"/committed/*.png; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "error: $f is not a PNG" >&2; exit 1; }
done
echo "plots: the script draws the current output and the committed data"
