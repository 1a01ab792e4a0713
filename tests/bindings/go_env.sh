# shellcheck shell=bash
# cgo against the libbp of a build (sourced by the Go tests' scripts): BUILD must be set.
export CGO_LDFLAGS="-L$BUILD/bindings/c -Wl,-rpath,$BUILD/bindings/c"
export GOFLAGS="-buildvcs=false" GO111MODULE=on GOPROXY=off
