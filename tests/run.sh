#!/usr/bin/env bash
# shellcheck disable=SC2317  # the stage_* functions are called by name ("stage_$s")
# The test command, in stages:
#   tests/run.sh              every stage (what .ci/run runs)
#   tests/run.sh STAGE...     those stages only (each builds or installs what it needs)
#   tests/run.sh --list       the stages and what each checks
# Every stage runs even when an earlier one failed; the exit status says whether any did,
# and the last lines are a table of each stage's result and wall time. Each stage installs
# the Debian packages it needs (deploy/install-deps.sh SET), once per run.
#
# The sanitizer builds are started in the background, at the lowest priority, as soon as
# the g++ build is done: they take the CPU the network stages leave idle (those wait on
# sockets, timeouts and containers most of the time, and at normal priority they keep the
# CPU they need), and their stages then run their tests with the machine to themselves.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

all_stages=(format deploy gcc demo cluster faults tls prometheus netns containers asan tsan)
declare -A about=(
  [format]="clang-format: every C and C++ file as .clang-format says"
  [deploy]="deployment artefacts: compose files, Dockerfile, scripts (shellcheck), Kubernetes manifests"
  [gcc]="g++ build (warnings as errors) and every CTest: unit, vectors, service, bindings (C, Python, Go), static, valgrind constant-time"
  [demo]="the main job (deploy/demo.sh) on the g++ build, its output held to every section it promises"
  [cluster]="three dealers behind nginx on PostgreSQL with a standby: SIGKILL, a ring change, failover, a full disk; a rolling restart under C++, C, Python and Go parties"
  [faults]="the fault-injection test: a nemesis (kill, pause, SIGTERM, ring change, database cut and failover) under load, and a checker"
  [tls]="testssl.sh against the TLS dealer, --tls-min-version 1.3, certificate reload on SIGHUP; docs/operations.md's first-dealer walk on PostgreSQL"
  [prometheus]="alert and recording rules (promtool), every rule and dashboard query on a real Prometheus scraping a dealer"
  [netns]="the compose topology as local processes in network namespaces"
  [containers]="the image built with podman; the compose demos (plain, TLS, three replicas with Prometheus)"
  [asan]="clang++ AddressSanitizer + UndefinedBehaviorSanitizer build, every CTest, the fuzzers"
  [tsan]="clang++ ThreadSanitizer build: the daemon's integration tests and the C ABI's threads"
)
declare -A sets=(
  [format]="format" [deploy]="deploy" [gcc]="build bindings gcc" [demo]="build gcc" [cluster]="build bindings gcc postgres nginx"
  [faults]="build gcc postgres nginx" [tls]="build gcc tls postgres" [prometheus]="build gcc prometheus"
  [netns]="build gcc netns" [containers]="containers" [asan]="build bindings clang" [tsan]="build bindings clang"
)

if [ "${1:-}" = --list ]; then
  for s in "${all_stages[@]}"; do printf '%-11s %s\n' "$s" "${about[$s]}"; done
  exit 0
fi
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${all_stages[@]}")
for s in "${selected[@]}"; do
  [ -n "${about[$s]+set}" ] || { echo "error: no stage '$s' (tests/run.sh --list)" >&2; exit 2; }
done
wants() { local s; for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

declare -A installed=()
install_for() {  # install_for STAGE: its package sets, each once per run
  local set todo=()
  for set in ${sets[$1]}; do [ -n "${installed[$set]+set}" ] || todo+=("$set"); done
  [ ${#todo[@]} -eq 0 ] && return 0
  "$root/deploy/install-deps.sh" "${todo[@]}" || return 1
  for set in "${todo[@]}"; do installed[$set]=1; done
}

# One configuration per build tree, with the test builds' flags: -g1 (lines only) for
# stack traces at half the compile time of full debug information; the sanitizers at -O1.
gcc_build=$root/build/gcc
configure_gcc() {
  cmake -S "$root" -B "$gcc_build" -G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DBP_WERROR=ON >/dev/null
}
# The programs and tests the stages after gcc run (all of them when the gcc stage ran).
need_gcc_build() { configure_gcc && cmake --build "$gcc_build" -j "$(nproc)"; }
configure_sanitizer() {  # configure_sanitizer DIR FLAG
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" "$2" -DBP_WERROR=ON >/dev/null
}

# The background build of the sanitizer trees: ASan+UBSan (everything), then TSan (what
# its stage runs), at nice 19.
bg_pid='' bg_log=$root/build/sanitizer-builds.log
start_sanitizer_builds() {
  wants asan || wants tsan || return 0
  [ -z "$bg_pid" ] || return 0
  install_for asan || return 1
  mkdir -p "$root/build"
  # Each tree's outcome is a file of its own, and every step is chained with &&: this runs
  # inside a stage's `if`, where bash ignores set -e, and a failed build must fail its
  # stage by name rather than leave its tests "Not Run".
  rm -f "$root/build/asan.built" "$root/build/tsan.built"
  (
    if wants asan; then
      configure_sanitizer "$root/build/asan" -DBP_SANITIZE=ON &&
        nice -n 19 cmake --build "$root/build/asan" -j "$(nproc)" &&
        touch "$root/build/asan.built"
    fi
    if wants tsan; then
      configure_sanitizer "$root/build/tsan" -DBP_TSAN=ON &&
        nice -n 19 cmake --build "$root/build/tsan" -j "$(nproc)" --target bp_threads_tests &&
        touch "$root/build/tsan.built"
    fi
  ) >"$bg_log" 2>&1 &
  bg_pid=$!
  echo "   (the sanitizer builds run in the background at nice 19: $bg_log)"
}
bg_waited=''
wait_sanitizer_builds() {  # wait_sanitizer_builds asan|tsan: did that tree build?
  if [ -z "$bg_waited" ]; then
    if [ -z "$bg_pid" ]; then start_sanitizer_builds || return 1; fi
    wait "$bg_pid"
    bg_waited=yes
  fi
  [ -f "$root/build/$1.built" ] && return 0
  echo "the $1 build failed ($bg_log):"
  grep -E "error:|FAILED:" "$bg_log" | head -n 20
  return 1
}

stage_format() { "$root/tests/format/check_format.sh"; }
stage_deploy() { "$root/deploy/check-deploy.sh"; }
# Stages run in this shell (the background build they may start must be its child); each
# is one chain of commands whose status is the stage's.
stage_gcc() {
  configure_gcc && cmake --build "$gcc_build" -j "$(nproc)" &&
    { start_sanitizer_builds; ctest --test-dir "$gcc_build" --output-on-failure -j 2; }
}
stage_demo() { need_gcc_build && "$root/tests/demo/check_demo.sh" "$gcc_build"; }
# The rolling restart of tests/bindings needs the cluster's PostgreSQL and nginx; its Python
# package is installed afresh from this build (the g++ stage's copy may be another build's).
stage_cluster() {
  need_gcc_build && "$root/tests/cluster/test_cluster.sh" "$gcc_build" &&
    BP_BUILD_DIR="$gcc_build" "$root/bindings/python/install.sh" "$gcc_build/python-venv" >/dev/null &&
    "$root/tests/bindings/rolling_restart.sh" "$gcc_build" "$gcc_build/python-venv/bin/python"
}
stage_faults() { need_gcc_build && "$root/tests/faults/test_faults.sh" "$gcc_build"; }
stage_tls() {
  need_gcc_build && "$root/tests/tls/test_tls_dealer.sh" "$gcc_build" && "$root/tests/tls/test_first_dealer.sh" "$gcc_build"
}
stage_prometheus() { need_gcc_build && "$root/tests/prometheus/test_prometheus.sh" "$gcc_build"; }
stage_netns() { need_gcc_build && "$root/deploy/netns-demo.sh" "$gcc_build"; }
stage_containers() { "$root/deploy/container-demo.sh"; }
stage_asan() {
  wait_sanitizer_builds asan &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir "$root/build/asan" --output-on-failure -j 2
}
stage_tsan() {
  wait_sanitizer_builds tsan &&
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir "$root/build/tsan" --output-on-failure -L threads
}

declare -A result=() took=()
run_started=$(date +%s)
# Without the g++ stage nothing comes before the sanitizer builds: they start at once.
wants gcc || start_sanitizer_builds || true
for s in "${all_stages[@]}"; do
  wants "$s" || continue
  echo "== $s: ${about[$s]}"
  started=$(date +%s)
  if install_for "$s" && "stage_$s"; then result[$s]=passed; else result[$s]=FAILED; fi
  took[$s]=$(($(date +%s) - started))
done
[ -z "$bg_pid" ] || wait "$bg_pid" 2>/dev/null || true

echo
echo "| stage | result | wall time |"
echo "|---|---|---:|"
status=0
for s in "${all_stages[@]}"; do
  wants "$s" || continue
  printf '| %s | %s | %d min %02d s |\n' "$s" "${result[$s]}" $((took[$s] / 60)) $((took[$s] % 60))
  [ "${result[$s]}" = passed ] || status=1
done
total=$(($(date +%s) - run_started))
printf '| all | %s | %d min %02d s |\n' "$([ $status = 0 ] && echo passed || echo FAILED)" $((total / 60)) $((total % 60))
exit $status
