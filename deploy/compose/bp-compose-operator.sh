#!/bin/sh
# Opens the demo's session for the four parties' keys, under the id every container was
# given (BP_SESSION_ID), so the parties need not be told it.
set -eu
keys=${BP_KEYS_DIR:-/keys}
ca=""
[ "${BP_TLS:-0}" = 1 ] && ca="--ca $keys/ca.crt"
# shellcheck disable=SC2086
bp-party create-session --dealer "$BP_DEALER_URL" $ca --bits 64 --parties 4 --label "compose demo" \
  --round-timeout-ms 30000 --session-id "$BP_SESSION_ID" --key $keys/operator.key \
  --allow $keys/party0.key.pub,$keys/party1.key.pub,$keys/party2.key.pub,$keys/party3.key.pub
