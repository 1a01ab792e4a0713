#!/usr/bin/env bash
# docs/embedding.md's shell blocks, run as written from the repository's root: the C ABI's
# build and install, the Python package's install and wheel, the Go module's build, and a
# backend's own Go module requiring it by a replace. Only what would touch the machine or
# another build is changed, each substitution checked to apply (a doc edited away from it
# fails here): the build directory (build/gcc: BUILD), the install prefix (/usr/local: a
# directory of the test's), HOME (~), `ldconfig` (not run), and the Python install reusing
# BUILD's libbp (BP_BUILD_DIR) instead of a Release build of its own.
#   tests/bindings/embedding_commands.sh BUILD
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$root/docs/embedding.md" "$work" "$BUILD" >"$work/commands.sh" <<'PY'
import re, sys
doc, work, build = sys.argv[1:]
blocks = re.findall(r"^```sh\n(.*?)^```", open(doc, encoding="utf-8").read(), re.S | re.M)
if len(blocks) != 2:
    sys.exit(f"expected two sh blocks in {doc}, found {len(blocks)}: update tests/bindings/embedding_commands.sh")
text = "\n".join(blocks)
# One pass, so a replacement (BUILD may itself end in build/gcc) is never replaced again.
substitutions = {"$root/build/gcc": build, "build/gcc": build, "--prefix /usr/local": f"--prefix {work}/prefix",
                 "&& ldconfig": "&& true", "~/": f"{work}/home/"}
for old in substitutions:
    if old not in text:
        sys.exit(f"{doc}'s commands no longer contain {old!r}: update tests/bindings/embedding_commands.sh")
pattern = "|".join(re.escape(old) for old in sorted(substitutions, key=len, reverse=True))
text = re.sub(pattern, lambda m: substitutions[m.group(0)], text)
print("set -euo pipefail")
print(text)
PY
mkdir -p "$work/home"
cd "$root"
status=0
env HOME="$work/home" BP_BUILD_DIR="$BUILD" GOFLAGS=-buildvcs=false GOPROXY=off GOCACHE="${GOCACHE:-$work/gocache}" \
  bash "$work/commands.sh" >"$work/out" 2>&1 || status=$?
if [ $status -ne 0 ]; then
  echo "docs/embedding.md's commands failed ($status):" >&2
  tail -20 "$work/out" >&2
  exit 1
fi
if ! [ -e "$work/prefix/include/bp/bp.h" ] || ! ls "$work/prefix"/lib*/libbp.so.0 >/dev/null; then
  echo "error: cmake --install did not install bp/bp.h and libbp.so.0 under the prefix" >&2
  exit 1
fi
"$work/home/bp-venv/bin/python" -c 'import bp_aggregation' ||
  { echo "error: the Python package does not import from ~/bp-venv" >&2; exit 1; }
ls "$root"/build/wheel/bp_aggregation-*-py3-none-linux_*.whl >/dev/null
grep -q "^libbp ABI [0-9]" "$work/out" || { echo "error: the Go consumer printed no ABI:" >&2; cat "$work/out" >&2; exit 1; }
echo "docs/embedding.md's commands ran as written: libbp installed, the Python package and its wheel," \
  "the Go module and a backend's module requiring it ($(grep '^libbp ABI' "$work/out"))"
