#!/usr/bin/env bash
# The README's examples are the files the tests build and run, word for word: the C++
# client example, the Python and the Go party.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for example in client/examples/join_and_prove.cpp bindings/python/examples/party.py bindings/go/examples/party/main.go; do
  /usr/bin/python3 - "$root/README.md" "$root/$example" <<'PY' || { echo "error: README.md does not show $example as it is" >&2; status=1; }
import sys
readme, example = (open(p).read() for p in sys.argv[1:3])
sys.exit(0 if example.strip() in readme else 1)
PY
done
[ $status -eq 0 ] && echo "README shows the three examples as they are"
exit $status
