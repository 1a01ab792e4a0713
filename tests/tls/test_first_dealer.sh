#!/usr/bin/env bash
# docs/operations.md's "From nothing to a TLS dealer on PostgreSQL", run as it stands: the
# block after "# first-dealer walk" is taken from the document and run with bash, with the
# built programs on the PATH, a throwaway PostgreSQL 15 (its postgres role, no bp role or
# database yet: the walk makes them), CONF in a temporary directory and DEALER_NAME=localhost.
# A change to the document is a change to what this runs.
#   tests/tls/test_first_dealer.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/cluster/postgres.sh
source "$root/tests/cluster/postgres.sh"
work=$(mktemp -d /tmp/bp-first.XXXXXX)
chmod 755 "$work"
cleanup() {
  [ ! -f "$work/etc/dealer.pid" ] || kill "$(cat "$work/etc/dealer.pid")" 2>/dev/null || true
  pg_stop "$work/pg"
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "   FAIL: $*" >&2; exit 1; }

echo "== docs/operations.md: from nothing to a TLS dealer on PostgreSQL, as written"
sed -n '/^# first-dealer walk$/,/^```$/p' "$root/docs/operations.md" | sed '$d' >"$work/walk.sh"
[ "$(wc -l <"$work/walk.sh")" -gt 30 ] || fail "no walk found in docs/operations.md"

# A PostgreSQL with only its superuser, as apt leaves one.
pg_port=$(free_port)
mkdir -p "$work/pg" "$work/pg.sock" && { [ "$(id -u)" -ne 0 ] || chown postgres: "$work/pg" "$work/pg.sock"; }
pg_as "$PG_BIN/initdb" -D "$work/pg" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >/dev/null
printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\n" "$pg_port" "$work/pg.sock" \
  >>"$work/pg/postgresql.conf"
pg_start "$work/pg"

export PGHOST="$work/pg.sock" PGPORT="$pg_port"
start=$(date +%s)
dealer_port=$(free_port)
metrics_port=$(free_port)
if ! (
  export PATH="$build/server:$build/client:$build/tools:$PATH" CONF="$work/etc" DEALER_NAME=localhost \
    DEALER_IP=127.0.0.1 DEALER_PORT="$dealer_port" METRICS_PORT="$metrics_port"
  timeout 180 bash -euo pipefail "$work/walk.sh" >"$work/walk.out" 2>"$work/walk.err"
); then
  echo "   the walk's output:" >&2; sed 's/^/      /' "$work/walk.out" "$work/walk.err" >&2
  [ ! -f "$work/etc/dealer.log" ] || { echo "   the dealer's log:" >&2; tail -n 20 "$work/etc/dealer.log" | sed 's/^/      /' >&2; }
  fail "the walk stopped"
fi
grep -qx ok "$work/walk.out" || fail "bp verify did not print ok: $(cat "$work/walk.out")"
grep -q '^bp_sessions_completed_total 1$' "$work/walk.out" || fail "the operator's port does not count the session"
grep -q 'outcome record.*PostgreSQL' "$work/etc/dealer.log" || fail "the dealer does not say it records in PostgreSQL"
echo "   ok: CA and SAN certificate, role, database and password file, keys, config, dealer, a verified first session ($(($(date +%s) - start)) s)"

echo "== docs/operations.md's PostgreSQL backup, restored into a new dealer"
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
session=$(field "$work/etc/alice.json" session)
mkdir -p "$work/dump" && { [ "$(id -u)" -ne 0 ] || chown postgres: "$work/dump"; }
# As the document says, with this server's socket: pg_dump while the dealer runs, then
# pg_restore into an empty database owned by the dealer's role.
runuser -u postgres -- pg_dump --format=custom --file="$work/dump/bp.dump" bp
runuser -u postgres -- psql -qc "CREATE DATABASE bp_restored OWNER bp"
runuser -u postgres -- pg_restore --dbname=bp_restored --no-owner --role=bp "$work/dump/bp.dump"
sed "s/:bp:bp:/:bp_restored:bp:/" "$work/etc/pgpass" >"$work/pgpass.restored" && chmod 600 "$work/pgpass.restored"
restored_port=$(free_port)
"$build/server/bp-dealer" --config "$work/etc/dealer.conf" --listen "127.0.0.1:$restored_port" --metrics-listen 127.0.0.1:0 \
  --record "postgresql://bp@127.0.0.1:$pg_port/bp_restored" --record-password-file "$work/pgpass.restored" \
  >"$work/restored.out" 2>"$work/restored.log" &
restored_pid=$!
for _ in $(seq 100); do grep -q listening "$work/restored.out" && break; sleep 0.1; done
stored=$(curl -s --cacert "$work/etc/ca.crt" "https://localhost:$restored_port/v1/sessions/$session")
kill "$restored_pid" 2>/dev/null || true
grep -q '"status":"completed"' <<<"$stored" || fail "the restored dealer does not serve the outcome: $stored"
grep -q "$(field "$work/etc/alice.json" dealer_signature)" <<<"$stored" ||
  fail "the restored outcome is not the one the parties were given"
echo "   ok: pg_dump, pg_restore into a new database, a new dealer on it serves the first session's signed outcome"
echo "first dealer: passed"
