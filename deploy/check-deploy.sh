#!/usr/bin/env bash
# Checks every deployment artefact without a Docker engine or a cluster (part of the test
# command): the compose files with `docker-compose config` (plain, TLS overlay, scale-out), the
# Dockerfile's shape and the files it copies, shellcheck on every script, and the
# Kubernetes manifests against the API schema (deploy/k8s/validate.mjs). The netns demo
# (deploy/netns-demo.sh) runs the topology itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "error: $*" >&2; exit 1; }

echo "== docker-compose config (plain, and with the TLS overlay)"
docker-compose -f deploy/docker-compose.yml config -q
docker-compose -f deploy/docker-compose.yml -f deploy/docker-compose.tls.yml config -q
services=$(docker-compose -f deploy/docker-compose.yml config --services | sort | tr '\n' ' ')
[ "$services" = "dealer init operator party0 party1 party2 party3 " ] || fail "unexpected compose services: $services"
tls_env=$(docker-compose -f deploy/docker-compose.yml -f deploy/docker-compose.tls.yml config)
grep -q 'BP_DEALER_TLS_CERT: /keys/dealer.crt' <<<"$tls_env" || fail "the TLS overlay does not give the dealer a certificate"
[ "$(grep -c 'BP_DEALER_URL: wss://dealer:8700' <<<"$tls_env")" = 5 ] || fail "not every client uses wss:// in the TLS overlay"
while read -r script; do
  [ -x "deploy/compose/$script" ] || fail "compose runs $script, which is not an executable in deploy/compose"
done < <(grep -ho 'bp-compose-[a-z]*\.sh' deploy/docker-compose.yml | sort -u)

# One-shot containers must not inherit the dealer's HEALTHCHECK; only the dealer keeps it.
# (Debian's python3 with python3-yaml, which docker-compose brings.)
/usr/bin/python3 - "$tls_env" <<'PY' || fail "compose health checks: see above"
import sys, yaml
services = yaml.safe_load(sys.argv[1])["services"]
bad = [n for n, s in services.items() if n != "dealer" and s.get("healthcheck", {}).get("test") != ["NONE"]]
bad += ["dealer"] if "healthcheck" in services["dealer"] else []
if bad: sys.exit("error: health check inherited or overridden wrongly in: " + ", ".join(bad))
PY
# The scale-out variant: three replicas on the shared record, behind the balancer only.
docker-compose -f deploy/docker-compose.scale-out.yml config -q
scale=$(docker-compose -f deploy/docker-compose.scale-out.yml config)
services=$(docker-compose -f deploy/docker-compose.scale-out.yml config --services | sort | tr '\n' ' ')
[ "$services" = "balancer dealer1 dealer2 dealer3 init operator party0 party1 party2 party3 records " ] ||
  fail "unexpected scale-out services: $services"
[ "$(grep -c 'BP_DEALER_URL: ws://balancer:8700' <<<"$scale")" = 5 ] || fail "not every scale-out client goes through the balancer"
grep -q '^record = postgresql://' deploy/scale-out/dealer.conf || fail "the scale-out dealers do not share a PostgreSQL record"
! grep -qE '^record = postgresql://[^@]*:[^@]*@' deploy/scale-out/dealer.conf || fail "the scale-out record URL carries a password"
for replica in dealer1 dealer2 dealer3; do
  grep -q "BP_DEALER_REPLICA_NAME: $replica" <<<"$scale" || fail "the scale-out replica $replica has no name of its own"
  grep -q "$replica:8700" deploy/docker-compose.scale-out.yml || fail "the balancer does not route to $replica"
done
# The optional Prometheus: an overlay for either demo, scraping what BP_SCRAPE_TARGETS names.
for base in deploy/docker-compose.yml deploy/docker-compose.scale-out.yml; do
  docker-compose -f "$base" -f deploy/docker-compose.monitoring.yml config -q
  # (Into a variable first: grep -q would stop reading early and, under pipefail, fail the pipe.)
  overlaid=$(docker-compose -f "$base" -f deploy/docker-compose.monitoring.yml config --services)
  grep -qx prometheus <<<"$overlaid" || fail "the monitoring overlay adds no prometheus service to $base"
done
grep -q 'job_name: bp-dealer' deploy/monitoring/prometheus-entrypoint.sh || fail "the demo's Prometheus job is not bp-dealer, which the rules match"
for df in deploy/scale-out/*.Dockerfile deploy/monitoring/*.Dockerfile; do
  while read -r src; do
    for f in $src; do compgen -G "$f" >/dev/null || fail "$df copies $f, which does not exist"; done
  done < <(grep '^COPY [^-]' "$df" | sed -E 's/^COPY (.*) [^ ]+$/\1/')
done
grep -q '/healthz' deploy/compose/bp-compose-operator.sh || fail "the operator script does not wait for the dealer's /healthz"
grep -q 'no such session' deploy/compose/bp-compose-party.sh || fail "the party script does not wait for the session"

echo "== Dockerfile"
[ "$(grep -c '^FROM debian:12' deploy/Dockerfile)" -ge 2 ] || fail "Dockerfile is not a multi-stage Debian 12 build"
grep -q '^USER bp' deploy/Dockerfile || fail "the runtime image does not drop root"
grep -q '^HEALTHCHECK .*healthcheck.sh' deploy/Dockerfile || fail "no HEALTHCHECK"
grep -q 'CMAKE_BUILD_TYPE=Release' deploy/Dockerfile || fail "not a Release build"
grep -q 'install-deps.sh --build' deploy/Dockerfile || fail "the build stage installs more than the build set"
for tool in clang clang-tidy valgrind ccache shellcheck docker-compose doctest-dev nodejs; do
  ! grep -qx "$tool" <<<"$(deploy/install-deps.sh --print build)" || fail "the build set holds $tool, which a Release build does not need"
done
grep -q 'cmake --build /build --target bp-dealer bp-party bp' deploy/Dockerfile || fail "the image builds more than its three programs"
# The build stage copies sources directory by directory: every one the top-level
# CMakeLists.txt adds (but tests/, off in the image) must be among them.
while read -r dir; do
  [ "$dir" = tests ] && continue
  grep -qE "^COPY $dir $dir\$" deploy/Dockerfile || fail "the Dockerfile's build stage does not copy $dir/, which CMakeLists.txt builds"
done < <(sed -nE 's/^ *add_subdirectory\(([^ )]+)\).*/\1/p' CMakeLists.txt)
! grep -q '^VOLUME' deploy/Dockerfile || fail "VOLUME gives every container of the image an anonymous volume"
! grep -qE '^ENV .*BP_DEALER_(LISTEN|DB)' deploy/Dockerfile || fail "ENV BP_DEALER_<option> would beat a mounted config file"
! grep -q 'useradd --system' deploy/Dockerfile || fail "useradd --system with uid 10001 warns (system ids end at 999)"
grep -q 'groupadd --gid 10001 bp' deploy/Dockerfile || fail "group bp is not 10001 like the user"
! grep -q 'BP_DEALER_LISTEN' deploy/image/healthcheck.sh || fail "the health check takes the port from one setting only"
# The deployment document's TLS compose commands: https:// with the demo's CA, not http://.
# (grep reads a variable, not a pipe: grep -q stops early, and pipefail would blame sed's SIGPIPE)
compose_section=$(sed -n '/^## The compose demo/,/^## The scale-out demo/p' docs/deployment.md)
grep -q 'curl --cacert demo-ca.crt https://127.0.0.1:8700/metrics' <<<"$compose_section" ||
  fail "docs/deployment.md's compose section lacks the TLS /metrics command"
while read -r src; do
  for f in $src; do compgen -G "$f" >/dev/null || fail "Dockerfile copies $f, which does not exist"; done
done < <(grep '^COPY [^-]' deploy/Dockerfile | sed -E 's/^COPY (.*) [^ ]+$/\1/' | grep -v '^\. *$')
# Every shared library the binaries link directly must come from a package the runtime stage
# installs (apt brings those packages' own dependencies: libpq5's Kerberos and LDAP, say).
runtime=$(sed -n '/^FROM debian:12-slim/,$p' deploy/Dockerfile)
if [ -x build/gcc/server/bp-dealer ]; then
  needed=$(readelf -d build/gcc/server/bp-dealer build/gcc/client/bp-party | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
  for lib in $(ldd build/gcc/server/bp-dealer build/gcc/client/bp-party | awk '$3 ~ /^\// {print $1 " " $3}' |
               while read -r name path; do grep -qxF "$name" <<<"$needed" && echo "$path"; done | sort -u); do
    pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1 || true)
    case "$pkg" in ''|libc6|libgcc-s1|libstdc++6|zlib1g) continue ;; esac
    grep -qw "$pkg" <<<"$runtime" || fail "the runtime image lacks $pkg (for $(basename "$lib"))"
  done
fi

echo "== the systemd unit (systemd-analyze verify, and its exposure offline)"
# In a throwaway root: the unit where an operator puts it, systemd's own units beside it, and
# an executable where ExecStart looks (the unit's checks need one, not the real program).
unit_root=$(mktemp -d)
trap 'rm -rf "$unit_root"' EXIT
mkdir -p "$unit_root/etc/systemd/system" "$unit_root/usr/lib/systemd" "$unit_root/usr/local/bin" "$unit_root/bin"
cp -r /usr/lib/systemd/system "$unit_root/usr/lib/systemd/"
cp /bin/kill "$unit_root/bin/"
printf '#!/bin/sh\n' >"$unit_root/usr/local/bin/bp-dealer"
chmod 755 "$unit_root/usr/local/bin/bp-dealer"
cp deploy/systemd/bp-dealer.service "$unit_root/etc/systemd/system/"
verify=$(systemd-analyze verify --root="$unit_root" /etc/systemd/system/bp-dealer.service 2>&1) ||
  fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify warns: $verify"
exposure=$(systemd-analyze security --offline=yes --root="$unit_root" /etc/systemd/system/bp-dealer.service 2>&1 |
  sed -n 's/.*Overall exposure level for bp-dealer.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "systemd-analyze security printed no exposure level"
awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "the unit's exposure is $exposure (at most 2.0: keep it hardened)"
echo "   bp-dealer.service: verified; exposure $exposure"
grep -q 'deploy/systemd/bp-dealer.service' docs/operations.md || fail "docs/operations.md does not install the unit"

echo "== shellcheck"
shellcheck -s sh deploy/compose/*.sh deploy/image/healthcheck.sh deploy/scale-out/*.sh
shellcheck -x deploy/*.sh deploy/lib/*.sh deploy/podman/*.sh deploy/nginx/*.sh tests/run.sh tests/format/*.sh tests/cluster/*.sh tests/faults/*.sh tests/tls/*.sh tests/prometheus/*.sh tests/lib/*.sh tests/demo/*.sh tests/bindings/*.sh tests/integration/*.sh tests/plots/*.sh tools/plots/*.sh tools/netbench/*.sh tools/r1cs/*.sh bindings/*.sh bindings/python/*.sh

echo "== Kubernetes manifests (schema and cross-references, no cluster)"
npm_dir="$root/build/npm-k8s"
if [ ! -d "$npm_dir/node_modules/kubernetes-models" ]; then
  mkdir -p "$npm_dir"
  npm install --silent --no-audit --no-fund --prefix "$npm_dir" kubernetes-models@5.1.0 js-yaml@4.1.0 >/dev/null 2>&1 ||
    fail "npm could not install kubernetes-models"
fi
BP_NODE_MODULES="$npm_dir/node_modules" node deploy/k8s/validate.mjs
echo "deployment checks passed"
