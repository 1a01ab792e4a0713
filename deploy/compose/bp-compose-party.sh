#!/bin/sh
# One party of the demo: joins BP_SESSION_ID with its key and value, prints the result.
set -eu
keys=${BP_KEYS_DIR:-/keys}
ca=""
[ "${BP_TLS:-0}" = 1 ] && ca="--ca $keys/ca.crt"
# shellcheck disable=SC2086
exec bp-party join --dealer "$BP_DEALER_URL" $ca --session "$BP_SESSION_ID" --value "$BP_VALUE" \
  --key "$keys/$BP_PARTY.key" --dealer-key $keys/dealer.key.pub
