# The compose demos' optional Prometheus: Debian 12's, with the dealer's rules
# (deploy/prometheus/bp-dealer.rules.yml), scraping the replicas named in BP_SCRAPE_TARGETS.
#   podman build --format docker -f deploy/monitoring/prometheus.Dockerfile -t bp-prometheus .
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY deploy/prometheus/bp-dealer.rules.yml /etc/bp/bp-dealer.rules.yml
COPY deploy/monitoring/prometheus-entrypoint.sh /usr/local/bin/
EXPOSE 9090
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:9090/-/ready"]
USER prometheus
ENTRYPOINT ["prometheus-entrypoint.sh"]
