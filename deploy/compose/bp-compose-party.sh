#!/bin/sh
# One party of the demo: joins BP_SESSION_ID with its key and value, prints the result.
# Until the dealer answers and the operator has opened the session it retries (up to
# BP_WAIT_S seconds, default 60) on exactly those failures: the dealer's name not resolving
# yet, its address not reachable yet or nobody listening there (the container is starting),
# "no such session". Anything else ends it at once: the demo is right under any compose
# implementation, whatever order it starts containers in. Each new reason to wait is said
# once on stderr, with the time, so a slow start shows where the time went.
set -eu
keys=${BP_KEYS_DIR:-/keys}
wait_s=${BP_WAIT_S:-60}
ca=""
[ "${BP_TLS:-0}" = 1 ] && ca="--ca $keys/ca.crt"
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
deadline=$(($(date +%s) + wait_s))
waiting_for=""
while :; do
  status=0
  # shellcheck disable=SC2086
  bp-party join --dealer "$BP_DEALER_URL" $ca --session "$BP_SESSION_ID" --value "$BP_VALUE" \
    --key "$keys/$BP_PARTY.key" --dealer-key $keys/dealer.key.pub 2>"$errors" || status=$?
  [ $status -ne 0 ] || exit 0
  if [ "$(date +%s)" -lt "$deadline" ] && grep -qE 'resolve:|Connection refused|No route to host|Network is unreachable|no such session' "$errors"; then
    reason=$(cat "$errors")
    if [ "$reason" != "$waiting_for" ]; then
      echo "$(date +%T) waiting for the dealer: $reason" >&2
      waiting_for=$reason
    fi
    sleep 0.5
    continue
  fi
  cat "$errors" >&2
  exit $status
done
