#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only those missing, by set:
#   install-deps.sh SET...       the packages of each SET (a stage of tests/run.sh names its own)
#   install-deps.sh              every set: all the test command needs
#   install-deps.sh --build      the same as "build": a Release build of the programs (the
#                                main job, and the image's build stage)
#   install-deps.sh --containers the same as "containers"; --bindings as "bindings"
#   install-deps.sh --print SET  prints the packages of SET
#   install-deps.sh --sets       names every set
set -euo pipefail

declare -A sets=(
  # A Release build of bp, bp-dealer and bp-party (and libbp).
  [build]="cmake ninja-build g++ pkg-config libprotobuf-dev protobuf-compiler libboost-dev libspdlog-dev
           libsqlite3-dev libpq-dev libssl-dev libsodium-dev nlohmann-json3-dev"
  # The Python package and the Go module over libbp.
  [bindings]="golang-go python3-venv python3-pip python3-setuptools python3-wheel python3-pytest"
  # The g++ build with its tests: doctest, the constant-time check, clang-tidy's check, the
  # integration tests' certificates and HTTP, the docs check and its figures' script.
  [gcc]="ccache valgrind clang-tidy doctest-dev openssl curl sqlite3 python3-yaml python3-matplotlib"
  # The sanitizer builds.
  [clang]="clang clang-14 libclang-rt-14-dev ccache doctest-dev"
  # Real servers the cluster, fault, TLS and Prometheus stages start.
  [postgres]="postgresql-15 curl"
  [nginx]="nginx-light"
  [tls]="testssl.sh openssl curl"
  [prometheus]="prometheus python3-yaml python3-matplotlib curl"
  # The deployment checks: compose files, scripts, manifests (node: the schema check).
  [deploy]="docker-compose shellcheck python3-yaml systemd"
  [netns]="iproute2"
  [format]="clang-format"
  # crun 1.8 cannot run containers where cgroups are in hybrid mode: runc can
  # (deploy/podman/containers.conf selects it). deploy/container-demo.sh also drives
  # docker-compose and pins bridges with ip (deploy/podman/pin-bridge-macs.sh). netavark sets
  # up each network's NAT with iptables, which it only recommends: without it every
  # container start fails with "netavark: No such file or directory".
  [containers]="podman podman-compose runc netavark aardvark-dns iptables debootstrap uidmap curl docker-compose iproute2"
)
order=(build bindings gcc clang postgres nginx tls prometheus deploy netns format containers)

packages_of() { for p in ${sets[$1]}; do echo "$p"; done; }

chosen=()
case "${1:-}" in
  "") chosen=("${order[@]}") ;;
  --build) chosen=(build) ;;
  --containers) chosen=(containers) ;;
  --bindings) chosen=(bindings) ;;
  --sets) printf '%s\n' "${order[@]}"; exit 0 ;;
  --print)
    if [ -z "${2:-}" ] || [ -z "${sets[${2}]+set}" ]; then echo "usage: $0 --print SET (see --sets)" >&2; exit 2; fi
    packages_of "$2"
    exit 0 ;;
  -*) echo "usage: $0 [SET... | --build | --containers | --bindings | --print SET | --sets]" >&2; exit 2 ;;
  *)
    for s in "$@"; do
      [ -n "${sets[$s]+set}" ] || { echo "error: no package set '$s' (see $0 --sets)" >&2; exit 2; }
      chosen+=("$s")
    done ;;
esac

missing=()
for s in "${chosen[@]}"; do
  for p in ${sets[$s]}; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "$s" = deploy ]; then
    # node and npm (the Kubernetes schema check): Debian's packages unless some node is
    # already installed (a NodeSource build bundles its own npm and conflicts with Debian's).
    command -v node >/dev/null || missing+=(nodejs)
    command -v npm >/dev/null || missing+=(npm)
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

echo "installing: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# The package lists once per machine (a fresh one has none): not again for every set.
if [ ! -e /var/lib/apt/lists/lock ] || [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit)" ] ||
   ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
