#!/usr/bin/env bash
# The alert and recording rules in deploy/prometheus/ and the dashboard in deploy/grafana/ as
# an SRE would check them (part of the test command): promtool check rules; promtool test
# rules with synthetic series that make every alert fire and keep it quiet; then a real
# Prometheus (Debian's, on loopback, scraping every second) scrapes a real bp-dealer that
# runs sessions (completed and aborted), verifications and refused requests, and every
# expression of the rules and the dashboard is run through its API (check_expressions.py
# says what each must satisfy); last, the dashboard's main panels are plotted from the run.
# Usage: tests/prometheus/test_prometheus.sh BUILD_DIR [--picture OUT.png --rounds N]
# prints "prometheus: N passed, M failed". With --picture, the run goes on for N rounds of
# sessions (about 3 s each; the test runs 6) and its plot is kept: docs/operations.md's
# picture is made so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
picture="" rounds=6
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --picture) picture=$(realpath -m "$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 BUILD_DIR [--picture OUT.png --rounds N]" >&2; exit 2 ;;
  esac
done
started=$(date +%s)
rules="$root/deploy/prometheus/bp-dealer.rules.yml"
dashboard="$root/deploy/grafana/bp-dealer.dashboard.json"
work=$(mktemp -d /tmp/bp-prometheus.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=tests/lib/checks.sh
source "$(dirname "$0")/../lib/checks.sh"

if promtool check rules "$rules" >"$work/check.log" 2>&1; then pass "promtool check rules: $(grep -o '[0-9]* rules found' "$work/check.log")"; else fail "promtool check rules: $(cat "$work/check.log")"; fi
if (cd "$root/deploy/prometheus" && promtool test rules bp-dealer.rules.test.yml) >"$work/test.log" 2>&1; then
  pass "promtool test rules: every alert fires on its synthetic series and stays quiet on the others"
else
  fail "promtool test rules:"; cat "$work/test.log"
fi

# A real dealer over TLS (so it exports its certificate's expiry) with sessions, and a real
# Prometheus scraping it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/dealer.tls.key" -out "$work/dealer.crt" 2>/dev/null
dealer_port=$(free_port)
"$build/server/bp-dealer" --listen "127.0.0.1:$dealer_port" --allow-anonymous --round-timeout-ms 1500 \
  --tls-cert "$work/dealer.crt" --tls-key "$work/dealer.tls.key" >"$work/dealer.out" 2>"$work/dealer.log" &
pids+=($!)
for _ in $(seq 400); do grep -qs listening "$work/dealer.out" && break; sleep 0.05; done
grep -qs listening "$work/dealer.out" || { echo "error: the dealer did not listen within 20 s:" >&2; cat "$work/dealer.log" >&2; exit 1; }
prom_port=$(free_port)
cp "$rules" "$work/rules.yml"
cat >"$work/prometheus.yml" <<CONF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
scrape_configs:
  - job_name: bp-dealer
    scheme: https
    tls_config: {ca_file: $work/dealer.crt}
    static_configs: [{targets: ["127.0.0.1:$dealer_port"]}]
CONF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
ws="wss://127.0.0.1:$dealer_port"
party() { "$build/client/bp-party" "$1" --dealer "$ws" --ca "$work/dealer.crt" "${@:2}"; }
valid_proof=$("$build/tools/bp" prove --bits 8 --values 5)
for round in $(seq "$rounds"); do
  # a session that completes, of 2 to 4 parties
  parties=$((2 + round % 3)) joins=()
  id=$(party create-session --bits 64 --parties "$parties")
  for position in $(seq "$parties"); do
    party join --session "$id" --value "$((round * position))" >/dev/null &
    joins+=($!)
  done
  wait "${joins[@]}"
  # and one that aborts: a party never comes
  id=$(party create-session --bits 8 --parties 2)
  party join --bits 8 --session "$id" --value 1 >/dev/null 2>&1 || true
  # and verifications: a valid proof, one whose label does not match, and one that is not JSON
  for body in "$valid_proof" "${valid_proof/\"label\":\"bp\"/\"label\":\"other\"}" "not a proof"; do
    curl -s -o /dev/null --cacert "$work/dealer.crt" --data-binary "$body" "https://127.0.0.1:$dealer_port/v1/verify" || true
  done
  # and a request refused by a limit (431: a header over 8 KiB)
  curl -s -o /dev/null --cacert "$work/dealer.crt" -H "X-Padding: $(head -c 9000 /dev/zero | tr '\0' a)" \
    "https://127.0.0.1:$dealer_port/healthz" || true
done
sleep 3  # a few more scrapes and rule evaluations after the last session

api() { curl -s --max-time 10 "http://127.0.0.1:$prom_port/api/v1/$1" "${@:2}"; }
if grep -q '"value":\[[0-9.]*,"1"\]' <<<"$(api query --data-urlencode 'query=up{job="bp-dealer"}')"; then
  pass "Prometheus scrapes the dealer (up == 1)"
else
  fail "Prometheus does not scrape the dealer: $(tail -3 "$work/prometheus.log")"
fi
exported=$(curl -s --cacert "$work/dealer.crt" "https://127.0.0.1:$dealer_port/metrics" | sed -n 's/^# TYPE \([a-z_:]*\) .*/\1/p' | sort -u | tr '\n' ' ')
if checked=$(/usr/bin/python3 "$here/check_expressions.py" "$rules" "$dashboard" "$prom_port" "$exported" 2>&1); then
  pass "on a real Prometheus: $checked"
else
  fail "expressions against the real Prometheus:"
  while IFS= read -r line; do echo "      $line"; done <<<"$checked"
fi
# The operations document's picture is drawn by this script from a run's data: it must work.
if /usr/bin/python3 "$root/deploy/grafana/plot_panels.py" "http://127.0.0.1:$prom_port" "$work/panels.png" \
  --minutes "$(((($(date +%s) - started) + 59) / 60))" >"$work/plot.log" 2>&1 &&
  [ "$(stat -c %s "$work/panels.png")" -gt 20000 ]; then
  pass "deploy/grafana/plot_panels.py draws the main panels from the run ($(stat -c %s "$work/panels.png") bytes)"
else
  fail "plot_panels.py: $(tail -3 "$work/plot.log")"
fi
[ -z "$picture" ] || cp "$work/panels.png" "$picture"
echo "prometheus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
