#!/usr/bin/env bash
# go test of the Go module (bindings/go) against the libbp, bp-dealer and bp of BUILD.
#   tests/bindings/run_go_tests.sh BUILD
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
# shellcheck source=tests/bindings/go_env.sh
. "$root/tests/bindings/go_env.sh"
cd "$root/bindings/go"
go vet ./...
BP_BUILD_DIR="$BUILD" go test -count=1 ./...
