#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds and tests with, only those missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang clang-14 clang-tidy libclang-rt-14-dev pkg-config ccache valgrind
  libprotobuf-dev protobuf-compiler libboost-dev libspdlog-dev libsqlite3-dev libssl-dev openssl curl
  libsodium-dev doctest-dev nlohmann-json3-dev
  docker-compose shellcheck iproute2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm (the Kubernetes schema check): Debian's packages unless some node is already
# installed (a NodeSource build bundles its own npm and conflicts with Debian's).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
