#!/bin/sh
# GET /healthz on the dealer's own port, over https:// when it serves TLS. -k: the
# certificate names the public host, not 127.0.0.1; this only asks whether the process
# answers.
listen=${BP_DEALER_LISTEN:-127.0.0.1:8700}
port=${listen##*:}
scheme=http
[ -n "${BP_DEALER_TLS_CERT:-}" ] && scheme=https
exec curl -fsSk --max-time 2 "$scheme://127.0.0.1:$port/healthz" >/dev/null
