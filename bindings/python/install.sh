#!/usr/bin/env bash
# Installs the Python package bp_aggregation into a virtual environment, offline, from this
# repository, with Debian's python3 and pip: builds libbp (Release) unless BP_BUILD_DIR
# names a build that has it, copies it into the package, and pip-installs that.
#   bindings/python/install.sh [VENV]      (default ~/.local/share/bp-aggregation/venv)
# Then: VENV/bin/python -c 'import bp_aggregation'
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${1:-$HOME/.local/share/bp-aggregation/venv}
"$root/deploy/install-deps.sh" --bindings
build=${BP_BUILD_DIR:-$root/build/libbp}
if [ -z "${BP_BUILD_DIR:-}" ]; then
  "$root/deploy/install-deps.sh" --build
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" --target bp_c
fi
lib="$build/bindings/c/libbp.so.0"
[ -e "$lib" ] || { echo "error: no $lib" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$root/bindings/python/pyproject.toml" "$root/bindings/python/bp_aggregation" "$stage/"
cp -L "$lib" "$stage/bp_aggregation/libbp.so.0"
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation --force-reinstall "$stage"
echo "bp_aggregation installed in $venv (ABI $("$venv/bin/python" -c 'import bp_aggregation as b; print(b.abi_version())'))"
