#!/usr/bin/env bash
# libbp exports only the C ABI: every defined dynamic symbol starts with bp_, every
# function the header declares is exported, and the soname carries the major version.
set -euo pipefail
lib=$1 header=$2
fail() { echo "error: $*" >&2; exit 1; }
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = libbp.so.0 ] || fail "soname is '$soname', not libbp.so.0"
# (the version node BP_0 is listed too, as an absolute symbol)
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
stray=$(grep -v '^bp_' <<<"$exported" || true)
[ -z "$stray" ] || fail "libbp exports symbols outside the C ABI: $(head -5 <<<"$stray" | tr '\n' ' ')"
declared=$(grep -oE '^BP_API [^(]*\b(bp_[a-z0-9_]+)\(' "$header" | grep -oE 'bp_[a-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
[ -z "$missing" ] || fail "declared in bp.h but not exported: $missing"
undeclared=$(comm -13 <(echo "$declared") <(echo "$exported"))
[ -z "$undeclared" ] || fail "exported but not declared in bp.h: $undeclared"
echo "libbp ($soname): $(wc -l <<<"$exported") symbols, all bp_ and all declared in bp.h"
