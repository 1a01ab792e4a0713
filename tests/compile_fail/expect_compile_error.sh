#!/usr/bin/env bash
# expect_compile_error.sh <file.cpp> <compiler> [flags...]
# Passes when the file does NOT compile for a reason in the file itself (not a missing
# header or a broken command line), and prints the compiler's first error.
set -u
file=$1
shift
out=$("$@" -fsyntax-only "$file" 2>&1)
status=$?
if [ $status -eq 0 ]; then
  echo "FAIL: $file compiled, but it is a misuse that must be rejected"
  exit 1
fi
if grep -q -E "No such file or directory|unrecognized command|unknown argument" <<<"$out"; then
  echo "FAIL: $file failed for an unrelated reason:"
  echo "$out" | head -5
  exit 1
fi
echo "rejected as expected: $(grep -m1 -E 'error' <<<"$out")"
