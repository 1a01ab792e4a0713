#!/usr/bin/env python3
"""`bp bench --quick --json` runs to the end and its output is what compare.py and the
performance document read: a machine line naming the CPU and the backend choice, every
supported backend measured interleaved on prove and verify at m = 1 and 16 and on the
64-proof batch, exactly one fastest per group. It checks shape, never speed (timings are
not assertions).

usage: check_bench.py PATH/TO/bp
"""
import collections
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1], "bench", "--quick", "--json"], capture_output=True, text=True, check=True).stdout
rows = [json.loads(line) for line in out.splitlines()]
problems = []
machine = [r for r in rows if r["op"] == "machine"]
if len(machine) != 1 or not machine[0]["cpu"] or machine[0]["preferred"] not in machine[0]["backend_choice"]:
    problems.append(f"no machine line naming the CPU and the choice: {machine}")
groups = collections.defaultdict(list)
for r in rows:
    if r.get("interleaved"):
        groups[(r["op"], r["m"])].append(r)
expected = {("prove", 1), ("verify", 1), ("prove", 16), ("verify", 16), ("verify_batch", 1)}
if set(groups) != expected:
    problems.append(f"interleaved groups {sorted(groups)}, expected {sorted(expected)}")
backend_sets = {tuple(sorted(r["backend"] for r in g)) for g in groups.values()}
if len(backend_sets) != 1 or "portable" not in next(iter(backend_sets), ()):
    problems.append(f"the groups do not all hold the same backends, portable among them: {backend_sets}")
for key, group in groups.items():
    if sum(r["fastest"] for r in group) != 1:
        problems.append(f"{key}: not exactly one fastest")
if problems:
    sys.exit("\n".join(problems))
print(f"bench: {len(rows)} rows; interleaved on {', '.join(next(iter(backend_sets)))}; "
      f"preferred {machine[0]['preferred']}, fastest on every interleaved row here: {machine[0]['preferred_is_fastest']}")
