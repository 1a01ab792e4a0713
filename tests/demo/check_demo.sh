#!/usr/bin/env bash
# The main job's promise, held to its output: runs deploy/demo.sh on a build tree and checks
# that every section it announces is there, in order, and that each one that shows something
# (keys, the proof, the verification, the metrics, the record) shows it. A change that
# silences a step, or skips it with a note, fails here.
#   tests/demo/check_demo.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: $0 BUILD_DIR}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$root/deploy/demo.sh" --build-dir "$build" | tee "$out"

# Each section as a header pattern, and what its body must hold ("" : a header alone).
sections=(
  '^== keys: '                                '^   dealer +[0-9a-f]{64}$'
  '^== bp-dealer listening on ws://'          ''
  '^== session [0-9a-f]{32} created'          ''
  '^== all four parties received the same proof' '"proof":"[0-9a-f]{100,}"'
  '^== verifying the proof'                   '^ok'
  '^== per-round timings and bytes'           '^bp_round_latency_seconds_sum\{.*\} [0-9]'
  '^== the outcome as the dealer recorded it' '"session_id":"[0-9a-f]{32}"'
  '^== stopping the dealer'                   ''
  '^== dealer exited with status 0$'          ''
)
python3 - "$out" "${sections[@]}" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
headers = [i for i, l in enumerate(lines) if l.startswith("== ")]
errors, at = [], 0
for header, body in pairs:
    found = next((i for i in headers if i >= at and re.search(header, lines[i])), None)
    if found is None:
        errors.append(f"no section matching {header!r} (in order)")
        continue
    end = next((i for i in headers if i > found), len(lines))
    text = [l for l in lines[found + 1:end] if l.strip()]
    if body and not any(re.search(body, l) for l in text):
        errors.append(f"section {lines[found]!r} shows nothing matching {body!r}: {text[:3]}")
    if not body and text:
        errors.append(f"section {lines[found]!r} should be a header alone, and says: {text[:3]}")
    at = found + 1
for e in errors:
    print("error: demo output:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
echo "demo output: every section present and shown"
