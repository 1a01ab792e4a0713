#!/usr/bin/env python3
"""One row of the scale-out table from bp-netbench --target --json's line, and the same row as a
JSON line for tools/plots when OUT is given (appended).
usage: replicas_row.py LINE RECORD REPLICAS WRITE_P50_MS WRITE_P99_MS [OUT]"""
import json
import sys

if len(sys.argv) < 6:
    sys.exit(__doc__)
line, record, replicas, p50, p99 = sys.argv[1:6]
out = sys.argv[6] if len(sys.argv) > 6 else ""
row = json.loads(line) if line.startswith("{") else {"sessions_per_s": 0, "p50_ms": 0, "p99_ms": 0, "failed": "all"}
print(f"| {record} | {replicas} | {row['sessions_per_s']:.1f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} "
      f"| {row['failed']} | {p50} | {p99} |")
if out:
    row.pop("target", None)
    row.update(op="replicas", record=record, replicas=int(replicas), record_write_p50_ms=p50, record_write_p99_ms=p99)
    with open(out, "a") as f:
        f.write(json.dumps(row) + "\n")
