#!/usr/bin/env bash
# Every C and C++ file in the repository as .clang-format says (clang-format 14, Debian's).
# Prints the files that differ and exits 1; `tests/format/check_format.sh --fix` rewrites them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
formatter=$(command -v clang-format-14 || command -v clang-format) || { echo "error: clang-format is not installed" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.inc')
if [ "${1:-}" = --fix ]; then
  "$formatter" -i --style=file "${files[@]}"
  exit 0
fi
differ=()
for f in "${files[@]}"; do
  "$formatter" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || differ+=("$f")
done
if [ ${#differ[@]} -ne 0 ]; then
  printf 'not formatted as .clang-format says (tests/format/check_format.sh --fix):\n' >&2
  printf '  %s\n' "${differ[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
