#!/usr/bin/env bash
# Writes an nginx.conf that routes as deploy/k8s/ingress.yaml tells ingress-nginx to: the
# upstream hash, the timeouts and the body limit are read from the Ingress's annotations
# (so the two cannot drift), with WebSocket upgrades passed through. For running dealer
# replicas behind Debian's nginx on one machine (the cluster tests, a local scale-out demo):
#   render-ingress-conf.sh OUT.conf LISTEN_ADDR:PORT WORK_DIR DEALER_ADDR:PORT...
# WORK_DIR holds nginx's pid, logs and temp files; run it as nginx -c OUT.conf (daemon off).
# BP_PROXY_READ_TIMEOUT_S overrides the read timeout: the fault tests keep it short, so that
# a paused replica's upgrades time out and pass to the next replica quickly (its dealers
# ping more often than that, so idle sessions' connections stay open).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ingress="$root/deploy/k8s/ingress.yaml"
out=$1 listen=$2 work=$3
shift 3
[ $# -ge 1 ] || { echo "usage: $0 OUT.conf LISTEN WORK_DIR DEALER..." >&2; exit 2; }

annotation() {
  local value
  value=$(sed -n "s|^ *nginx.ingress.kubernetes.io/$1: *\"\(.*\)\" *$|\1|p" "$ingress")
  [ -n "$value" ] || { echo "error: $ingress has no $1 annotation" >&2; exit 1; }
  printf '%s' "$value"
}
hash_by=$(annotation upstream-hash-by)
read_timeout=${BP_PROXY_READ_TIMEOUT_S:-$(annotation proxy-read-timeout)}
send_timeout=$(annotation proxy-send-timeout)
body_size=$(annotation proxy-body-size)
next_upstream=$(annotation proxy-next-upstream)
next_upstream_tries=$(annotation proxy-next-upstream-tries)

mkdir -p "$work"
{
  cat <<CONF
# Rendered by deploy/nginx/render-ingress-conf.sh from deploy/k8s/ingress.yaml.
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 4096; }
http {
  access_log $work/access.log;
  client_body_temp_path $work/client_body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  # As ingress-nginx: Connection "upgrade" only for an Upgrade request.
  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  upstream bp_dealer {
    # upstream-hash-by: ingress-nginx uses ketama consistent hashing for it.
    hash $hash_by consistent;
CONF
  for dealer in "$@"; do echo "    server $dealer max_fails=1 fail_timeout=5s;"; done
  cat <<CONF
  }
  server {
    listen $listen;
    client_max_body_size $body_size;
    location / {
      proxy_pass http://bp_dealer;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      proxy_set_header X-Forwarded-For \$remote_addr;
      proxy_read_timeout ${read_timeout}s;
      proxy_send_timeout ${send_timeout}s;
      proxy_connect_timeout 5s;
      proxy_next_upstream $next_upstream;
      proxy_next_upstream_tries $next_upstream_tries;
    }
  }
}
CONF
} >"$out"
