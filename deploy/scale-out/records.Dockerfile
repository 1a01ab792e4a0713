# The scale-out demo's shared record: Debian 12's PostgreSQL 15, nothing else.
#   podman build --format docker -f deploy/scale-out/records.Dockerfile -t bp-records .
# On first start records-entrypoint.sh makes the cluster in /var/lib/postgresql/data (the
# compose file's volume) with the role and database bp, whose password the init container
# wrote to /keys/records.password; after that it only starts the server.
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY deploy/scale-out/records-entrypoint.sh /usr/local/bin/
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
EXPOSE 5432
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 CMD ["pg_isready", "-q", "-h", "127.0.0.1", "-U", "bp", "-d", "bp"]
# SIGINT is PostgreSQL's "fast" shutdown: sessions are disconnected, the data is consistent.
STOPSIGNAL SIGINT
ENTRYPOINT ["records-entrypoint.sh"]
