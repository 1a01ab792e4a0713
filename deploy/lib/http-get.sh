# shellcheck shell=bash
# http_get HOST PORT PATH: prints the body of a plain-HTTP GET. It goes through bash's own
# /dev/tcp, because a minimal Debian root (debootstrap --variant=minbase) has no HTTP client
# and the demo promises to show the dealer's endpoints there too. Fails, saying why, when
# nothing answers within 10 s, the status is not 200, or the body is empty. Sourced.
http_get() {
  local host=$1 port=$2 path=$3 response status body
  # HTTP/1.0: the dealer answers with a Content-Length body (never chunked) and closes.
  # shellcheck disable=SC2016  # the inner script expands its own arguments
  if ! response=$(timeout 10 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3 && cat <&3' \
    "$host" "$port" "$path" 2>&1); then
    echo "error: GET http://$host:$port$path: no answer (${response:-timed out})" >&2
    return 1
  fi
  status=$(head -n 1 <<<"$response" | tr -d '\r')
  case $status in
    "HTTP/1."?" 200 "*) ;;
    *) echo "error: GET http://$host:$port$path answered '${status:-nothing}'" >&2; return 1 ;;
  esac
  body=$(sed '1,/^\r\{0,1\}$/d' <<<"$response")  # everything after the headers' empty line
  [ -n "$body" ] || { echo "error: GET http://$host:$port$path answered 200 with an empty body" >&2; return 1; }
  printf '%s\n' "$body"
}
