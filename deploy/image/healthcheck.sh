#!/bin/sh
# The image's HEALTHCHECK: GET /healthz from the bp-dealer running in this container.
# The port is not taken from any one setting (flag, BP_DEALER_* variable or config file may
# each set it): the kernel is asked which TCP sockets the bp-dealer processes listen on
# (their descriptors' socket inodes, looked up in /proc/net/tcp and tcp6). Whether it serves
# TLS is found the same way, by asking: https:// first, then http://. -k: the certificate
# names the public host, not the loopback; this only asks whether the process answers.
set -u
inodes=""
for comm in /proc/[0-9]*/comm; do
  [ "$(cat "$comm" 2>/dev/null)" = bp-dealer ] || continue
  for fd in "${comm%/comm}"/fd/*; do
    link=$(readlink "$fd" 2>/dev/null) || continue
    case "$link" in socket:\[*\]) inodes="$inodes ${link#socket:[}" ;; esac
  done
done
inodes=$(echo "$inodes" | tr -d ']')
[ -n "$inodes" ] || { echo "unhealthy: no bp-dealer process with open sockets" >&2; exit 1; }

# One "host port" line per listening socket (state 0A) of those inodes. Addresses in
# /proc/net/tcp* are hex words in host (little-endian) order; "any" becomes the loopback.
endpoints=$(awk -v inodes="$inodes" '
  function hexval(h,   i, v) { v = 0; h = toupper(h)
    for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789ABCDEF", substr(h, i, 1)) - 1
    return v }
  function word_bytes(w) { return substr(w, 7, 2) substr(w, 5, 2) substr(w, 3, 2) substr(w, 1, 2) }
  BEGIN { n = split(inodes, list, " "); for (i = 1; i <= n; i++) want[list[i]] = 1 }
  FNR > 1 && $4 == "0A" && ($10 in want) {
    split($2, hp, ":"); port = hexval(hp[2]); a = hp[1]
    if (length(a) == 8) {
      b = word_bytes(a)
      host = hexval(substr(b, 1, 2)) "." hexval(substr(b, 3, 2)) "." hexval(substr(b, 5, 2)) "." hexval(substr(b, 7, 2))
      if (host == "0.0.0.0") host = "127.0.0.1"
    } else {
      b = word_bytes(substr(a, 1, 8)) word_bytes(substr(a, 9, 8)) word_bytes(substr(a, 17, 8)) word_bytes(substr(a, 25, 8))
      if (b == "00000000000000000000000000000000") host = "[::1]"
      else if (substr(b, 1, 24) == "00000000000000000000FFFF") {
        host = hexval(substr(b, 25, 2)) "." hexval(substr(b, 27, 2)) "." hexval(substr(b, 29, 2)) "." hexval(substr(b, 31, 2))
        if (host == "0.0.0.0") host = "127.0.0.1"
      } else {
        host = "["; for (i = 0; i < 8; i++) host = host (i ? ":" : "") tolower(substr(b, 4 * i + 1, 4)); host = host "]"
      }
    }
    print host, port
  }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
[ -n "$endpoints" ] || { echo "unhealthy: bp-dealer listens on no TCP port" >&2; exit 1; }

echo "$endpoints" | while read -r host port; do
  for scheme in https http; do
    curl -fsSk --max-time 2 "$scheme://$host:$port/healthz" >/dev/null 2>&1 && exit 10
  done
done
[ $? -eq 10 ] && exit 0
echo "unhealthy: no answer from /healthz on $(echo "$endpoints" | tr '\n' ' ')" >&2
exit 1
