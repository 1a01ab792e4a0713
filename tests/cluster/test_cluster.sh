#!/usr/bin/env bash
# More than one dealer, for real: three bp-dealer replicas sharing one PostgreSQL 15 record
# (a primary with a synchronous streaming standby) behind Debian's nginx configured as
# deploy/k8s/ingress.yaml routes, and one dealer whose SQLite file sits on a full disk. All
# on loopback, with the real bp-party client over real sockets:
#   A  sessions through the balancer; every record readable through it
#   B  a replica added (nginx reload): every record still readable, no id taken twice
#   C  a replica SIGKILLed under load: its sessions are taken over by the replicas their
#      parties reach next and complete there (the waiting ones and those in flight), every
#      record readable, no id reused
#   D  the database primary SIGKILLed under load and the standby promoted: dealers reconnect
#      by themselves, every proof handed out is on the new primary, the gap ends in clear
#      errors, no id reused
#   F  a replica killed (at a crash point) between claiming a quorum session's successor and
#      recording its predecessor's abort: the next replica takes the predecessor over and
#      starts a successor of its own, which the parties finish; the orphan never completes
#   E  a full disk under SQLite: nothing unrecorded is handed out, readiness fails, new
#      sessions are refused, the parties caught in it end with an error naming the record,
#      and the dealer recovers by itself when space is back
# Usage: tests/cluster/test_cluster.sh BUILD_DIR. Needs root (runs PostgreSQL as postgres,
# mounts a small tmpfs); prints "N passed, M failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
dealer_bin="$build/server/bp-dealer"
party="$build/client/bp-party"
# shellcheck source=tests/cluster/postgres.sh
source "$here/postgres.sh"

work=$(mktemp -d /tmp/bp-cluster.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/s"
declare -A dealer_pid dealer_port
nginx_pid=
small_fs=
cleanup() {
  for name in "${!dealer_pid[@]}"; do kill -9 "${dealer_pid[$name]}" 2>/dev/null || true; done
  [ -z "$nginx_pid" ] || kill "$nginx_pid" 2>/dev/null || true
  pg_pair_down "$work"
  [ -z "$small_fs" ] || umount "$small_fs" 2>/dev/null || true
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "work kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { failed=$((failed + 1)); echo "   FAIL: $*"; }
expect() {  # expect "what" COMMAND...
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
new_id() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }

# ---- servers ----
"$party" keygen --out "$work/dealer.key" >/dev/null

# start_dealer NAME RECORD [FLAGS...]: a replica on a free loopback port, the shared dealer key
start_dealer() {
  local name=$1 store=$2
  shift 2
  : >"$work/$name.out"
  "$dealer_bin" --listen 127.0.0.1:0 --allow-anonymous --replica-name "$name" --record "$store" \
    --record-password-file "$work/pgpass" --dealer-key "$work/dealer.key" --heartbeat-ms 500 \
    --takeover-after-ms 1500 --replica-ttl-s 10 \
    --record-timeout-ms 3000 --round-timeout-ms 10000 --reconnect-grace-ms 500 --max-connections-per-ip 2000 \
    --max-connects-per-ip-per-s 100000 --max-sessions-per-ip 1000 --max-anonymous-sessions-per-ip 1000 \
    --log-level info "$@" >>"$work/$name.out" 2>>"$work/$name.log" &
  dealer_pid[$name]=$!
  for _ in $(seq 200); do grep -qs listening "$work/$name.out" && break; sleep 0.05; done
  dealer_port[$name]=$(sed -nE 's/.*listening on .*:([0-9]+)$/\1/p' "$work/$name.out" | tail -1)
  [ -n "${dealer_port[$name]}" ] || { echo "error: $name did not start:" >&2; tail "$work/$name.log" >&2; exit 1; }
}

nginx_port=$(free_port)
lb="http://127.0.0.1:$nginx_port"
ws_lb="ws://127.0.0.1:$nginx_port"
# route_to NAME...: nginx, as the Ingress routes, over these replicas (started, or reloaded)
route_to() {
  local upstreams=()
  for name in "$@"; do upstreams+=("127.0.0.1:${dealer_port[$name]}"); done
  "$root/deploy/nginx/render-ingress-conf.sh" "$work/nginx/nginx.conf" "127.0.0.1:$nginx_port" "$work/nginx" \
    "${upstreams[@]}"
  if [ -z "$nginx_pid" ]; then
    nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
    nginx_pid=$!
    for _ in $(seq 100); do curl -s -o /dev/null "$lb/healthz" && break; sleep 0.05; done
  else
    nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -s reload
    sleep 1  # the old worker finishes; new connections use the new ring
  fi
}

# ---- sessions ----
# run_session ID [URL]: create (n = 8, two parties) and both joins; 0 when both got a proof.
# Every step is bounded: a hang is a failure, never a stuck test.
session_url=  # where run_session goes without a URL: the balancer, until E
run_session() {
  local id=$1 url=${2:-${session_url:-$ws_lb}}
  timeout 30 "$party" create-session --dealer "$url" --bits 8 --parties 2 --session-id "$id" \
    --round-timeout-ms 10000 >"$work/s/$id.created" 2>"$work/s/$id.create.err" || return 1
  local p0 p1 status=0
  timeout 40 "$party" join --bits 8 --dealer "$url" --session "$id" --value 5 --timeout-ms 30000 \
    >"$work/s/$id.p0.json" 2>"$work/s/$id.p0.err" &
  p0=$!
  timeout 40 "$party" join --bits 8 --dealer "$url" --session "$id" --value 7 --timeout-ms 30000 \
    >"$work/s/$id.p1.json" 2>"$work/s/$id.p1.err" &
  p1=$!
  wait $p0 || status=1
  wait $p1 || status=1
  return $status
}
# handed_out ID: did any party of it get a proof?
handed_out() { grep -qs '"proof"' "$work/s/$1.p0.json" "$work/s/$1.p1.json"; }
# record_holds ID [BASE_URL]: the record (GET /v1/sessions/ID) holds what its parties got
record_holds() {
  local id=$1 base=${2:-$lb}
  curl -s --max-time 10 "$base/v1/sessions/$id" >"$work/s/$id.record" || return 1
  python3 - "$work/s/$id.record" "$work/s/$id.p0.json" "$work/s/$id.p1.json" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    try:
        got = json.load(open(path))
    except (OSError, ValueError):
        continue  # this party got no proof
    if record.get("status") != "completed" or record.get("proof") != got["proof"] or \
            record.get("commitments") != got["commitments"]:
        sys.exit(1)
sys.exit(0 if record.get("status") in ("completed", "aborted") else 1)
PY
}
# refused_again ID: a second create under a used id is refused with "session id in use"
refused_again() {
  for _ in 1 2 3; do
    ! timeout 30 "$party" create-session --dealer "$ws_lb" --bits 8 --parties 2 --session-id "$1" \
      >/dev/null 2>"$work/s/$1.again.err" || return 1  # accepted: the id was taken twice
    grep -q "session id in use" "$work/s/$1.again.err" && return 0
    sleep 1  # refused for another reason (the record busy): ask again
  done
  return 1
}
count() {  # count PREDICATE ID...: how many ids satisfy it
  local predicate=$1 n=0
  shift
  for id in "$@"; do if "$predicate" "$id"; then n=$((n + 1)); fi; done
  echo $n
}
# run_ids ID...: these sessions, four at a time
run_ids() {
  local pids=() k=0 id
  for id in "$@"; do
    run_session "$id" &
    pids+=($!)
    k=$((k + 1))
    # Waiting for our own children only (nginx is one too).
    if [ "$k" -ge 4 ]; then wait "${pids[$((k - 4))]}" || true; fi
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
}
# run_batch VAR N: N new sessions; their ids appended to array VAR
run_batch() {
  local -n into=$1
  local ids=() id
  for _ in $(seq "$2"); do ids+=("$(new_id)"); done
  into+=("${ids[@]}")
  run_ids "${ids[@]}"
}
ran_on() { grep -l "session=$1 session completed" "$work"/dealer-*.log 2>/dev/null | xargs -r -n1 basename | sed 's/\.log$//'; }

echo "== PostgreSQL 15: a primary and a synchronous standby on loopback"
pg_pair_up "$work"
conninfo=$pg_conninfo
expect "the record's contract holds on this PostgreSQL (test_record_store)" \
  env BP_TEST_POSTGRES="$conninfo" PGPASSFILE="$work/pgpass" "$build/tests/test_record_store" -tc='PostgreSQL*'
expect "the standby streams synchronously" \
  test "$(pg_sql "$work/pg1" "$pg1_port" "SELECT sync_state FROM pg_stat_replication")" = sync

echo "== A: two replicas behind nginx (routing rendered from deploy/k8s/ingress.yaml)"
start_dealer dealer-1 "$conninfo"
start_dealer dealer-2 "$conninfo"
route_to dealer-1 dealer-2
ids_a=()
run_batch ids_a 12
expect "12 of 12 sessions through the balancer completed" test "$(count handed_out "${ids_a[@]}")" = 12
expect "every record is readable through the balancer" test "$(count record_holds "${ids_a[@]}")" = 12
# The ring hashes random ids: twelve all on one replica is rare but possible (a split of
# the ring's 2 × 160 points far from even makes it likelier), so up to two more batches.
replicas_used() { for id in "${ids_a[@]}"; do ran_on "$id"; done | sort -u | wc -l; }
for _ in 1 2; do [ "$(replicas_used)" = 2 ] || run_batch ids_a 12; done
expect "the sessions ran on both replicas ($(replicas_used) replicas, ${#ids_a[@]} sessions)" test "$(replicas_used)" = 2

echo "== B: a third replica joins the ring (nginx reload)"
start_dealer dealer-3 "$conninfo"
route_to dealer-1 dealer-2 dealer-3
expect "every record is still readable through the balancer" test "$(count record_holds "${ids_a[@]}")" = "${#ids_a[@]}"
expect "no finished session's id is accepted again" test "$(count refused_again "${ids_a[@]}")" = "${#ids_a[@]}"
ids_b=()
run_batch ids_b 12
expect "12 of 12 new sessions completed on the new ring" test "$(count handed_out "${ids_b[@]}")" = 12
# Through the balancer, GET for a session running on another replica says where it runs.
probe=$(new_id)
timeout 30 "$party" create-session --dealer "$ws_lb" --bits 8 --parties 2 --session-id "$probe" >/dev/null
open_on=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status"), d.get("replica"))' \
  < <(curl -s "http://127.0.0.1:${dealer_port[dealer-1]}/v1/sessions/$probe"))
expect "any replica says where an open session runs ($open_on)" grep -qE '^open dealer-[123]$' <<<"$open_on"

echo "== C: a replica SIGKILLed under load: its sessions go on elsewhere"
# Sessions waiting for their second party, spread over the replicas; then full sessions
# running while one replica dies; then the second parties come.
# Their join deadline (40 s) outlasts the set-up on a loaded 2-core machine: nine creates,
# nine lookups and the load take 1 s each there while the sanitizer trees build beside
# this stage, and with 15 s the first sessions' deadlines passed before the kill.
waiting=()
for _ in $(seq 9); do
  id=$(new_id)
  waiting+=("$id")
  timeout 30 "$party" create-session --dealer "$ws_lb" --bits 8 --parties 2 --session-id "$id" \
    --round-timeout-ms 40000 >"$work/s/$id.created" 2>"$work/s/$id.create.err"
  timeout 60 "$party" join --bits 8 --dealer "$ws_lb" --session "$id" --value 1 --timeout-ms 50000 \
    >"$work/s/$id.p0.json" 2>"$work/s/$id.p0.err" &
  echo $! >"$work/s/$id.pid"
done
sleep 1
declare -A host_of
for id in "${waiting[@]}"; do
  host_of[$id]=$(curl -s "$lb/v1/sessions/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("replica",""))')
done
victim=$(for id in "${waiting[@]}"; do echo "${host_of[$id]}"; done | sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
on_victim=()
for id in "${waiting[@]}"; do [ "${host_of[$id]}" = "$victim" ] && on_victim+=("$id"); done
echo "   the victim, running the most waiting sessions: $victim (${#on_victim[@]} of them)"
ids_c=()
for _ in $(seq 8); do ids_c+=("$(new_id)"); done
run_ids "${ids_c[@]}" &
load=$!
sleep 0.5
kill -9 "${dealer_pid[$victim]}"
killed_at=$(date +%s%N)
wait "${dealer_pid[$victim]}" 2>/dev/null || true
unset "dealer_pid[$victim]"
seconds=()
for id in "${waiting[@]}"; do
  timeout 60 "$party" join --bits 8 --dealer "$ws_lb" --session "$id" --value 2 --timeout-ms 50000 \
    >"$work/s/$id.p1.json" 2>"$work/s/$id.p1.err" &
  seconds+=($!)
done
for pid in "${seconds[@]}"; do wait "$pid" || true; done
for id in "${waiting[@]}"; do wait "$(cat "$work/s/$id.pid")" 2>/dev/null || true; done
wait $load || true
both_hold() {  # both parties of ID got the same proof
  handed_out "$1" && [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["proof"] == json.load(open(sys.argv[2]))["proof"])' \
    "$work/s/$1.p0.json" "$work/s/$1.p1.json" 2>/dev/null)" = True ]
}
echo "   after the kill: $(count both_hold "${on_victim[@]}") of ${#on_victim[@]} of the victim's waiting sessions complete, \
$(( ($(date +%s%N) - killed_at) / 1000000 )) ms since the kill ($(head -c 160 "$work/s/${on_victim[0]}.p0.err" 2>/dev/null))"
expect "every waiting session of the killed replica completes elsewhere (${#on_victim[@]})" \
  test "$(count both_hold "${on_victim[@]}")" = "${#on_victim[@]}"
expect "every other waiting session completes" test "$(count both_hold "${waiting[@]}")" = "${#waiting[@]}"
expect "every session in flight during the kill completes ($(count both_hold "${ids_c[@]}") of ${#ids_c[@]})" \
  test "$(count both_hold "${ids_c[@]}")" = "${#ids_c[@]}"
for id in "${ids_c[@]}"; do
  both_hold "$id" && continue
  # What each of its clients said, so that a failure here names its cause in the CI log.
  for part in create p0 p1; do
    echo "     $id $part: $(tail -c 300 "$work/s/$id.$part.err" 2>/dev/null | tr '\n' ' ')"
  done
  echo "     $id record: $(curl -s --max-time 5 "$lb/v1/sessions/$id" | head -c 300)"
done
taken_over=$(grep -h "session taken over" "$work"/dealer-*.log | grep -cFf <(printf '%s\n' "${on_victim[@]}") || true)
expect "the killed replica's sessions were taken over by the survivors ($taken_over)" test "$taken_over" -ge "${#on_victim[@]}"
survivors=()
for name in dealer-1 dealer-2 dealer-3; do [ "$name" = "$victim" ] || survivors+=("$name"); done
all_done=("${ids_a[@]}" "${ids_b[@]}" "${ids_c[@]}" "${waiting[@]}")
unreadable=0
for id in "${all_done[@]}"; do
  if handed_out "$id" && ! record_holds "$id"; then unreadable=$((unreadable + 1)); fi
done
expect "every proof handed out is readable through the balancer ($unreadable unreadable)" test $unreadable = 0
ids_c2=()
run_batch ids_c2 8
expect "8 of 8 new sessions complete without the killed replica" test "$(count handed_out "${ids_c2[@]}")" = 8
expect "no used id is accepted again" test "$(count refused_again "${ids_a[@]:0:4}" "${ids_c[@]:0:4}" "${on_victim[@]}")" \
  = $((8 + ${#on_victim[@]}))

echo "== D: the database primary SIGKILLed under load, the standby promoted"
ids_d=()
stop_loop="$work/stop-loop"
(
  while [ ! -e "$stop_loop" ]; do
    id=$(new_id)
    echo "$id" >>"$work/ids_d"
    run_session "$id" || true
  done
) &
loop=$!
sleep 3
pg_primary_pid=$(pg_pid "$work/pg1")
pkill -9 -P "$pg_primary_pid" || true
kill -9 "$pg_primary_pid"
echo "   primary killed; promoting the standby in 2 s"
sleep 2
pg_promote "$work/pg2"
promoted_at=$(date +%s%N)
# The dealers find the new primary by themselves (libpq's multi-host string).
first_ok_ms=
for _ in $(seq 200); do
  id=$(new_id)
  if run_session "$id"; then first_ok_ms=$(( ($(date +%s%N) - promoted_at) / 1000000 )); ids_d+=("$id"); break; fi
  sleep 0.1
done
expect "new sessions complete after the promotion (first after ${first_ok_ms:-never} ms)" test -n "$first_ok_ms"
sleep 3
touch "$stop_loop"
wait $loop || true
mapfile -t -O "${#ids_d[@]}" ids_d <"$work/ids_d"
handed=0 missing=0 unclear=0
for id in "${ids_d[@]}"; do
  if handed_out "$id"; then
    handed=$((handed + 1))
    record_holds "$id" || missing=$((missing + 1))
  else
    # Caught in the gap: refused or aborted with a reason, not a hang (every step has a timeout).
    grep -qsE "record|database|abort|refused|error" "$work/s/$id.create.err" "$work/s/$id.p0.err" "$work/s/$id.p1.err" ||
      unclear=$((unclear + 1))
  fi
done
echo "   sessions in the failover run: ${#ids_d[@]}, proofs handed out: $handed"
expect "every proof handed out is on the new primary ($missing missing)" test "$missing" = 0
expect "every session caught in the gap ended with a stated reason ($unclear without)" test "$unclear" = 0
ready=0
for name in "${survivors[@]}"; do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${dealer_port[$name]}/readyz")" = 200 ] && ready=$((ready + 1))
done
expect "every surviving replica is ready again ($ready of ${#survivors[@]})" test "$ready" = "${#survivors[@]}"
# Only ids that were taken: a create refused in the gap never claimed its id.
reused=0 taken=0
for id in "${ids_d[@]}"; do
  [ -s "$work/s/$id.created" ] || continue
  taken=$((taken + 1))
  refused_again "$id" || reused=$((reused + 1))
  [ "$taken" -lt 10 ] || break
done
expect "no id of the failover run is accepted again ($reused of $taken)" test "$reused" = 0
expect "the new primary holds one row per session id" \
  test "$(pg_sql "$work/pg2" "$pg2_port" "SELECT count(*) - count(DISTINCT id) FROM bp_sessions")" = 0

echo "== F: a replica killed between a successor's claim and its predecessor's abort record"
export BP_TEST_CRASH_AT=successor-claimed
start_dealer dealer-f1 "$conninfo"
unset BP_TEST_CRASH_AT
start_dealer dealer-f2 "$conninfo"
route_to dealer-f1
first=$(new_id)
timeout 30 "$party" create-session --dealer "$ws_lb" --bits 8 --parties 4 --min-parties 3 --join-window-ms 5000 \
  --round-timeout-ms 1500 --session-id "$first" >/dev/null 2>"$work/s/$first.create.err"
# The first party to join (seat 0) is frozen once it waits for the set: the set holds it,
# and the first round's deadline blames it; dealer-f1 claims a successor for the others and
# dies there.
"$party" join --bits 8 --dealer "$ws_lb" --session "$first" --value 3 --timeout-ms 60000 >/dev/null 2>&1 &
frozen=$!
for _ in $(seq 250); do
  grep -q "session=$first party waits for the set" "$work/dealer-f1.log" && break
  sleep 0.02
done
kill -STOP "$frozen"
followers=()
for j in 0 1 2; do
  timeout 60 "$party" join --bits 8 --dealer "$ws_lb" --session "$first" --value "$j" --timeout-ms 50000 \
    --reconnect-give-up-ms 40000 >"$work/s/f.p$j.json" 2>"$work/s/f.p$j.err" &
  followers+=($!)
done
for _ in $(seq 300); do kill -0 "${dealer_pid[dealer-f1]}" 2>/dev/null || break; sleep 0.05; done
expect "dealer-f1 died at the crash point, after the record took the successor" \
  grep -q "dying on purpose at a crash point.*successor-claimed" "$work/dealer-f1.log"
wait "${dealer_pid[dealer-f1]}" 2>/dev/null || true
unset "dealer_pid[dealer-f1]"
orphan=$(sed -nE "s/.*session=$first starting a successor session .*successor=([0-9a-f]{32}).*/\1/p" \
  "$work/dealer-f1.log" | head -1)
route_to dealer-f2
for pid in "${followers[@]}"; do wait "$pid" || true; done
kill -9 "$frozen" 2>/dev/null || true
wait "$frozen" 2>/dev/null || true
field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2], ""); print(",".join(map(str, v)) if isinstance(v, list) else v)' "$@" 2>/dev/null; }
proofs=$(for j in 0 1 2; do field "$work/s/f.p$j.json" proof; done | sort -u)
last=$(field "$work/s/f.p0.json" session)
expect "the three others hold one proof, of a successor ($(tail -c 160 "$work/s/f.p0.err"))" \
  test "$(wc -l <<<"$proofs")" = 1 -a -n "$proofs" -a -n "$last" -a "$last" != "$first"
expect "it is not the dead replica's successor ($orphan)" test -n "$orphan" -a "$last" != "$orphan"
expect "their chain is the first session" test "$(field "$work/s/f.p0.json" chain)" = "$first"
curl -s --max-time 10 "$lb/v1/sessions/$first" >"$work/s/f.first"
expect "the first session's record: aborted, blaming the frozen party (seat 0), naming the successor that finished" \
  test "$(field "$work/s/f.first" status),$(field "$work/s/f.first" blamed),$(field "$work/s/f.first" successor)" \
  = "aborted,0,$last"
expect "dealer-f2 took the first session over" grep -q "session=$first session taken over" "$work/dealer-f2.log"
curl -s --max-time 10 "$lb/v1/sessions/$last" >"$work/s/f.last"
expect "the record holds the successor's proof, which bp verify accepts" test "$("$build/tools/bp" verify --bits 8 \
  --commitments "$(field "$work/s/f.last" commitments)" --proof "$(field "$work/s/f.last" proof)" \
  --label "$(field "$work/s/f.last" label)" --session "$last" --dealer-key "$work/dealer.key.pub" \
  --signature "$(field "$work/s/f.last" dealer_signature)" 2>&1)" = ok
expect "the orphaned successor never completes" \
  bash -c "! curl -s --max-time 10 '$lb/v1/sessions/$orphan' | grep -q '\"completed\"'"

echo "== E: a full disk under SQLite"
small_fs="$work/small"
mkdir -p "$small_fs"
mount -t tmpfs -o size=1m tmpfs "$small_fs"
start_dealer dealer-sqlite "$small_fs/outcomes.db"
sqlite_url="ws://127.0.0.1:${dealer_port[dealer-sqlite]}"
sqlite_http="http://127.0.0.1:${dealer_port[dealer-sqlite]}"
ids_e=()
session_url=$sqlite_url
run_batch ids_e 4
expect "4 of 4 sessions complete on the small disk" test "$(count handed_out "${ids_e[@]}")" = 4
# A session whose last party joins once the disk is full: its outcome cannot be written.
last=$(new_id)
ids_e+=("$last")
timeout 30 "$party" create-session --dealer "$sqlite_url" --bits 8 --parties 2 --session-id "$last" >/dev/null
timeout 40 "$party" join --bits 8 --dealer "$sqlite_url" --session "$last" --value 5 --reconnect-give-up-ms 5000 \
  >"$work/s/$last.p0.json" 2>"$work/s/$last.p0.err" &
first=$!
sleep 0.5
dd if=/dev/zero of="$small_fs/filler" bs=4k status=none 2>/dev/null || true  # until ENOSPC
timeout 40 "$party" join --bits 8 --dealer "$sqlite_url" --session "$last" --value 7 --reconnect-give-up-ms 5000 \
  >"$work/s/$last.p1.json" 2>"$work/s/$last.p1.err" || true
wait $first || true
expect "both parties end without a proof, with an error naming the record ($(tail -c 160 "$work/s/$last.p1.err"))" \
  bash -c "! grep -qs proof '$work/s/$last.p0.json' '$work/s/$last.p1.json' &&
           grep -q 'record' '$work/s/$last.p0.err' && grep -q 'record' '$work/s/$last.p1.err'"
handed=0 unreadable=0
for id in "${ids_e[@]}"; do
  if handed_out "$id"; then
    handed=$((handed + 1))
    record_holds "$id" "$sqlite_http" || unreadable=$((unreadable + 1))
  fi
done
expect "every one of the $handed proofs handed out is in the record ($unreadable not)" test "$unreadable" = 0
expect "readiness fails while the record fails" test "$(curl -s -o /dev/null -w '%{http_code}' "$sqlite_http/readyz")" = 503
expect "liveness stays up" test "$(curl -s -o /dev/null -w '%{http_code}' "$sqlite_http/healthz")" = 200
curl -s "$sqlite_http/metrics" >"$work/metrics-full"
expect "the failure is counted in /metrics (bp_record_up 0, the session moved on)" \
  bash -c "grep -qx 'bp_record_up 0' '$work/metrics-full' && grep -qx 'bp_sessions_moved_total 1' '$work/metrics-full'"
refused=$(new_id)
# The client tries a declined connection again within its deadline (the record may be back
# by then); past it, the dealer's reason is the answer.
if timeout 20 "$party" create-session --dealer "$sqlite_url" --bits 8 --parties 2 --session-id "$refused" \
  --timeout-ms 3000 >/dev/null 2>"$work/s/refused.err"; then
  fail "a new session is refused while the record fails (it was created)"
else
  expect "a new session is refused with the reason ($(head -c 160 "$work/s/refused.err"))" \
    grep -q "record is unavailable" "$work/s/refused.err"
fi
rm -f "$small_fs/filler"
recovered=
for _ in $(seq 50); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$sqlite_http/readyz")" = 200 ] && { recovered=1; break; }
  sleep 0.2
done
expect "the dealer is ready again by itself once space is back" test -n "$recovered"
after=$(new_id)
expect "a new session completes after the recovery" run_session "$after" "$sqlite_url"
ids_e+=("$after")
expect "the session caught in it is not completed in the record" \
  bash -c "! curl -s $sqlite_http/v1/sessions/$last | grep -q '\"completed\"'"
kill -TERM "${dealer_pid[dealer-sqlite]}"
wait "${dealer_pid[dealer-sqlite]}" 2>/dev/null || true
unset "dealer_pid[dealer-sqlite]"
start_dealer dealer-sqlite "$small_fs/outcomes.db"
sqlite_http="http://127.0.0.1:${dealer_port[dealer-sqlite]}"
for _ in $(seq 50); do curl -sf "$sqlite_http/readyz" >/dev/null && break; sleep 0.1; done
unreadable=0
for id in "${ids_e[@]}"; do
  if handed_out "$id"; then record_holds "$id" "$sqlite_http" || unreadable=$((unreadable + 1)); fi
done
expect "after a restart every proof handed out is still readable ($unreadable not)" test "$unreadable" = 0

echo "cluster: $passed passed, $failed failed"
[ "$failed" = 0 ]
