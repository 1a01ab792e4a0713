#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only those missing. One set per use:
#   install-deps.sh              everything the test command needs (build, tests, checks)
#   install-deps.sh --build      only what a Release build of the programs needs (the image's
#                                build stage: no sanitizers, linters, node or ccache)
#   install-deps.sh --containers podman and what the compose demo stage needs to make its
#                                own base images (deploy/container-demo.sh)
#   install-deps.sh --bindings   what the Python package and the Go module need (bindings/)
#   install-deps.sh --print SET  prints the packages of SET (build, test, containers, bindings)
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config
  libprotobuf-dev protobuf-compiler libboost-dev libspdlog-dev libsqlite3-dev libpq-dev libssl-dev
  libsodium-dev nlohmann-json3-dev
)
bindings_packages=(golang-go python3-venv python3-pip python3-setuptools python3-wheel python3-pytest)
test_packages=(
  "${build_packages[@]}" "${bindings_packages[@]}"
  clang clang-14 clang-tidy libclang-rt-14-dev ccache valgrind openssl curl doctest-dev
  docker-compose shellcheck iproute2 sqlite3
  postgresql-15 nginx-light testssl.sh prometheus python3-yaml python3-matplotlib
)
# crun 1.8 cannot run containers where cgroups are in hybrid mode: runc can
# (deploy/podman/containers.conf selects it). deploy/container-demo.sh also drives
# docker-compose and pins bridges with ip (deploy/podman/pin-bridge-macs.sh). netavark sets
# up each network's NAT with iptables, which it only recommends: without it every
# container start fails with "netavark: No such file or directory".
container_packages=(podman podman-compose runc netavark aardvark-dns iptables debootstrap uidmap curl docker-compose iproute2)

set_name="test"
case "${1:-}" in
  "") ;;
  --build) set_name=build ;;
  --containers) set_name=containers ;;
  --bindings) set_name=bindings ;;
  --print)
    case "${2:-}" in
      build) printf '%s\n' "${build_packages[@]}" ;;
      test) printf '%s\n' "${test_packages[@]}" ;;
      containers) printf '%s\n' "${container_packages[@]}" ;;
      bindings) printf '%s\n' "${bindings_packages[@]}" ;;
      *) echo "usage: $0 --print build|test|containers|bindings" >&2; exit 2 ;;
    esac
    exit 0 ;;
  *) echo "usage: $0 [--build | --containers | --bindings | --print SET]" >&2; exit 2 ;;
esac

case "$set_name" in
  build) packages=("${build_packages[@]}") ;;
  test) packages=("${test_packages[@]}") ;;
  containers) packages=("${container_packages[@]}") ;;
  bindings) packages=("${bindings_packages[@]}") ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$set_name" = test ]; then
  # node and npm (the Kubernetes schema check): Debian's packages unless some node is
  # already installed (a NodeSource build bundles its own npm and conflicts with Debian's).
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
