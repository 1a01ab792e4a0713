#!/usr/bin/env bash
# The compose demo for real, with Debian's podman and podman-compose (part of the test
# command): builds the image from deploy/Dockerfile and runs deploy/docker-compose.yml,
# plain and with the TLS overlay. Checks that the four parties print the same proof, that
# the image's `bp verify` accepts it with the dealer's signature, that /healthz and /metrics
# answer on the host's loopback, that the dealer's health check says healthy (and the
# one-shot containers have none), and that `down` leaves no container, network or volume.
# Before that, the image itself: user and group, no VOLUME, only the three programs, a
# build stage without the test tools, the health check whatever way the port is set, a
# mounted config file obeyed, and the demo right when the dealer starts last.
#
# It sets up what it needs on a bare Debian 12 machine: the packages (install-deps.sh
# --containers), the base images debian:12 and debian:12-slim (debootstrap, imported: no
# registry is used) and podman's settings for this kind of machine (deploy/podman/
# containers.conf). Where podman cannot run a container at all it says SKIPPED and why, and
# exits 0 (BP_CONTAINER_DEMO=required makes that a failure); every other problem fails.
# The demo's traffic stays in the networks it creates and on the host's loopback.
#   deploy/container-demo.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=deploy/lib/demo-results.sh
. "$root/deploy/lib/demo-results.sh"
export CONTAINERS_CONF="$root/deploy/podman/containers.conf"
tag="bpdemo$$"
work=$(mktemp -d)
image=bp:latest
# The build stage keeps a tag of its own between runs: untagged, podman would prune its
# layers with it, and the next run would build everything again (5-6 min instead of ~15 s).
build_image=bp-build:latest

fail() { echo "error: $*" >&2; exit 1; }
skip() {
  echo "SKIPPED: the container demo (podman build + compose) did not run: $*" >&2
  [ "${BP_CONTAINER_DEMO:-}" != required ] || exit 1
  echo "container demo SKIPPED; the structural checks (deploy/check-deploy.sh) stand in for it"
  exit 0
}
now_ms() { date +%s%3N; }
# Without systemd, podman logs an error for every container of an image with a HEALTHCHECK
# ("unable to get systemd connection" to add its timer): healthy() below runs the checks.
# The network and volume commands also complain that there is no syslog to log to.
podman() { command podman "$@" 2> >(grep -vE 'unable to get systemd connection|failed to connect to syslog' >&2); }
projects=()
service_pid=
pin_pid=

cleanup() {
  local status=$?
  local leftover
  leftover=$(podman ps -aq --filter "label=bp-demo=$tag" 2>/dev/null || true)
  # shellcheck disable=SC2086
  [ -z "$leftover" ] || podman rm -f $leftover >/dev/null 2>&1 || true
  local entry
  for entry in "${projects[@]}"; do
    # shellcheck disable=SC2086
    set -- $entry
    compose "$1" -p "$2" "${@:3}" down -v >/dev/null 2>&1 || true
    podman network rm -f "$2_bp" >/dev/null 2>&1 || true
  done
  [ -z "$service_pid" ] || kill "$service_pid" 2>/dev/null || true
  [ -z "$pin_pid" ] || kill "$pin_pid" 2>/dev/null || true
  podman network rm -f "$tag-net" >/dev/null 2>&1 || true
  podman volume rm -f "$tag-keys" >/dev/null 2>&1 || true
  rm -rf "$work"
  [ $status -eq 0 ] || echo "container demo FAILED (status $status); its containers, networks and volumes removed" >&2
}
trap cleanup EXIT

echo "== packages (podman, podman-compose, runc, debootstrap)"
"$root/deploy/install-deps.sh" --containers || skip "the container packages could not be installed"
podman info >/dev/null 2>"$work/info.err" || skip "podman info failed: $(head -3 "$work/info.err")"

# Base images without a registry: Debian 12 from the machine's own Debian mirror, as
# debian:12, and a trimmed copy (no documentation, manual pages or translations, and dpkg
# told to keep them out) as debian:12-slim. Kept in podman's storage for the next run.
base_images() {
  if podman image exists debian:12 && podman image exists debian:12-slim; then
    echo "== base images debian:12 and debian:12-slim already in podman's storage"
    return
  fi
  local mirror rootfs start
  # The first Debian mirror apt uses here (deb822 or one-line sources); grep fails on a file
  # that is not there, which must not end the run.
  mirror=${BP_DEBIAN_MIRROR:-$({ grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } | awk '{print $2; exit}')}
  mirror=${mirror:-http://deb.debian.org/debian}
  rootfs="$work/rootfs"
  start=$(now_ms)
  echo "== debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
  # debootstrap copies this machine's resolver into the tree; an image must not carry it
  # (podman writes each container's resolv.conf, and the build uses the machine's).
  : >"$rootfs/etc/resolv.conf"
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian*}/debian-security bookworm-security main
EOF
  local changes=(--change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
  tar -C "$rootfs" -c . | podman import --quiet "${changes[@]}" - debian:12 >/dev/null
  rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/lintian "$rootfs"/var/cache/debconf/*-old
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
    'path-exclude /usr/share/lintian/*' >"$rootfs/etc/dpkg/dpkg.cfg.d/slim"
  tar -C "$rootfs" -c . | podman import --quiet "${changes[@]}" - debian:12-slim >/dev/null
  rm -rf "$rootfs"
  echo "== base images made in $((($(now_ms) - start) / 1000)) s: $(podman image inspect --format '{{.Size}}' debian:12 | numfmt --to=si)B, slim $(podman image inspect --format '{{.Size}}' debian:12-slim | numfmt --to=si)B"
}
base_images

# Can podman run a container here at all? If not, that is the one reason to skip.
podman run --rm --network none --label "bp-demo=$tag" debian:12 true 2>"$work/run.err" ||
  skip "podman cannot run a container on this machine: $(head -3 "$work/run.err")"

echo "== podman build --format docker -f deploy/Dockerfile (the image's build stage, then the image)"
start=$(now_ms)
image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
previous_ids="$(image_id "$build_image") $(image_id "$image")"
build=(podman build --pull=never --network host --format docker -f deploy/Dockerfile)
"${build[@]}" --target build -t "$build_image" . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "the build stage did not build"; }
"${build[@]}" -t "$image" . >>"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "the image did not build"; }
build_s=$((($(now_ms) - start) / 1000))
# The images these tags named before, if the build replaced them (and their layers no
# other image uses): nothing else of the machine's is pruned.
for id in $previous_ids; do
  [[ " $(image_id "$build_image") $(image_id "$image") " == *" $id "* ]] || podman rmi "$id" >/dev/null 2>&1 || true
done
# From here on the containers run: their names resolve only through the network's own DNS.
export CONTAINERS_CONF="$root/deploy/podman/containers-demo.conf"
demo_resolver=$(sed -nE 's/^dns_servers = \["([0-9.]+)"\]$/\1/p' "$CONTAINERS_CONF")
[ -n "$demo_resolver" ] || fail "no dns_servers address in $CONTAINERS_CONF"
# A network left by a run that was killed would hold the one subnet the demo's networks get.
for stale in $(podman network ls --format '{{.Name}}' | grep '^bpdemo' || true); do
  echo "== removing the network $stale left by an earlier run"
  podman network rm -f "$stale" >/dev/null
done
# Netavark 1.4 lets a bridge's MAC move as containers come and go, which cuts the others
# off their gateway for 30 s and more: pinned while the demo runs (see the script).
"$root/deploy/podman/pin-bridge-macs.sh" "$demo_resolver" &
pin_pid=$!
size=$(podman image inspect --format '{{.Size}}' "$image")
build_size=$(podman image inspect --format '{{.Size}}' "$build_image")
echo "== image built in $build_s s: runtime image $(numfmt --to=si "$size")B ($size bytes), build stage $(numfmt --to=si "$build_size")B"

echo "== the image: user, volumes, programs, build stage, health check"
! grep -E 'useradd: warning|groupadd: warning' "$work/build.log" || fail "useradd or groupadd warned while building"
[ "$(podman run --rm --network none --label "bp-demo=$tag" --entrypoint id "$image")" = "uid=10001(bp) gid=10001(bp) groups=10001(bp)" ] ||
  fail "the image does not run as bp:bp (10001:10001): $(podman run --rm --network none --entrypoint id "$image")"
volumes=$(podman image inspect --format '{{json .Config.Volumes}}' "$image")
case "$volumes" in null | "{}" | "") ;; *) fail "the image declares VOLUME $volumes (anonymous volumes for every container)" ;; esac
[ "$(podman image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")" = '["CMD","healthcheck.sh"]' ] ||
  fail "the image has no HEALTHCHECK (built as OCI?)"
programs=$(podman run --rm --network none --entrypoint sh "$image" -c 'ls /usr/local/bin' | tr '\n' ' ')
[ "$programs" = "bp bp-compose-init.sh bp-compose-operator.sh bp-compose-party.sh bp-dealer bp-party healthcheck.sh " ] ||
  fail "unexpected programs in the image: $programs"
# The build stage's own packages (marked manual by apt) beyond the base image's: exactly the
# build set, and nothing of the test tools or the other targets.
expected_packages=$(deploy/install-deps.sh --print build | sort | tr '\n' ' ')
manual() { podman run --rm --network none "$1" apt-mark showmanual 2>/dev/null | sort; }
installed=$(comm -13 <(manual debian:12) <(manual "$build_image") | tr '\n' ' ')
[ "$installed" = "$expected_packages" ] || fail "the build stage installed '$installed', not the build set '$expected_packages'"
extra=$(podman run --rm --network none "$build_image" sh -c 'command -v clang ccache valgrind node; ls -d /build/tools/bp-netbench /build/tests 2>/dev/null; true' | tr '\n' ' ')
[ -z "$extra" ] || fail "the build stage has what a Release build of the three programs does not need: $extra"
echo "   bp:bp is 10001:10001, no VOLUME, HEALTHCHECK kept, programs: $programs"
echo "   build stage: only the build set ($expected_packages), only the three programs built"

# healthy CONTAINER: podman's health check says healthy (no systemd here runs it on a timer).
healthy() {
  local i
  for i in $(seq 40); do
    podman healthcheck run "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  return 1
}
# demo_networks_only CONTAINER...: each container's network has the demo's resolver as its
# gateway and a bridge whose MAC is pinned, and the container's resolv.conf names that
# resolver and no other, so no lookup of the demo leaves the networks it made (podman 4.3
# adds the host's resolvers by default). Run while the dealer still holds the bridge.
demo_networks_only() {
  local c networks network servers info bridge
  for c in "$@"; do
    networks=$(podman inspect --format '{{range $name, $_ := .NetworkSettings.Networks}}{{$name}} {{end}}' "$c")
    [ -n "$networks" ] || fail "podman names no network for $c"
    for network in $networks; do
      info=$(podman network inspect --format '{{.NetworkInterface}} {{range .Subnets}}{{.Gateway}} {{end}}' "$network")
      bridge=${info%% *}
      [ "${info#* }" = "$demo_resolver " ] ||
        fail "the network $network of $c does not have $demo_resolver (the demo's resolver) as its gateway"
      [ "$(cat "/sys/class/net/$bridge/addr_assign_type" 2>/dev/null)" = 3 ] ||
        fail "the bridge $bridge of $network has a MAC the kernel may move (pin-bridge-macs.sh did not pin it)"
    done
    servers=$(awk '$1 == "nameserver" {printf "%s ", $2}' "$(podman inspect --format '{{.ResolvConfPath}}' "$c")")
    [ "$servers" = "$demo_resolver " ] || fail "$c resolves names through '$servers', not only its network's own DNS ($demo_resolver)"
  done
}

# The port set three ways the health check must see: a flag, a mounted config file (which
# the image's defaults must not beat), a variable. Each dealer has only its own loopback.
printf 'listen = 127.0.0.1:18743\nallow-anonymous = true\n' >"$work/loopback.conf"
chmod 644 "$work/loopback.conf"
dealer_run=(podman run -d --network none --label "bp-demo=$tag")
c1=$("${dealer_run[@]}" "$image" --listen 127.0.0.1:18744 --allow-anonymous)
c2=$("${dealer_run[@]}" -v "$work/loopback.conf:/etc/bp/dealer.conf:ro" "$image")
c3=$("${dealer_run[@]}" -e BP_DEALER_LISTEN=127.0.0.1:18745 -e BP_DEALER_ALLOW_ANONYMOUS=true "$image")
for c in "$c1" "$c2" "$c3"; do
  healthy "$c" || { podman logs "$c" >&2; fail "the dealer in ${c:0:12} ($(podman inspect --format '{{.Args}}' "$c")) is not healthy"; }
done
grep -q 'listening on 127.0.0.1:18743' <<<"$(podman logs "$c2" 2>&1)" || fail "the mounted config's listen was not obeyed"
podman rm -f "$c1" "$c2" "$c3" >/dev/null
echo "== health check healthy with the port from a flag, a mounted config file and a variable"

# Start-up order: the parties and the operator first, the dealer 3 s later, on a network of
# this run's own. The scripts must wait for /healthz and the session by themselves.
session=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
podman network create "$tag-net" >/dev/null
podman volume create "$tag-keys" >/dev/null
on_net=(podman run --network "$tag-net" --label "bp-demo=$tag" -v "$tag-keys:/keys")
"${on_net[@]}" --rm --entrypoint bp-compose-init.sh "$image" >/dev/null
client_env=(-e BP_DEALER_URL=ws://dealer:8700 -e "BP_SESSION_ID=$session" -e BP_TLS=0)
values=(1000000 18446744073709551615 0 42424242)
for i in 0 1 2 3; do
  "${on_net[@]}" -d --name "$tag-party$i" "${client_env[@]}" -e "BP_PARTY=party$i" -e "BP_VALUE=${values[$i]}" \
    --entrypoint bp-compose-party.sh "$image" >/dev/null
done
"${on_net[@]}" -d --name "$tag-operator" "${client_env[@]}" --entrypoint bp-compose-operator.sh "$image" >/dev/null
sleep 3
"${on_net[@]}" -d --name "$tag-dealer" --network-alias dealer -e BP_DEALER_OPERATOR_KEY=/keys/operator.key.pub \
  -e BP_DEALER_DEALER_KEY=/keys/dealer.key "$image" >/dev/null
failed=
for i in 0 1 2 3; do
  [ "$(timeout 120 podman wait "$tag-party$i")" = 0 ] || failed="$failed party$i"
  podman logs "$tag-party$i" >"$work/order$i.json" 2>"$work/order$i.err"
done
if [ -n "$failed" ]; then
  for i in 0 1 2 3; do echo "-- party$i:"; cat "$work/order$i.err"; done >&2
  echo "-- operator (exit $(podman inspect --format '{{.State.ExitCode}}' "$tag-operator")):" >&2
  podman logs "$tag-operator" 2>&1 | tail -20 >&2
  echo "-- dealer (first lines, then the last):" >&2
  podman logs "$tag-dealer" 2>&1 | head -15 >&2
  podman logs "$tag-dealer" 2>&1 | grep -v 'reason="no such session"' | tail -30 >&2
  fail "when the dealer started last,$failed failed"
fi
same_result "$work"/order{0,1,2,3}.json
demo_networks_only "$tag-operator" "$tag-party0" "$tag-party1" "$tag-party2" "$tag-party3"
podman rm -f "$tag-dealer" "$tag-operator" "$tag-party0" "$tag-party1" "$tag-party2" "$tag-party3" >/dev/null
podman network rm "$tag-net" >/dev/null
podman volume rm "$tag-keys" >/dev/null
echo "== dealer started 3 s after the operator and the parties: the four proofs agree; names resolved only by the network's own DNS ($demo_resolver), its bridge's MAC pinned"

# Two compose implementations from Debian: docker-compose 1.29 against podman's Docker API
# (podman system service on a socket of this run's), which honours depends_on conditions,
# and podman-compose 1.0.3, which ignores them and starts the containers a second apart.
# Without systemd nobody runs the dealer's health check, so `condition: service_healthy`
# would wait forever: health_loop runs `podman healthcheck run` while the demo comes up.
socket="$work/podman.sock"
podman system service --time=0 "unix://$socket" >"$work/service.log" 2>&1 &
service_pid=$!
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { cat "$work/service.log" >&2; fail "podman system service did not open $socket"; }
compose() {
  local tool=$1
  shift
  case "$tool" in
    docker-compose) DOCKER_HOST="unix://$socket" docker-compose "$@" ;;
    podman-compose) podman-compose "$@" ;;
  esac
}
health_loop() { while :; do podman healthcheck run "$1" >/dev/null 2>&1 || true; sleep 1; done; }
# collect_parties PROJECT PREFIX SECONDS: waits for PROJECT's party0..3 (SECONDS each), keeps
# each one's output in $work/PREFIX{0..3}.json and .err; if any failed, prints their stderr,
# names them in $parties_failed and returns 1.
parties_failed=
collect_parties() {
  local project=$1 prefix=$2 seconds=$3 i
  parties_failed=
  for i in 0 1 2 3; do
    [ "$(timeout "$seconds" podman wait "${project}_party${i}_1")" = 0 ] || parties_failed="$parties_failed party$i"
  done
  for i in 0 1 2 3; do podman logs "${project}_party${i}_1" >"$work/$prefix$i.json" 2>"$work/$prefix$i.err"; done
  [ -n "$parties_failed" ] || return 0
  for i in 0 1 2 3; do echo "-- party$i:"; cat "$work/$prefix$i.err"; done >&2
  return 1
}

# run_compose TOOL MODE [OVERLAY]: the demo as a user runs it, then every check.
run_compose() {
  local tool=$1 mode=$2 project="$tag-$2-${1%%-*}" files=(-f deploy/docker-compose.yml) port scheme curl_tls=() i c
  local name="$mode, $tool"
  [ -n "${3:-}" ] && files+=(-f "$3")
  projects+=("$tool $project ${files[*]}")
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local volumes_before networks_before
  volumes_before=$(podman volume ls -q | sort)
  networks_before=$(podman network ls -q | sort)
  export BP_SESSION_ID BP_HOST_PORT=$port
  BP_SESSION_ID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  local start health_pid
  start=$(now_ms)
  health_loop "${project}_dealer_1" &
  health_pid=$!
  compose "$tool" -p "$project" "${files[@]}" up -d >"$work/$mode-up.log" 2>&1 ||
    { kill "$health_pid"; tail -30 "$work/$mode-up.log" >&2; fail "$tool up ($mode) failed"; }
  local parties_ok=1
  collect_parties "$project" "$mode" 120 || parties_ok=
  local elapsed=$(($(now_ms) - start))
  kill "$health_pid"
  [ -n "$parties_ok" ] || fail "$parties_failed failed ($name)"
  same_result "$work/${mode}"{0,1,2,3}.json
  verify_result "$work/${mode}0.json" "$BP_SESSION_ID" /keys/dealer.key.pub \
    podman run --rm --network none --label "bp-demo=$tag" -v "${project}_keys:/keys:ro" --entrypoint bp "$image" >/dev/null ||
    fail "the image's bp verify rejected the proof ($name)"
  echo "== $name: up to four equal proofs in $((elapsed / 1000)).$((elapsed % 1000 / 100)) s; the image's bp verify accepts proof and signature"

  scheme=http
  if [ "$mode" = tls ]; then
    scheme=https
    podman cp "${project}_dealer_1:/keys/ca.crt" "$work/ca.crt"
    curl_tls=(--cacert "$work/ca.crt")
  fi
  [ "$(curl -fsS "${curl_tls[@]}" "$scheme://127.0.0.1:$port/healthz")" = ok ] || fail "/healthz did not answer on the host ($name)"
  grep -q '^bp_sessions_completed_total 1$' <<<"$(curl -fsS "${curl_tls[@]}" "$scheme://127.0.0.1:$port/metrics")" ||
    fail "/metrics on the host does not count the session ($name)"
  healthy "${project}_dealer_1" || fail "podman healthcheck run: the dealer is not healthy ($name)"
  demo_networks_only "${project}"_{init,dealer,operator,party0,party1,party2,party3}_1
  for c in init operator party0 party1 party2 party3; do
    case "$(podman inspect --format '{{json .Config.Healthcheck}}' "${project}_${c}_1")" in
      null | '{"Test":["NONE"]'*) ;;
      *) fail "the one-shot container $c has a health check: $(podman inspect --format '{{json .Config.Healthcheck}}' "${project}_${c}_1")" ;;
    esac
  done
  local new_volumes
  new_volumes=$(comm -13 <(echo "$volumes_before") <(podman volume ls -q | sort) | tr '\n' ' ')
  [ "$new_volumes" = "${project}_keys ${project}_outcomes " ] || fail "the demo made volumes '$new_volumes', not only keys and outcomes ($name)"
  echo "== $name: $scheme://127.0.0.1:$port/healthz and /metrics answer on the host; dealer healthy; names resolved only by the network's own DNS, bridge MAC pinned; one-shots without health check; volumes: $new_volumes"

  compose "$tool" -p "$project" "${files[@]}" down -v >"$work/$mode-down.log" 2>&1 || { cat "$work/$mode-down.log" >&2; fail "down failed ($name)"; }
  [ -z "$(podman ps -aq --filter "name=^${project}_")" ] || fail "containers left after down ($name)"
  [ "$(podman volume ls -q | sort)" = "$volumes_before" ] || fail "volumes left after down ($name): $(podman volume ls -q | tr '\n' ' ')"
  local note=""
  if [ "$tool" = podman-compose ] && [ "$(podman network ls -q | sort)" != "$networks_before" ]; then
    # podman-compose 1.0.3's down never removes networks (it has no code for it).
    podman network rm "${project}_bp" >/dev/null
    note=" (podman-compose 1.0.3 leaves the network ${project}_bp: removed with podman network rm)"
  fi
  [ "$(podman network ls -q | sort)" = "$networks_before" ] || fail "networks left after down ($name): $(podman network ls -q | tr '\n' ' ')"
  echo "== $name: down -v left no container, network or volume$note"
}

# The scale-out variant (deploy/docker-compose.scale-out.yml) with the optional Prometheus
# (deploy/docker-compose.monitoring.yml): their three images, then the demo through the
# balancer, Prometheus's view of the replicas, the record read back through the balancer,
# and again after the replica that ran the session is killed.
run_scale_out() {
  local project="$tag-scale" files=(-f deploy/docker-compose.scale-out.yml -f deploy/docker-compose.monitoring.yml)
  local port start c loops=() name="scale-out with Prometheus, docker-compose"
  projects+=("docker-compose $project ${files[*]}")
  start=$(now_ms)
  for c in scale-out/records scale-out/balancer monitoring/prometheus; do
    local before built="bp-${c#*/}:latest"  # (not "image": that names the bp image the checks below run)
    before=$(image_id "$built")
    podman build --pull=never --network host --format docker -f "deploy/$c.Dockerfile" -t "$built" . \
      >"$work/${c#*/}-build.log" 2>&1 || { tail -30 "$work/${c#*/}-build.log" >&2; fail "the image $built did not build"; }
    [ -z "$before" ] || [ "$before" = "$(image_id "$built")" ] || podman rmi "$before" >/dev/null 2>&1 || true
  done
  echo "== scale-out images bp-records (PostgreSQL 15), bp-balancer (nginx), bp-prometheus built in $((($(now_ms) - start) / 1000)) s:" \
    "$(podman image inspect --format '{{.Size}}' bp-records:latest | numfmt --to=si)B," \
    "$(podman image inspect --format '{{.Size}}' bp-balancer:latest | numfmt --to=si)B," \
    "$(podman image inspect --format '{{.Size}}' bp-prometheus:latest | numfmt --to=si)B"
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export BP_PROMETHEUS_PORT BP_SCRAPE_TARGETS="dealer1:8700 dealer2:8700 dealer3:8700"
  BP_PROMETHEUS_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local volumes_before networks_before
  volumes_before=$(podman volume ls -q | sort)
  networks_before=$(podman network ls -q | sort)
  export BP_SESSION_ID BP_HOST_PORT=$port
  BP_SESSION_ID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  start=$(now_ms)
  for c in records dealer1 dealer2 dealer3 balancer prometheus; do
    health_loop "${project}_${c}_1" &
    loops+=($!)
  done
  compose docker-compose -p "$project" "${files[@]}" up -d >"$work/scale-up.log" 2>&1 ||
    { kill "${loops[@]}"; tail -30 "$work/scale-up.log" >&2; fail "docker-compose up ($name) failed"; }
  local parties_ok=1
  collect_parties "$project" scale 180 || parties_ok=
  local elapsed=$(($(now_ms) - start))
  kill "${loops[@]}"
  if [ -z "$parties_ok" ]; then
    for c in operator balancer dealer1 dealer2 dealer3 records; do echo "-- $c:"; podman logs "${project}_${c}_1" 2>&1 | tail -15; done >&2
    fail "$parties_failed failed ($name)"
  fi
  same_result "$work"/scale{0,1,2,3}.json
  verify_result "$work/scale0.json" "$BP_SESSION_ID" /keys/dealer.key.pub \
    podman run --rm --network none --label "bp-demo=$tag" -v "${project}_keys:/keys:ro" --entrypoint bp "$image" >/dev/null ||
    fail "the image's bp verify rejected the proof ($name)"
  echo "== $name: up to four equal proofs in $((elapsed / 1000)).$((elapsed % 1000 / 100)) s through the balancer; bp verify accepts them"

  local lb="http://127.0.0.1:$port" holder completed=0 count
  curl -fsS "$lb/v1/sessions/$BP_SESSION_ID" >"$work/scale-record.json" || fail "GET /v1/sessions/ID through the balancer failed ($name)"
  record_matches "$work/scale-record.json" "$work/scale0.json" || fail "the record through the balancer is not the parties' result ($name)"
  holder=$(podman exec -u postgres "${project}_records_1" psql -h /tmp -d bp -tAc \
    "SELECT replica FROM bp_sessions WHERE id = '$BP_SESSION_ID' AND NOT open AND ok")
  [[ "$holder" =~ ^dealer[123]$ ]] || fail "PostgreSQL holds no completed row for the session ($name): '$holder'"
  for c in dealer1 dealer2 dealer3; do
    count=$(podman exec "${project}_${c}_1" curl -fsS http://127.0.0.1:8700/metrics | sed -n 's/^bp_sessions_completed_total //p')
    completed=$((completed + ${count:-0}))
    healthy "${project}_${c}_1" || fail "podman healthcheck run: $c is not healthy ($name)"
    [ "$(podman exec "${project}_${c}_1" curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8700/readyz)" = 200 ] ||
      fail "$c is not ready ($name)"
  done
  [ "$completed" = 1 ] || fail "the replicas count $completed completed sessions, not 1 ($name)"
  # Prometheus sees the three replicas up, and the one completed session, within a few scrapes.
  local prom="http://127.0.0.1:$BP_PROMETHEUS_PORT/api/v1/query" seen=""
  for _ in $(seq 60); do
    seen=$(curl -fsS --max-time 5 "$prom" --data-urlencode 'query=count(up{job="bp-dealer"} == 1) * 1000 + sum(bp_sessions_completed_total)' |
      sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
    [ "$seen" = 3001 ] && break
    sleep 1
  done
  [ "$seen" = 3001 ] || fail "Prometheus does not see 3 replicas up and 1 completed session ($name): '$seen'"
  grep -q '"name":"BpDealerDown"' <<<"$(curl -fsS "http://127.0.0.1:$BP_PROMETHEUS_PORT/api/v1/rules")" ||
    fail "the demo's Prometheus has not loaded the alert rules ($name)"
  healthy "${project}_prometheus_1" || fail "podman healthcheck run: prometheus is not healthy ($name)"
  healthy "${project}_records_1" || fail "podman healthcheck run: records is not healthy ($name)"
  healthy "${project}_balancer_1" || fail "podman healthcheck run: the balancer is not healthy ($name)"
  demo_networks_only "${project}"_{init,records,dealer1,dealer2,dealer3,balancer,prometheus,operator,party0,party1,party2,party3}_1
  podman kill "${project}_${holder}_1" >/dev/null
  curl -fsS --max-time 20 "$lb/v1/sessions/$BP_SESSION_ID" >"$work/scale-record-after.json" ||
    fail "with $holder killed, GET /v1/sessions/ID through the balancer failed ($name)"
  record_matches "$work/scale-record-after.json" "$work/scale0.json" ||
    fail "with $holder killed, the record through the balancer is not the parties' result ($name)"
  echo "== $name: the record read through the balancer matches (PostgreSQL's row names $holder), and still does with $holder killed; the replicas count 1 completed session, as Prometheus does (3 replicas up, rules loaded); all ready and healthy"

  local new_volumes
  new_volumes=$(comm -13 <(echo "$volumes_before") <(podman volume ls -q | sort) | tr '\n' ' ')
  [ "$new_volumes" = "${project}_keys ${project}_records " ] || fail "the demo made volumes '$new_volumes', not only keys and records ($name)"
  compose docker-compose -p "$project" "${files[@]}" down -v >"$work/scale-down.log" 2>&1 || { cat "$work/scale-down.log" >&2; fail "down failed ($name)"; }
  [ -z "$(podman ps -aq --filter "name=^${project}_")" ] || fail "containers left after down ($name)"
  [ "$(podman volume ls -q | sort)" = "$volumes_before" ] || fail "volumes left after down ($name): $(podman volume ls -q | tr '\n' ' ')"
  [ "$(podman network ls -q | sort)" = "$networks_before" ] || fail "networks left after down ($name): $(podman network ls -q | tr '\n' ' ')"
  echo "== $name: down -v left no container, network or volume"
}
run_compose docker-compose plain
run_compose docker-compose tls deploy/docker-compose.tls.yml
run_compose podman-compose tls deploy/docker-compose.tls.yml
run_scale_out
echo "container demo passed: image $(numfmt --to=si "$size")B built in $build_s s"
