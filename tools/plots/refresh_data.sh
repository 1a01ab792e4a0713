#!/usr/bin/env bash
# Re-measures every figure's data into docs/data/ and redraws docs/images/ (docs/performance.md
# says which figure comes from which command). Run it as root on a quiet machine: the
# replicas row starts PostgreSQL and nginx (tools/netbench/scale-out-bench.sh).
#   tools/plots/refresh_data.sh BUILD_DIR [REFERENCE_DIR]
# REFERENCE_DIR holds the reference crate's builds (bp-oracle, bp-oracle-ifma): measuring
# tools only, so without it the committed reference.jsonl is kept, and the figure says when its
# CPU differs from this one.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
data=$root/docs/data
mkdir -p "$data"
"$build/tools/bp" bench --sweep --json >"$data/bench-sweep.jsonl"
if [ -n "${2:-}" ]; then
  "$2/bp-oracle" bench --mallopt | "$root/tools/plots/reference_to_json.py" dalek-avx2 >"$data/reference.jsonl"
  if grep -qw avx512ifma /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
    "$2/bp-oracle-ifma" bench --mallopt | "$root/tools/plots/reference_to_json.py" dalek-ifma --no-machine \
      >>"$data/reference.jsonl"
  fi
fi
"$build/tools/bp-netbench" --sweep-in-flight --json >"$data/in-flight.jsonl"
"$root/tools/netbench/scale-out-bench.sh" "$build" 10 "$data/replicas.jsonl"
"$root/tools/plots/plot_benchmarks.py" --data "$data" --out "$root/docs/images"
