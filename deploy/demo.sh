#!/usr/bin/env bash
# The main job: build, then prove that four 64-bit values are in range with one aggregated
# proof, print it, and verify it from its printed form alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deploy/install-deps.sh"
build="$root/build/release"
"$root/deploy/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DBP_BUILD_TESTS=OFF >/dev/null
bp="$build/tools/bp"

label="bp demo $(date -u +%Y-%m-%dT%H:%M:%SZ)"
values="1000000,18446744073709551615,0,42424242"
echo "== proving that each of [$values] lies in [0, 2^64), aggregated (m = 4)"
start=$(date +%s%N)
json=$("$bp" prove --bits 64 --values "$values" --label "$label")
end=$(date +%s%N)
echo "$json"
echo "== proof made in $(( (end - start) / 1000000 )) ms (including generator set-up)"

# Pull the fields back out of the JSON and verify exactly what was printed.
commitments=$(sed -E 's/.*"commitments":\[([^]]*)\].*/\1/; s/"//g' <<<"$json")
proof=$(sed -E 's/.*"proof":"([0-9a-f]*)".*/\1/' <<<"$json")
echo "== verifying with bp verify"
"$bp" verify --bits 64 --commitments "$commitments" --proof "$proof" --label "$label"
echo "== the same proof under another label must fail"
if "$bp" verify --bits 64 --commitments "$commitments" --proof "$proof" --label "another label"; then
  echo "error: a proof verified under the wrong label" >&2
  exit 1
fi
