#!/usr/bin/env bash
# Builds the Python package as a wheel that carries libbp and the two libraries it needs
# that a Linux machine may lack (libsodium 23, libprotobuf 32), offline, with Debian's
# python3 and pip: installing the wheel (`pip install bp_aggregation-*.whl`) compiles
# nothing. It is tagged for this platform (py3-none-linux_x86_64: any Python 3 here) and
# needs from the machine only glibc, libstdc++, OpenSSL 3 and zlib.
#   bindings/python/build-wheel.sh [OUT_DIR]      (default build/wheel)
# builds libbp (Release) unless BP_BUILD_DIR names a build that has it; prints the wheel's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/wheel}
"$root/deploy/install-deps.sh" --bindings >&2
build=${BP_BUILD_DIR:-$root/build/libbp}
if [ -z "${BP_BUILD_DIR:-}" ]; then
  "$root/deploy/install-deps.sh" --build >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" --target bp_c >&2
fi
lib="$build/bindings/c/libbp.so.0"
[ -e "$lib" ] || { echo "error: no $lib" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$root/bindings/python/pyproject.toml" "$root/bindings/python/setup.py" "$root/bindings/python/bp_aggregation" \
  "$stage/"
cp -L "$lib" "$stage/bp_aggregation/libbp.so.0"
strip --strip-debug "$stage/bp_aggregation/libbp.so.0"  # a test build's line tables stay out of the wheel
# The libraries libbp links that are not part of every Linux (bp_aggregation/_native.py
# loads them from the package before libbp, so the dynamic loader finds them by soname).
for soname in libsodium.so.23 libprotobuf.so.32; do
  path=$(ldd "$lib" | awk -v s="$soname" '$1 == s { print $3 }')
  [ -n "$path" ] || { echo "error: libbp does not link $soname (bindings/python/build-wheel.sh lists what it bundles)" >&2; exit 1; }
  cp -L "$path" "$stage/bp_aggregation/$soname"
done
mkdir -p "$out"
rm -f "$out"/bp_aggregation-*.whl
/usr/bin/python3 -m pip wheel --quiet --no-index --no-build-isolation --no-deps --wheel-dir "$out" "$stage" >&2
wheel=$(ls "$out"/bp_aggregation-*.whl)
echo "$wheel"
