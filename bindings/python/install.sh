#!/usr/bin/env bash
# Installs the Python package bp_aggregation into a virtual environment, offline, from this
# repository, with Debian's python3 and pip: builds the wheel (bindings/python/build-wheel.sh:
# libbp, Release, unless BP_BUILD_DIR names a build that has it, with the libraries it
# bundles) and pip-installs it.
#   bindings/python/install.sh [VENV]      (default ~/.local/share/bp-aggregation/venv)
# Then: VENV/bin/python -c 'import bp_aggregation'
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${1:-$HOME/.local/share/bp-aggregation/venv}
dist=$(mktemp -d)
trap 'rm -rf "$dist"' EXIT
wheel=$("$root/bindings/python/build-wheel.sh" "$dist")
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --force-reinstall "$wheel"
echo "bp_aggregation installed in $venv (ABI $("$venv/bin/python" -c 'import bp_aggregation as b; print(b.abi_version())'))"
