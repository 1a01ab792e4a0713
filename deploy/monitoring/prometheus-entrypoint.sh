#!/bin/sh
# Writes a Prometheus configuration for the dealer replicas in BP_SCRAPE_TARGETS
# ("host:port host:port ...") with the dealer's alert and recording rules, and runs
# Prometheus in the foreground. The job is named bp-dealer, as the rules and the dashboard
# expect; the replicas are scraped every BP_SCRAPE_INTERVAL (default 5s).
set -eu
: "${BP_SCRAPE_TARGETS:?names the dealer replicas to scrape, host:port each}"
interval=${BP_SCRAPE_INTERVAL:-5s}
config=/tmp/prometheus.yml
targets=""
for target in $BP_SCRAPE_TARGETS; do targets="$targets\"$target\", "; done
cat >"$config" <<CONF
global: {scrape_interval: $interval, evaluation_interval: $interval}
rule_files: [/etc/bp/bp-dealer.rules.yml]
scrape_configs:
  - job_name: bp-dealer
    static_configs: [{targets: [${targets%, }]}]
CONF
echo "prometheus: scraping $BP_SCRAPE_TARGETS every $interval"
exec prometheus --config.file="$config" --storage.tsdb.path=/tmp/tsdb --web.listen-address=0.0.0.0:9090
