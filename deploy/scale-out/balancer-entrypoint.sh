#!/bin/sh
# Runs nginx over the dealer replicas named in BP_DEALERS ("host:port host:port ..."), as
# the Ingress routes them. It first waits (up to BP_WAIT_S seconds, default 90) until every
# replica answers /readyz: nginx resolves upstream names once, at start, and a replica that
# is not up yet would be skipped for the next one on the hash ring, so a session created
# then could be joined through another replica.
set -eu
: "${BP_DEALERS:?names the dealer replicas, host:port each}"
wait_s=${BP_WAIT_S:-90}
listen=${BP_BALANCER_LISTEN:-0.0.0.0:8700}
deadline=$(($(date +%s) + wait_s))
for dealer in $BP_DEALERS; do
  until curl -fsS --max-time 2 -o /dev/null "http://$dealer/readyz" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "error: the replica $dealer was not ready within ${wait_s}s" >&2; exit 1; }
    sleep 0.5
  done
done
work=/var/lib/nginx/bp
# shellcheck disable=SC2086
/opt/bp/deploy/nginx/render-ingress-conf.sh "$work/nginx.conf" "$listen" "$work" $BP_DEALERS
echo "balancer: $listen over $BP_DEALERS"
exec nginx -c "$work/nginx.conf" -e stderr
