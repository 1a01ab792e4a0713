#!/usr/bin/env bash
# The Python wheel as a user installs it: bindings/python/build-wheel.sh from this build,
# then into a new virtual environment with no system packages, offline, and from a clean
# environment (no BP_LIBBP, no LD_LIBRARY_PATH). The wheel must be tagged for this platform,
# carry libbp and the libraries it bundles, and the installed package must load those
# copies (not the machine's), report the ABI, and prove and verify. Installing runs with an
# empty PATH: nothing is compiled.
#   tests/bindings/python_wheel.sh BUILD
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=$(BP_BUILD_DIR="$BUILD" "$root/bindings/python/build-wheel.sh" "$work/dist" 2>"$work/build.log") ||
  { cat "$work/build.log" >&2; exit 1; }
case "$(basename "$wheel")" in
  bp_aggregation-*-py3-none-linux_*.whl) ;;
  *) echo "error: the wheel $(basename "$wheel") is not tagged py3-none-linux_*" >&2; exit 1 ;;
esac
/usr/bin/python3 - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for f in ("libbp.so.0", "libsodium.so.23", "libprotobuf.so.32", "py.typed", "_native.py"):
    assert f"bp_aggregation/{f}" in names, f"the wheel lacks bp_aggregation/{f}: {sorted(names)}"
PY
/usr/bin/python3 -m venv "$work/venv"
# With nothing on PATH: no compiler (nor anything else) is there to be called.
mkdir "$work/empty"
env -i PATH="$work/empty" HOME="$work" "$work/venv/bin/python" -m pip install --quiet --no-index "$wheel"
env -i PATH=/usr/bin:/bin HOME="$work" "$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
import bp_aggregation as bp
venv = sys.argv[1]
maps = open("/proc/self/maps").read()
for soname in ("libbp.so.0", "libsodium.so.23", "libprotobuf.so.32"):
    paths = {line.split()[-1] for line in maps.splitlines() if line.endswith("/" + soname)}
    assert paths and all(p.startswith(venv) for p in paths), f"{soname} loaded from {paths}, not the wheel's copy"
proof, commitments = bp.prove([7, 2**64 - 1], bits=64, label="wheel")
bp.verify(proof, commitments, bits=64, label="wheel")
try:
    bp.verify(proof, commitments, bits=64, label="another label")
    raise SystemExit("a proof verified under another label")
except bp.VerificationError:
    pass
print(f"python wheel: installed into a bare venv with an empty PATH; ABI {bp.abi_version()};"
      " libbp, libsodium and libprotobuf loaded from the wheel; prove and verify work")
PY
