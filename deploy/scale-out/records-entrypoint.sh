#!/bin/sh
# Starts the scale-out demo's PostgreSQL. Runs as root only to read the password file (it
# belongs to the init container's user, mode 600) and to own the data directory; the
# server itself runs as postgres. The first start makes the cluster: local connections by
# peer, network ones by scram-sha-256 only, and the role bp owning the database bp.
set -eu
password_file=${BP_RECORDS_PASSWORD_FILE:-/keys/records.password}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  wait_s=60
  while [ ! -s "$password_file" ]; do  # the init container may not have run yet
    [ $wait_s -gt 0 ] || { echo "error: no password in $password_file" >&2; exit 1; }
    wait_s=$((wait_s - 1))
    sleep 1
  done
  install -d -o postgres -g postgres -m 700 "$PGDATA"
  runuser -u postgres -- initdb --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 \
    --locale=C.UTF-8 --username=postgres "$PGDATA" >/dev/null
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "host all all ::/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  socket=$(mktemp -d)
  chown postgres "$socket"
  runuser -u postgres -- pg_ctl -D "$PGDATA" -w -s -o "-c listen_addresses='' -c unix_socket_directories=$socket" start
  # The password reaches psql through a variable (never a command line), read by \set and
  # quoted by :'pw'; a script on stdin, since psql does not interpolate -c commands.
  pw=$(cat "$password_file") runuser -u postgres --preserve-environment -- \
    psql -h "$socket" -d postgres -v ON_ERROR_STOP=1 -q -f - <<'SQL'
\set pw `printf %s "$pw"`
CREATE ROLE bp LOGIN PASSWORD :'pw';
CREATE DATABASE bp OWNER bp;
SQL
  runuser -u postgres -- pg_ctl -D "$PGDATA" -w -s stop
  rmdir "$socket"
  echo "records: a new cluster in $PGDATA, database bp owned by the role bp"
fi
# setpriv execs (no process in between): PostgreSQL is PID 1 and gets the stop signal itself.
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
