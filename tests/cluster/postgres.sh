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

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# pg_pair_up WORK: a primary (WORK/pg1) and its synchronous standby (WORK/pg2) on free
# ports; sets pg1_port, pg2_port and pg_conninfo (both hosts, the primary found by libpq) and
# writes the role's password to the libpq password file WORK/pgpass.
pg_pair_up() {
  pg1_port=$(free_port)
  pg2_port=$(free_port)
  pg_init_primary "$1/pg1" "$pg1_port"
  pg_init_standby "$1/pg2" "$pg2_port" "$pg1_port"
  pg_require_sync_standby "$1/pg1" "$pg1_port"
  for _ in $(seq 50); do
    [ "$(pg_sql "$1/pg1" "$pg1_port" "SELECT sync_state FROM pg_stat_replication")" = sync ] && break
    sleep 0.1
  done
  echo "127.0.0.1:*:bp:bp:bp-test-password" >"$1/pgpass"
  chmod 600 "$1/pgpass"
  # shellcheck disable=SC2034  # for the caller
  pg_conninfo="postgresql://bp@127.0.0.1:$pg1_port,127.0.0.1:$pg2_port/bp?target_session_attrs=read-write&connect_timeout=2"
}
pg_pair_down() {
  pg_stop "$1/pg1"
  pg_stop "$1/pg2"
}
