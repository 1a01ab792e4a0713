#!/usr/bin/env bash
# check_install.sh <build dir> <example source> <compiler> <gadget source>: installs the build
# into a scratch prefix, then configures and builds a separate project against it with
# find_package(bp): the party example (bp::client) and a gadget of its own (bp::core), run.
set -euo pipefail
build=$1 example=$2 compiler=$3 gadget=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
test -f "$scratch/prefix/include/bp/client/party_client.hpp"
test -f "$scratch/prefix/lib/cmake/bp/bpConfig.cmake"
cmake -S "$(dirname "$0")" -B "$scratch/consumer" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DEXAMPLE_SOURCE="$example" -DGADGET_SOURCE="$gadget" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/join_and_prove" 2>/dev/null && exit 1 || true   # usage error without arguments
"$scratch/consumer/own_gadget"
echo "installed package found and the examples built against it"
