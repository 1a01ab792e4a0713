# shellcheck shell=bash
# PostgreSQL 15 (Debian's) for the cluster tests, sourced by test_cluster.sh: a primary and a
# synchronous streaming standby on loopback ports, run as the postgres user (the server
# refuses root) in directories under $PG_WORK. The dealers log in as role "bp" with a
# password kept in a libpq password file, as an operator would.
PG_BIN=/usr/lib/postgresql/15/bin
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# pg_init_primary DIR PORT
pg_init_primary() {
  local dir=$1 port=$2
  mkdir -p "$dir" "$dir.sock" && { [ "$(id -u)" -ne 0 ] || chown postgres: "$dir" "$dir.sock"; }
  pg_as "$PG_BIN/initdb" -D "$dir" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >/dev/null
  cat >>"$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir.sock'
wal_level = replica
max_wal_senders = 4
synchronous_commit = on
fsync = on
CONF
  # Replication from loopback without a password (the standby's base backup); everything
  # else with scram passwords.
  sed -i '1i host replication postgres 127.0.0.1/32 trust' "$dir/pg_hba.conf"
  pg_start "$dir"
  pg_as "$PG_BIN/psql" -h "$dir.sock" -p "$port" -U postgres -qc "CREATE ROLE bp LOGIN PASSWORD 'bp-test-password'" >/dev/null
  pg_as "$PG_BIN/psql" -h "$dir.sock" -p "$port" -U postgres -qc "CREATE DATABASE bp OWNER bp" >/dev/null
}

# pg_init_standby DIR PORT PRIMARY_PORT: a base backup that streams from the primary as
# the synchronous standby "standby1".
pg_init_standby() {
  local dir=$1 port=$2 primary=$3
  mkdir -p "$dir" "$dir.sock" && { [ "$(id -u)" -ne 0 ] || chown postgres: "$dir" "$dir.sock"; }
  chmod 700 "$dir"
  pg_as "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$dir" -X stream -R -c fast \
    -d "application_name=standby1" >/dev/null
  sed -i "s/^port = .*/port = $port/; s|^unix_socket_directories = .*|unix_socket_directories = '$dir.sock'|" \
    "$dir/postgresql.conf"
  pg_start "$dir"
}

# pg_require_sync_standby DIR PORT: from now on every commit on the primary waits for
# standby1 (set once it streams, or setting up the standby would wait for itself).
pg_require_sync_standby() {
  pg_as "$PG_BIN/psql" -h "$1.sock" -p "$2" -U postgres -qc "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" >/dev/null
  pg_as "$PG_BIN/psql" -h "$1.sock" -p "$2" -U postgres -qc "SELECT pg_reload_conf()" >/dev/null
}

pg_start() { pg_as "$PG_BIN/pg_ctl" -D "$1" -l "$1/server.log" -w -t 60 start >/dev/null; }
pg_stop() { pg_as "$PG_BIN/pg_ctl" -D "$1" -m immediate stop >/dev/null 2>&1 || true; }
pg_pid() { head -1 "$1/postmaster.pid"; }
pg_promote() { pg_as "$PG_BIN/pg_ctl" -D "$1" -w promote >/dev/null; }
# pg_sql DIR PORT SQL: a query on that server as the superuser, unaligned output
pg_sql() { pg_as "$PG_BIN/psql" -h "$1.sock" -p "$2" -U postgres -d bp -Atqc "$3"; }
