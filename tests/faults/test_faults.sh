#!/usr/bin/env bash
# The fault-injection test (tests/faults/run_faults.py says what it does and checks): starts
# PostgreSQL 15, a primary with a synchronous standby, then the replicas, the balancer, the
# load, the nemesis and the checker. About three minutes; prints its seed and schedule.
#   tests/faults/test_faults.sh BUILD_DIR [--seed N]
# Needs root (runs PostgreSQL as the postgres user).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
shift
# shellcheck source=tests/cluster/postgres.sh
source "$root/tests/cluster/postgres.sh"
work=$(mktemp -d /tmp/bp-faults.XXXXXX)
chmod 755 "$work"
cleanup() {
  pg_pair_down "$work"
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "work kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
echo "== PostgreSQL 15: a primary and a synchronous standby on loopback"
pg_pair_up "$work"
echo "== three replicas behind nginx, a steady load, and a nemesis"
PG1_DIR="$work/pg1" PG1_PORT=$pg1_port PG2_DIR="$work/pg2" PG2_PORT=$pg2_port \
  python3 "$here/run_faults.py" "$build" "$work" "$@"
