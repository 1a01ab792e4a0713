#!/bin/sh
# Opens the demo's session for the four parties' keys, under the id every container was
# given (BP_SESSION_ID), so the parties need not be told it. It waits for the dealer's
# /healthz itself (up to BP_WAIT_S seconds, default 60): not every compose implementation
# honours depends_on's condition (podman-compose 1.0.3 starts containers a second apart).
set -eu
keys=${BP_KEYS_DIR:-/keys}
wait_s=${BP_WAIT_S:-60}
ca=""
[ "${BP_TLS:-0}" = 1 ] && ca="--ca $keys/ca.crt"
# ws://host:port[/prefix] -> http://host:port[/prefix]/healthz (wss -> https)
health="$(echo "$BP_DEALER_URL" | sed -e 's|^ws://|http://|' -e 's|^wss://|https://|' -e 's|/*$||')/healthz"
curl_tls=""
[ "${BP_TLS:-0}" = 1 ] && curl_tls="--cacert $keys/ca.crt"
deadline=$(($(date +%s) + wait_s))
# shellcheck disable=SC2086
until curl -fsS --max-time 2 $curl_tls "$health" >/dev/null 2>&1; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "error: the dealer's $health did not answer within ${wait_s}s" >&2; exit 1; }
  sleep 0.5
done
# The create is retried, like the parties' joins, on what only says the dealer is not ready
# yet (a name, an address or a record not there yet; the client itself waits out a 429 or
# 503 within its deadline); anything else ends it at once, said on stderr.
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
while :; do
  status=0
  # shellcheck disable=SC2086
  bp-party create-session --dealer "$BP_DEALER_URL" $ca --bits 64 --parties 4 --label "compose demo" \
    --round-timeout-ms 30000 --session-id "$BP_SESSION_ID" --key $keys/operator.key \
    --allow $keys/party0.key.pub,$keys/party1.key.pub,$keys/party2.key.pub,$keys/party3.key.pub \
    2>"$errors" || status=$?
  [ $status -ne 0 ] || exit 0
  if [ "$(date +%s)" -lt "$deadline" ] && grep -qE 'resolve:|Connection refused|No route to host|Network is unreachable|HTTP 50[234]' "$errors"; then
    echo "$(date +%T) the dealer is not ready yet: $(cat "$errors")" >&2
    sleep 0.5
    continue
  fi
  cat "$errors" >&2
  exit $status
done
