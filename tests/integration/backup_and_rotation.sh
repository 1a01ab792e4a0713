#!/usr/bin/env bash
# docs/operations.md's "Backup, restore and key rotation", run as written, against real
# dealers on loopback with a SQLite record:
#   1 an online backup of the record while the dealer runs and a session is open;
#   2 the backup restored under a new dealer with a NEW dealer key and a NEW operator key
#     (the old one removed): every old outcome is still served, and still verifies with the
#     key it names (the old one), never the new;
#   3 after the rotation: the old operator key is refused as not allowed, the new one
#     creates sessions, whose results carry the new dealer key; a party pinning the old
#     dealer key refuses the new dealer before it commits (it learns the new key out of
#     band, as the docs say); a session open at the backup is taken over from the restored
#     record and finishes there.
#   tests/integration/backup_and_rotation.sh BUILD
set -euo pipefail
BUILD=$(cd "$1" && pwd)
work=$(mktemp -d)
dealer_pid=
cleanup() {
  [ -z "$dealer_pid" ] || kill "$dealer_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"; [ -z "${KEEP:-}" ] || echo "kept $work"
}
trap cleanup EXIT
fail() { echo "error: $*" >&2; exit 1; }
party="$BUILD/client/bp-party"
dealer="$BUILD/server/bp-dealer"
bp="$BUILD/tools/bp"
for name in operator dealer operator2 dealer2 alice bob; do "$party" keygen --out "$work/$name.key" >/dev/null; done

# start_dealer RECORD DEALER_KEY OPERATOR_KEY: sets dealer_pid, url, port
start_dealer() {
  : >"$work/dealer.out"
  "$dealer" --listen 127.0.0.1:0 --record "$1" --dealer-key "$2" --operator-key "$3" \
    >"$work/dealer.out" 2>>"$work/dealer.log" &
  dealer_pid=$!
  for _ in $(seq 200); do grep -q listening "$work/dealer.out" 2>/dev/null && break; sleep 0.05; done
  grep -q listening "$work/dealer.out" || fail "the dealer did not start: $(tail -5 "$work/dealer.log")"
  port=$(sed -E 's/.*:([0-9]+)$/\1/' "$work/dealer.out")
  url="ws://127.0.0.1:$port"
}
stop_dealer() { kill "$dealer_pid"; wait "$dealer_pid" 2>/dev/null || true; dealer_pid=; }
field() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r[sys.argv[2]]; print(",".join(v) if isinstance(v, list) else v)' "$@"; }
# run_session OPERATOR_KEY [PIN]: a two-party session; its id in $session, alice's result in $work/alice.json
run_session() {
  session=$("$party" create-session --dealer "$url" --bits 8 --parties 2 --label backup --key "$1" \
    --allow "$work/alice.key.pub,$work/bob.key.pub")
  "$party" join --dealer "$url" --session "$session" --value 7 --bits 8 --key "$work/alice.key" \
    >"$work/alice.json" 2>"$work/alice.err" &
  local alice=$!
  "$party" join --dealer "$url" --session "$session" --value 9 --bits 8 --key "$work/bob.key" \
    >"$work/bob.json" 2>"$work/bob.err" || fail "bob: $(cat "$work/bob.err")"
  wait "$alice" || fail "alice: $(cat "$work/alice.err")"
}
# verify_stored ID DEALER_PUB: bp verify over what GET /v1/sessions/ID returns
verify_stored() {
  curl -sS --max-time 10 "http://127.0.0.1:$port/v1/sessions/$1" >"$work/stored.json"
  "$bp" verify --bits "$(field "$work/stored.json" bits)" --commitments "$(field "$work/stored.json" commitments)" \
    --proof "$(field "$work/stored.json" proof)" --label "$(field "$work/stored.json" label)" --session "$1" \
    --dealer-key "$2" --signature "$(field "$work/stored.json" dealer_signature)" 2>&1
}

echo "== 1. an online backup while the dealer runs"
start_dealer "$work/outcomes.db" "$work/dealer.key" "$work/operator.key.pub"
run_session "$work/operator.key"
old_session=$session
open_session=$("$party" create-session --dealer "$url" --bits 8 --parties 2 --label open --key "$work/operator.key" \
  --allow "$work/alice.key.pub,$work/bob.key.pub")
# The backup, as docs/operations.md shows it: SQLite's online backup (Python's sqlite3
# module, in Debian's python3), consistent while the dealer writes.
/usr/bin/python3 -c 'import sqlite3, sys; src = sqlite3.connect(sys.argv[1]); dst = sqlite3.connect(sys.argv[2]); src.backup(dst); dst.close()' \
  "$work/outcomes.db" "$work/backup.db"
[ "$(verify_stored "$old_session" "$work/dealer.key.pub")" = ok ] || fail "the running dealer's outcome does not verify"
stop_dealer
echo "   ok: backed up with a session open"

echo "== 2. restored under a new dealer key and a new operator key"
cp "$work/backup.db" "$work/restored.db"
start_dealer "$work/restored.db" "$work/dealer2.key" "$work/operator2.key.pub"
[ "$(verify_stored "$old_session" "$work/dealer.key.pub")" = ok ] ||
  fail "an old outcome does not verify with the key it names after the restore: $(verify_stored "$old_session" "$work/dealer.key.pub")"
[ "$(field "$work/stored.json" dealer_key)" = "$(cat "$work/dealer.key.pub")" ] || fail "the old outcome does not name the old key"
if [ "$(verify_stored "$old_session" "$work/dealer2.key.pub")" = ok ]; then fail "an old outcome verified with the new key"; fi
echo "   ok: the old outcome is served and verifies with the old dealer key only"

echo "== 3. after the rotation"
if "$party" create-session --dealer "$url" --bits 8 --parties 2 --key "$work/operator.key" \
  --allow "$work/alice.key.pub,$work/bob.key.pub" >/dev/null 2>"$work/refused"; then
  fail "the removed operator key still creates sessions"
fi
grep -q "^not allowed: unknown operator key" "$work/refused" || fail "the old operator's refusal: $(cat "$work/refused")"
run_session "$work/operator2.key"
[ "$(field "$work/alice.json" dealer_key)" = "$(cat "$work/dealer2.key.pub")" ] || fail "a new result is not signed by the new key"
[ "$(verify_stored "$session" "$work/dealer2.key.pub")" = ok ] || fail "a new outcome does not verify with the new key"
pinned=$("$party" create-session --dealer "$url" --bits 8 --parties 2 --label pinned --key "$work/operator2.key" \
  --allow "$work/alice.key.pub,$work/bob.key.pub")
if "$party" join --dealer "$url" --session "$pinned" --value 1 --bits 8 --key "$work/alice.key" \
  --dealer-key "$work/dealer.key.pub" >/dev/null 2>"$work/pinned.err"; then
  fail "a party pinning the old dealer key joined the new dealer"
fi
grep -q "^malicious dealer" "$work/pinned.err" || fail "the pinned party's refusal: $(cat "$work/pinned.err")"
# The session that was open at the backup: the restored dealer takes it over from the record
# (its replica is gone) and its parties finish it there, under the new dealer key.
session=$open_session
"$party" join --dealer "$url" --session "$session" --value 3 --bits 8 --key "$work/alice.key" \
  >"$work/alice.json" 2>"$work/alice.err" &
alice=$!
"$party" join --dealer "$url" --session "$session" --value 4 --bits 8 --key "$work/bob.key" \
  >"$work/bob.json" 2>"$work/bob.err" || fail "bob in the session open at the backup: $(cat "$work/bob.err")"
wait "$alice" || fail "alice in the session open at the backup: $(cat "$work/alice.err")"
[ "$(verify_stored "$session" "$work/dealer2.key.pub")" = ok ] || fail "the session open at the backup does not verify"
echo "   ok: old operator refused, new results under the new key, a pinned party refuses, the open session finished"
echo "backup and rotation: passed"
