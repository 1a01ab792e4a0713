# The scale-out demo's balancer: Debian 12's nginx routing as deploy/k8s/ingress.yaml tells
# ingress-nginx to (deploy/nginx/render-ingress-conf.sh renders its annotations).
#   podman build --format docker -f deploy/scale-out/balancer.Dockerfile -t bp-balancer .
# BP_DEALERS names the replicas (host:port, space-separated); balancer-entrypoint.sh waits
# until each answers /readyz, renders the configuration and runs nginx in the foreground.
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY deploy/k8s/ingress.yaml /opt/bp/deploy/k8s/ingress.yaml
COPY deploy/nginx/render-ingress-conf.sh /opt/bp/deploy/nginx/render-ingress-conf.sh
COPY deploy/scale-out/balancer-entrypoint.sh /usr/local/bin/
EXPOSE 8700
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8700/healthz"]
# SIGQUIT is nginx's graceful stop: open WebSockets are let finish up to the stop timeout.
STOPSIGNAL SIGQUIT
ENTRYPOINT ["balancer-entrypoint.sh"]
