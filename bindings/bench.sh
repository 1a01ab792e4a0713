#!/usr/bin/env bash
# What the bindings cost: prove and verify (n = 64, m = 1 and 4) through Python (ctypes) and
# Go (cgo) over libbp, against `bp bench`'s rows for the same operations, in one run on one
# machine. Prints a Markdown table (the README keeps the latest).
#   bindings/bench.sh BUILD VENV_PYTHON
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
python=$2
# shellcheck source=tests/bindings/go_env.sh
. "$root/tests/bindings/go_env.sh"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cxx=$("$BUILD/tools/bp" bench --quick --json | grep -E '"op":"(prove|verify)","n":64,"m":(1|4),')
go=$(cd "$root/bindings/go" && BP_BENCH_MEDIANS=1 go test -count=1 -run '^TestBenchMedians$' -v . | grep '^MEDIAN')
py=$("$python" - <<'PY'
import statistics, time
import bp_aggregation as bp
for m in (1, 4):
    values = [j * 1234567 for j in range(m)]
    blindings = [bp.random_blinding() for _ in range(m)]
    proof, commitments = bp.prove(values, blindings, bits=64, label="bench")
    for op in ("prove", "verify"):
        samples = []
        for _ in range(40):
            start = time.perf_counter()
            if op == "prove":
                bp.prove(values, blindings, bits=64, label="bench")
            else:
                bp.verify(proof, commitments, bits=64, label="bench")
            samples.append((time.perf_counter() - start) * 1e6)
        print(op, m, statistics.median(samples))
PY
)
echo "CPU: $cpu"
echo
echo "| op | n | m | backend | C++ (bp bench) µs | Python µs | Python / C++ | Go µs | Go / C++ |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
for m in 1 4; do
  for op in prove verify; do
    row=$(grep "\"op\":\"$op\",\"n\":64,\"m\":$m," <<<"$cxx" | head -1)
    backend=$(sed -E 's/.*"backend":"([^"]*)".*/\1/' <<<"$row")
    c_us=$(sed -E 's/.*"median_us":([0-9.]+).*/\1/' <<<"$row")
    p_us=$(awk -v op="$op" -v m="$m" '$1 == op && $2 == m {print $3}' <<<"$py")
    g_us=$(awk -v op="$op" -v m="$m" '$2 == op && $3 == m {print $4}' <<<"$go")
    awk -v op="$op" -v m="$m" -v b="$backend" -v c="$c_us" -v p="$p_us" -v g="$g_us" \
      'BEGIN { printf "| %s | 64 | %s | %s | %.0f | %.0f | %.3f | %.0f | %.3f |\n", op, m, b, c, p, p / c, g, g / c }'
  done
done
echo
echo "C++: median of bp bench --quick; Python and Go: median of 40 calls each."
