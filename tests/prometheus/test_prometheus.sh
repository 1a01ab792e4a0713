#!/usr/bin/env bash
# The alert and recording rules in deploy/prometheus/ as an SRE would check them (part of
# the test command): promtool check rules; promtool test rules with synthetic series that
# make every alert fire and keep it quiet; then a real Prometheus (Debian's, on loopback,
# scraping every second) scrapes a real bp-dealer that runs sessions (completed and
# aborted), and every expression of the rules is run through its API: each evaluates without
# error, every metric it names exists in what the dealer exported, and every recording rule
# has produced data.
# Usage: tests/prometheus/test_prometheus.sh BUILD_DIR; prints "prometheus: N passed, M failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
rules="$root/deploy/prometheus/bp-dealer.rules.yml"
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
for _ in $(seq 100); do grep -q listening "$work/dealer.out" && break; sleep 0.05; done
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
for round in 1 2 3 4 5 6; do
  id=$(party create-session --bits 8 --parties 2)
  party join --session "$id" --value "$round" >/dev/null &
  first=$!
  party join --session "$id" --value 7 >/dev/null
  wait "$first"
  # and one that aborts: a party never comes
  id=$(party create-session --bits 8 --parties 2)
  party join --session "$id" --value 1 >/dev/null 2>&1 || true
  # and a request refused by a limit (431: a header over 8 KiB)
  curl -s -o /dev/null --cacert "$work/dealer.crt" -H "X-Padding: $(head -c 9000 /dev/zero | tr '\0' a)" \
    "https://127.0.0.1:$dealer_port/healthz" || true
done
sleep 3  # a few more scrapes and rule evaluations after the last session

api() { curl -s --max-time 10 "http://127.0.0.1:$prom_port/api/v1/$1" "${@:2}"; }
if api query --data-urlencode 'query=up{job="bp-dealer"}' | grep -q '"value":\[[0-9.]*,"1"\]'; then
  pass "Prometheus scrapes the dealer (up == 1)"
else
  fail "Prometheus does not scrape the dealer: $(tail -3 "$work/prometheus.log")"
fi
exported=$(curl -s --cacert "$work/dealer.crt" "https://127.0.0.1:$dealer_port/metrics" | sed -n 's/^# TYPE \([a-z_:]*\) .*/\1/p' | sort -u | tr '\n' ' ')
results=$(python3 - "$rules" "$prom_port" "$exported" <<'PY'
import json, re, sys, urllib.parse, urllib.request, yaml
rules_file, port, exported = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
def query(expr):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        return json.load(urllib.request.urlopen(url, timeout=10))
    except Exception as e:  # a 400 is an expression Prometheus refused
        return {"status": "error", "error": str(getattr(e, "read", lambda: str(e).encode())().decode())}
records, problems, count = [], [], 0
for group in yaml.safe_load(open(rules_file))["groups"]:
    for rule in group["rules"]:
        expr, name = rule["expr"], rule.get("record") or rule.get("alert")
        count += 1
        answer = query(expr)
        if answer.get("status") != "success":
            problems.append(f"{name}: {answer.get('error')}")
        for metric in set(re.findall(r"\b((?:bp|process)_[a-z_]+?)(?:_bucket)?\b(?=[{\[\s)]|$)", expr)):
            base = metric[:-7] if metric.endswith("_bucket") else metric
            if base not in exported and metric not in exported:
                problems.append(f"{name}: the dealer exports no {metric}")
        if "record" in rule:
            records.append(name)
for name in records:
    if not query(name).get("data", {}).get("result"):
        problems.append(f"recording rule {name} produced no data")
print(json.dumps({"count": count, "records": len(records), "problems": problems}))
PY
)
count=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["count"])' "$results")
problems=$(python3 -c 'import json,sys; print("\n".join(json.loads(sys.argv[1])["problems"]))' "$results")
if [ -z "$problems" ]; then
  pass "all $count expressions of the rules evaluate on a real Prometheus, name only metrics the dealer exports, and every recording rule has data"
else
  fail "expressions against the real Prometheus:"
  while IFS= read -r line; do echo "      $line"; done <<<"$problems"
fi
echo "prometheus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
