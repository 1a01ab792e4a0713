#!/usr/bin/env bash
# Quorum sessions (wire 1.7) against the real dealer on loopback, with bp-party processes:
#   1 eight listed parties, a quorum of five, two that never join: the six present get one
#     proof of six values (every one prints the same), which bp verify accepts with the
#     dealer's signature; the record names the two left out;
#   2 a party that joins and leaves before the set is fixed is left out of it, and the rest
#     still make their proof;
#   3 four of eight joined when the window ends, five needed: "quorum not reached", the
#     missing seats' positions blamed, no party committed;
#   4 a gadget session with a quorum: the set's items make the list the proof is of;
#   5 a party that requires more parties than the set holds withdraws before committing,
#     with the same answer whatever its value, and the others finish without it;
#   6 a party frozen mid-session: the five others follow a successor session by themselves,
#     whose label names the first, and the record links the two;
#   7 the same in a gadget session whose operator opted in: the list loses the frozen
#     party's item;
#   8 a successor below a party's own minimum: that party withdraws from it, with the same
#     answer whatever its value, and the others go on in a second successor;
#   9 the dealer stopped (SIGSTOP) past a join window with one party seated: resumed, it
#     does not count its own absence against the parties; the next to join makes the quorum.
#   tests/integration/quorum_sessions.sh BUILD
set -euo pipefail
BUILD=$(cd "$1" && pwd)
work=$(mktemp -d)
dealer_pid=
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
  [ -z "${KEEP:-}" ] || echo "kept $work"
}
trap cleanup EXIT
fail() {
  echo "error: $*" >&2
  exit 1
}
party="$BUILD/client/bp-party"
dealer="$BUILD/server/bp-dealer"
bp="$BUILD/tools/bp"
"$party" keygen --out "$work/operator.key" >/dev/null
"$party" keygen --out "$work/dealer.key" >/dev/null
keys=
for j in 0 1 2 3 4 5 6 7; do
  "$party" keygen --out "$work/p$j.key" >/dev/null
  keys="$keys${keys:+,}$work/p$j.key.pub"
done

"$dealer" --listen 127.0.0.1:0 --record "$work/outcomes.db" --dealer-key "$work/dealer.key" \
  --operator-key "$work/operator.key.pub" --reconnect-grace-ms 500 >"$work/dealer.out" 2>"$work/dealer.log" &
dealer_pid=$!
for _ in $(seq 200); do
  grep -q listening "$work/dealer.out" 2>/dev/null && break
  sleep 0.05
done
grep -q listening "$work/dealer.out" || fail "the dealer did not start: $(tail -5 "$work/dealer.log")"
port=$(sed -E 's/.*:([0-9]+)$/\1/' "$work/dealer.out")
url="ws://127.0.0.1:$port"
field() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r[sys.argv[2]]; print(",".join(map(str, v)) if isinstance(v, list) else v)' "$@"; }

# join J VALUE [FLAGS...]: party J joins $session in the background, its output in $work/pJ.*
join() {
  local j=$1 value=$2
  shift 2
  "$party" join --dealer "$url" --session "$session" --value "$value" --bits 16 --key "$work/p$j.key" \
    --timeout-ms 20000 "$@" >"$work/p$j.json" 2>"$work/p$j.err" &
  pids[j]=$!
}

echo "== 1. eight listed, a quorum of five, two never join"
session=$("$party" create-session --dealer "$url" --bits 16 --parties 8 --label quorum --key "$work/operator.key" \
  --allow "$keys" --min-parties 5 --join-window-ms 1500)
for j in 0 1 3 4 6 7; do join "$j" $((100 + j)); done
for j in 0 1 3 4 6 7; do wait "${pids[$j]}" || fail "party $j: $(cat "$work/p$j.err")"; done
proof=$(field "$work/p0.json" proof)
for j in 1 3 4 6 7; do
  [ "$(field "$work/p$j.json" proof)" = "$proof" ] || fail "party $j printed another proof"
done
# values: the commitments that are not the padding's identity
values() { field "$1" commitments | tr ',' '\n' | grep -vc '^0*$'; }
[ "$(values "$work/p0.json")" = 6 ] || fail "the proof is not of six values"
curl -sS --max-time 10 "http://127.0.0.1:$port/v1/sessions/$session" >"$work/stored.json"
verdict=$("$bp" verify --bits 16 --commitments "$(field "$work/stored.json" commitments)" \
  --proof "$(field "$work/stored.json" proof)" --label "$(field "$work/stored.json" label)" --session "$session" \
  --dealer-key "$work/dealer.key.pub" --signature "$(field "$work/stored.json" dealer_signature)" 2>&1)
[ "$verdict" = ok ] || fail "bp verify: $verdict"
[ "$(field "$work/stored.json" listed_parties)" = 8 ] || fail "the record does not say eight were listed"
[ "$(field "$work/stored.json" not_joined)" = 2,5 ] || fail "the record does not name seats 2 and 5 as left out"
grep -q "set is fixed.* parties=6 listed=8 .*not_joined=2" "$work/dealer.log" || fail "the dealer did not log the set"
echo "   ok: six parties, one proof, verified"

echo "== 2. a party that leaves before the set is fixed is left out"
session=$("$party" create-session --dealer "$url" --bits 16 --parties 8 --label quorum --key "$work/operator.key" \
  --allow "$keys" --min-parties 5 --join-window-ms 2500)
join 2 7 --timeout-ms 600 # gives up (its own deadline) long before the window ends
for j in 0 1 3 4 5; do join "$j" $((200 + j)); done
if wait "${pids[2]}"; then fail "party 2 finished a session it left"; fi
for j in 0 1 3 4 5; do wait "${pids[$j]}" || fail "party $j: $(cat "$work/p$j.err")"; done
[ "$(values "$work/p0.json")" = 5 ] || fail "the proof is not of the five who stayed"
grep -q "set is fixed.* parties=5 listed=8 .*not_joined=3" "$work/dealer.log" || fail "the dealer did not log the set"
echo "   ok: five who stayed, one proof"

echo "== 3. the window ends with four of eight, five needed"
session=$("$party" create-session --dealer "$url" --bits 16 --parties 8 --label quorum --key "$work/operator.key" \
  --allow "$keys" --min-parties 5 --join-window-ms 1000)
for j in 0 2 4 6; do join "$j" $((300 + j)) --events "$work/p$j.events"; done
for j in 0 2 4 6; do
  if wait "${pids[$j]}"; then fail "party $j got a result without a quorum"; fi
  grep -q 'quorum not reached: 4 of 8 listed parties joined' "$work/p$j.err" ||
    fail "party $j was not told why: $(cat "$work/p$j.err")"
  grep -q '"event":"connecting"' "$work/p$j.events" || fail "party $j wrote no events"
  ! grep -q '"event":"joined"' "$work/p$j.events" || fail "party $j heard its seat before the set was fixed"
done
echo "   ok: quorum not reached, nobody committed"

echo "== 4. a gadget session with a quorum"
session=$("$party" create-session --dealer "$url" --gadgets 'range:16;range:16;range:16;range:16' \
  --key "$work/operator.key" --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub" \
  --min-parties 2 --join-window-ms 1000)
for j in 0 3; do
  "$party" join --dealer "$url" --session "$session" --gadget range:16 --value $((400 + j)) --key "$work/p$j.key" \
    --timeout-ms 20000 >"$work/p$j.json" 2>"$work/p$j.err" &
  pids[j]=$!
done
for j in 0 3; do wait "${pids[$j]}" || fail "gadget party $j: $(cat "$work/p$j.err")"; done
[ "$(field "$work/p0.json" gadgets)" = "range:16;range:16" ] || fail "the proof is not of the set's two items"
echo "   ok: a proof of the two items present"
echo "== 5. a party's own minimum of parties, refused alike whatever its value"
for value in 3 60000; do
  session=$("$party" create-session --dealer "$url" --bits 16 --parties 4 --label quorum --key "$work/operator.key" \
    --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub" --min-parties 2 --join-window-ms 800)
  join 0 10
  join 1 11
  join 2 "$value" --require-parties 4
  if wait "${pids[2]}"; then fail "party 2 joined a session of fewer parties than it requires"; fi
  cp "$work/p2.err" "$work/refused.$value"
  # The two others go on without it, in a successor session (a quorum of two is left).
  for j in 0 1; do wait "${pids[$j]}" || fail "party $j: $(cat "$work/p$j.err")"; done
  [ "$(field "$work/p0.json" chain)" = "$session" ] || fail "party 0 did not finish in a successor"
done
grep -q 'the session holds 3 parties; we require 4' "$work/refused.3" || fail "party 2 said: $(cat "$work/refused.3")"
cmp -s "$work/refused.3" "$work/refused.60000" || fail "the refusal depends on the value"
"$party" join --dealer "$url" --session "$session" --value 1 --bits 16 --key "$work/p3.key" \
  --require-parties 300 2>"$work/usage.err" && fail "--require-parties 300 was taken"
echo "   ok: withdrawn before committing, the same answer for 3 and 60000"
echo "== 6. a party silent mid-session: a successor of the five others, followed by themselves"
session=$("$party" create-session --dealer "$url" --bits 16 --parties 6 --label chain --key "$work/operator.key" \
  --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub,$work/p4.key.pub,$work/p5.key.pub" \
  --min-parties 4 --join-window-ms 3000 --round-timeout-ms 1500)
first=$session
# Party 5 joins and waits for the set; then it is frozen (its connection stays up), so the
# set holds it and its first round's deadline blames it.
join 5 505
for _ in $(seq 250); do
  grep -q "session=$first party waits for the set .*party_key=$(cat "$work/p5.key.pub")" "$work/dealer.log" && break
  sleep 0.02
done
kill -STOP "${pids[5]}"
for j in 0 1 2 3 4; do join "$j" $((500 + j)); done
for j in 0 1 2 3 4; do wait "${pids[$j]}" || fail "party $j: $(cat "$work/p$j.err")"; done
proof=$(field "$work/p0.json" proof)
successor=$(field "$work/p0.json" session)
[ "$successor" != "$first" ] || fail "the proof is the first session's, which lost a party"
for j in 1 2 3 4; do
  [ "$(field "$work/p$j.json" proof)" = "$proof" ] || fail "party $j printed another proof"
done
[ "$(field "$work/p0.json" chain)" = "$first" ] || fail "the chain is not the first session"
[ "$(values "$work/p0.json")" = 5 ] || fail "the successor's proof is not of the five who stayed"
field "$work/p0.json" label | grep -q "label=chain after=$first" || fail "the successor's label does not name the first session"
curl -sS --max-time 10 "http://127.0.0.1:$port/v1/sessions/$first" >"$work/first.json"
[ "$(field "$work/first.json" status)" = aborted ] || fail "the first session is not recorded as aborted"
[ "$(field "$work/first.json" successor)" = "$successor" ] || fail "the first session's record does not name its successor"
[ "$(field "$work/first.json" blamed)" = 5 ] || fail "the first session does not blame party 5"
curl -sS --max-time 10 "http://127.0.0.1:$port/v1/sessions/$successor" >"$work/stored.json"
verdict=$("$bp" verify --bits 16 --commitments "$(field "$work/stored.json" commitments)" \
  --proof "$(field "$work/stored.json" proof)" --label "$(field "$work/stored.json" label)" --session "$successor" \
  --dealer-key "$work/dealer.key.pub" --signature "$(field "$work/stored.json" dealer_signature)" 2>&1)
[ "$verdict" = ok ] || fail "bp verify of the successor: $verdict"
# Three successors in all: case 5's two (a withdrawal each) and this one (a round's deadline).
curl -sS --max-time 10 "http://127.0.0.1:$port/metrics" | grep '^bp_successor_sessions_total' >"$work/successors"
[ "$(awk '{ n += $2 } END { print n }' "$work/successors")" = 3 ] || fail "successors counted: $(cat "$work/successors")"
grep -q 'reason="round_timeout"} 1' "$work/successors" || fail "successors counted: $(cat "$work/successors")"
kill -9 "${pids[5]}"
wait "${pids[5]}" 2>/dev/null || true
echo "   ok: five parties followed the successor by themselves; one proof, verified"
echo "== 7. a gadget session whose operator opted into successors: the list without the culprit's item"
session=$("$party" create-session --dealer "$url" --gadgets 'range:16;range:16;shuffle:2;range:16' \
  --key "$work/operator.key" --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub" \
  --min-parties 2 --join-window-ms 3000 --round-timeout-ms 1500 --gadget-successors yes)
first=$session
gadget_join() { # J GADGET VALUES
  "$party" join --dealer "$url" --session "$session" --gadget "$2" --value "$3" --key "$work/p$1.key" \
    --timeout-ms 20000 >"$work/p$1.json" 2>"$work/p$1.err" &
  pids[$1]=$!
}
gadget_join 3 range:16 703
for _ in $(seq 250); do
  grep -q "session=$first party waits for the set .*party_key=$(cat "$work/p3.key.pub")" "$work/dealer.log" && break
  sleep 0.02
done
kill -STOP "${pids[3]}"
gadget_join 0 range:16 700
gadget_join 1 range:16 701
gadget_join 2 shuffle:2 5,9,9,5
for j in 0 1 2; do wait "${pids[$j]}" || fail "gadget party $j: $(cat "$work/p$j.err")"; done
kill -9 "${pids[3]}"
wait "${pids[3]}" 2>/dev/null || true
[ "$(field "$work/p0.json" gadgets)" = "range:16;range:16;shuffle:2" ] || fail "the proof is not of the three items left"
[ "$(field "$work/p2.json" chain)" = "$first" ] || fail "the chain is not the first session"
[ "$(field "$work/p1.json" proof)" = "$(field "$work/p0.json" proof)" ] || fail "two proofs"
echo "   ok: three items, one R1CS proof, after the first session"
echo "== 8. a successor below a party's own minimum"
keys6="$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub,$work/p3.key.pub,$work/p4.key.pub,$work/p5.key.pub"
for value in 7 65000; do
  session=$("$party" create-session --dealer "$url" --bits 16 --parties 6 --label low --key "$work/operator.key" \
    --allow "$keys6" --min-parties 3 --join-window-ms 3000 --round-timeout-ms 1500)
  first=$session
  join 5 505
  for _ in $(seq 250); do
    grep -q "session=$first party waits for the set .*party_key=$(cat "$work/p5.key.pub")" "$work/dealer.log" && break
    sleep 0.02
  done
  kill -STOP "${pids[5]}"
  join 0 "$value" --require-parties 6 # the first set holds six; its successor five
  for j in 1 2 3 4; do join "$j" $((800 + j)); done
  if wait "${pids[0]}"; then fail "party 0 proved in a successor of fewer parties than it requires"; fi
  sed -E 's/[0-9a-f]{32}/SESSION/g' "$work/p0.err" >"$work/below.$value" # the ids differ, nothing else may
  for j in 1 2 3 4; do wait "${pids[$j]}" || fail "party $j: $(cat "$work/p$j.err")"; done
  kill -9 "${pids[5]}"
  wait "${pids[5]}" 2>/dev/null || true
  chain=$(field "$work/p1.json" chain)
  [ "$(echo "$chain" | tr ',' '\n' | wc -l)" = 2 ] || fail "the four did not finish in a second successor: $chain"
  [ "${chain%%,*}" = "$first" ] || fail "the chain does not start at the first session: $chain"
  [ "$(values "$work/p1.json")" = 4 ] || fail "the last successor's proof is not of the four left"
done
grep -q 'the session holds 5 parties; we require 6' "$work/below.7" || fail "party 0 said: $(cat "$work/below.7")"
cmp -s "$work/below.7" "$work/below.65000" || fail "the withdrawal from a successor depends on the value"
echo "   ok: withdrawn from the successor of five alike for 7 and 65000; four finished in the next"
echo "== 9. the dealer stopped past the join window"
session=$("$party" create-session --dealer "$url" --bits 16 --parties 3 --label stall --key "$work/operator.key" \
  --allow "$work/p0.key.pub,$work/p1.key.pub,$work/p2.key.pub" --min-parties 2 --join-window-ms 800)
join 0 900
for _ in $(seq 250); do
  grep -q "session=$session party waits for the set" "$work/dealer.log" && break
  sleep 0.02
done
kill -STOP "$dealer_pid"
sleep 2.3 # past the window by more than the stall bound, within the lease: a dealer that counted it would end the session
kill -CONT "$dealer_pid"
sleep 0.2
join 1 901
for j in 0 1; do wait "${pids[$j]}" || fail "party $j after the dealer's stall: $(cat "$work/p$j.err")"; done
[ "$(values "$work/p0.json")" = 2 ] || fail "the proof after the stall is not of the two present"
grep -Eq "session=$session (a deadline fired late|session moves on)" "$work/dealer.log" ||
  fail "the dealer did not say it was stalled"
echo "   ok: the window given again after a 2.3 s stall; two of three proved"
echo "quorum sessions: ok"
