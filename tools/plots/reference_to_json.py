#!/usr/bin/env python3
"""The reference crate's bench table (bp-oracle bench's stdout) as JSON lines for plot_benchmarks.py.

usage: bp-oracle bench --mallopt | reference_to_json.py NAME >> docs/data/reference.jsonl
NAME labels the build in the figure (dalek-avx2, dalek-ifma). Prints a machine line (this CPU:
run it in the same sitting as bp bench --sweep) unless --no-machine, then one prove and one
verify line per (n, m) row of the table."""
import json
import re
import sys

name = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
if "--no-machine" not in sys.argv[2:]:
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    print(json.dumps({"op": "machine", "cpu": cpu}))
rows = 0
for line in sys.stdin:
    # | n | m | proof bytes | prove µs (yardsticks) | verify µs (yardsticks) | ...
    m = re.match(r"\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*\d+\s*\|\s*(\d+)\s*\(.*?\)\s*\|\s*(\d+)\s*\(", line)
    if m:
        n, parties, prove, verify = map(int, m.groups())
        for op, us in (("prove", prove), ("verify", verify)):
            print(json.dumps({"op": op, "impl": name, "n": n, "m": parties, "median_us": us}))
        rows += 1
if rows == 0:
    sys.exit("error: no table rows in the input (is it bp-oracle bench's output?)")
