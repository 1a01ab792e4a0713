#!/usr/bin/env bash
# Every test: unit, vector, property, CLI and integration tests plus the valgrind
# constant-time check (g++, warnings as errors); more than one dealer for real (three
# replicas behind nginx sharing PostgreSQL 15 with a standby: a replica added and one
# killed, the primary killed and the standby promoted, a full disk); the dealer's TLS under
# testssl.sh and a certificate reload; the Prometheus rules and the Grafana dashboard
# (promtool, and every query on a real Prometheus scraping a real dealer); the deployment
# checks, the multi-node topology in network namespaces, and the image built with podman
# running the compose demos (plain, TLS, and three replicas with Prometheus); then the whole suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang++, warnings as errors) and the daemon's integration
# tests under ThreadSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deploy/install-deps.sh"

echo "== g++ build and tests"
"$root/deploy/build.sh" "$root/build/gcc" -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBP_WERROR=ON
ctest --test-dir "$root/build/gcc" --output-on-failure -j 2

echo "== more than one dealer: replicas behind nginx sharing PostgreSQL, failover, a full disk"
"$root/tests/cluster/test_cluster.sh" "$root/build/gcc"

echo "== TLS as an operator audits it: testssl.sh, --tls-min-version 1.3, certificate reload on SIGHUP"
"$root/tests/tls/test_tls_dealer.sh" "$root/build/gcc"

echo "== alert and recording rules and the dashboard: promtool, and every query on a real Prometheus scraping a real dealer"
"$root/tests/prometheus/test_prometheus.sh" "$root/build/gcc"

echo "== deployment artefacts (compose, Dockerfile, scripts, Kubernetes manifests)"
"$root/deploy/check-deploy.sh"
echo "== the compose topology as local processes in network namespaces"
"$root/deploy/netns-demo.sh" "$root/build/gcc"
echo "== the image built with podman and the compose demo run (plain and TLS)"
"$root/deploy/container-demo.sh"

echo "== clang++ AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
"$root/deploy/build.sh" "$root/build/asan" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBP_SANITIZE=ON -DBP_WERROR=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build/asan" --output-on-failure -j 2

echo "== clang++ ThreadSanitizer build: the daemon's integration tests and the C ABI's threads"
cmake -S "$root" -B "$root/build/tsan" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBP_TSAN=ON -DBP_WERROR=ON >/dev/null
cmake --build "$root/build/tsan" -j "$(nproc)" --target test_service test_auth_service test_hardening test_c_abi bp-dealer bp-party bp
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir "$root/build/tsan" --output-on-failure \
  -R '^test_(auth_service|service|hardening|c_abi)$'
