#!/usr/bin/env bash
# Measuring only (not part of the tests): gadget-list proofs checked both ways against the
# reference's build. Each list is proved by `bp r1cs prove` and verified by the reference's
# `bp-oracle r1cs-verify --gadgets`, then proved by `bp-oracle r1cs-prove-list` and verified by
# `bp r1cs verify`. Prints one line per list and direction; exits 1 if any is not ok.
#   tools/r1cs/cross_check.sh BP BP_ORACLE      e.g. build/gcc/tools/bp ../shared/reference/bp-oracle
set -euo pipefail
bp=${1:?usage: $0 BP BP_ORACLE}
oracle=${2:?usage: $0 BP BP_ORACLE}
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); v=d[sys.argv[1]]; print(",".join(v) if isinstance(v, list) else v)' "$1"; }
status=0
# Each list with values that satisfy it (shuffles: outputs a permutation of the inputs).
while IFS='|' read -r list values; do
  ours=$("$bp" r1cs prove --gadgets "$list" --values "$values" --label "cross check")
  verdict=$("$oracle" r1cs-verify --gadgets "$list" --commitments "$(field commitments <<<"$ours")" \
    --proof "$(field proof <<<"$ours")" --label "cross check" || true)
  printf '%-40s ours, checked by the reference: %s\n' "$list" "$verdict"
  [ "$verdict" = ok ] || status=1
  theirs=$("$oracle" r1cs-prove-list --gadgets "$list" --values "$values" --label "cross check" --seed 7)
  verdict=$("$bp" r1cs verify --gadgets "$list" --commitments "$(field commitments <<<"$theirs")" \
    --proof "$(field proof <<<"$theirs")" --label "cross check" || true)
  printf '%-40s the reference'"'"'s, checked by ours: %s\n' "$list" "$verdict"
  [ "$verdict" = ok ] || status=1
done <<'LISTS'
range:64|18446744073709551615
shuffle:1|5,5
shuffle:8|1,2,3,4,5,6,7,8,8,7,6,5,4,3,2,1
shuffle:3;range:32;example|5,6,7,7,5,6,1000,3,4,6,1,40
shuffle:2;range:8;shuffle:3|3,9,9,3,200,1,2,3,3,1,2
range:64;example:5;shuffle:1|18446744073709551615,1,2,3,4,16,77,77
LISTS
exit $status
