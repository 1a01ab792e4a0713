#!/usr/bin/env bash
# The compose topology without Docker: the dealer and four parties each in their own
# network namespace (own stack, own address, joined by veth pairs to a bridge that lives in
# a hub namespace of its own), running the real binaries and the compose demo's own
# scripts (deploy/compose/*.sh): keys, a signed session for the four keys, four joins, the
# proof and the dealer's signature checked with bp verify, /metrics read across the
# network, SIGTERM. Everything is torn down on exit, failure included. Where namespaces
# cannot be made (no privilege), it says so and runs the same steps on loopback
# (BP_NETNS=off asks for that).
#   deploy/netns-demo.sh [BUILD_DIR]     (default build/release; needs bp, bp-dealer, bp-party)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build/release}" && pwd)
# shellcheck source=deploy/lib/demo-results.sh
. "$root/deploy/lib/demo-results.sh"
export PATH="$build/client:$build/server:$build/tools:$root/deploy/compose:$PATH"
for tool in bp bp-dealer bp-party; do command -v "$tool" >/dev/null || { echo "error: no $tool in $build" >&2; exit 1; }; done

tag="bp$$"
nodes=(dealer party0 party1 party2 party3)
work=$(mktemp -d)
namespaces=()
dealer_pid=
cleanup() {
  local status=$?
  if [ -n "$dealer_pid" ]; then kill -KILL "$dealer_pid" 2>/dev/null || true; fi
  for ns in "${namespaces[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns delete "$ns" 2>/dev/null || true
  done
  rm -rf "$work"
  [ $status -eq 0 ] || echo "netns demo FAILED (status $status); namespaces removed" >&2
}
trap cleanup EXIT

# run_on NODE CMD...: run CMD in NODE's namespace (or here, on loopback)
mode=netns
if [ "${BP_NETNS:-on}" != off ] && ip netns add "$tag-hub" 2>/dev/null; then
  namespaces+=("$tag-hub")
  ip -n "$tag-hub" link add br0 type bridge
  ip -n "$tag-hub" link set br0 up
  i=0
  for node in "${nodes[@]}"; do
    ns="$tag-$node"
    ip netns add "$ns"
    namespaces+=("$ns")
    ip -n "$tag-hub" link add "v$i" type veth peer name eth0 netns "$ns"
    ip -n "$tag-hub" link set "v$i" master br0 up
    ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    i=$((i + 1))
  done
  dealer_host=10.77.0.1
  run_on() { local node=$1; shift; ip netns exec "$tag-$node" "$@"; }
  echo "== $((${#nodes[@]})) network namespaces ($tag-*) on a bridge: dealer 10.77.0.1, parties 10.77.0.2-5"
else
  mode=loopback
  dealer_host=127.0.0.1
  run_on() { shift; "$@"; }
  echo "== cannot create network namespaces here (no privilege): running the same topology on loopback"
fi

export BP_KEYS_DIR="$work/keys"
mkdir -p "$BP_KEYS_DIR"
bp-compose-init.sh

# The dealer: keyed (not anonymous, since in namespaces it listens on a non-loopback address).
# Started directly, not through run_on, so $! is the dealer itself (SIGTERM reaches it).
dealer_prefix=()
[ $mode = netns ] && dealer_prefix=(ip netns exec "$tag-dealer")
# In its namespace the dealer listens on every address, as in its container.
listen=127.0.0.1:0
[ $mode = netns ] && listen=0.0.0.0:8700
"${dealer_prefix[@]}" bp-dealer --listen "$listen" --threads 2 \
  --operator-key "$BP_KEYS_DIR/operator.key.pub" --dealer-key "$BP_KEYS_DIR/dealer.key" \
  --record "$work/outcomes.db" >"$work/dealer.out" 2>"$work/dealer.log" &
dealer_pid=$!
for _ in $(seq 100); do grep -q listening "$work/dealer.out" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$work/dealer.out" || { cat "$work/dealer.log" >&2; exit 1; }
port=$(sed -E 's/.*:([0-9]+)$/\1/' "$work/dealer.out")
export BP_DEALER_URL="ws://$dealer_host:$port" BP_SESSION_ID BP_TLS=0
BP_SESSION_ID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "== dealer at $BP_DEALER_URL ($mode)"
# The container image's health check, run where the dealer runs, told nothing of the port
# (the dealer's was set by a flag): it asks the kernel where bp-dealer listens.
run_on dealer env -u BP_DEALER_LISTEN "$root/deploy/image/healthcheck.sh" ||
  { echo "error: deploy/image/healthcheck.sh does not see the dealer" >&2; exit 1; }
echo "== deploy/image/healthcheck.sh (the image's HEALTHCHECK) passes in the dealer's namespace"

run_on party0 bp-compose-operator.sh >/dev/null
echo "== session $BP_SESSION_ID opened by the operator (from party0's namespace) for four keys"
values=(1000000 18446744073709551615 0 42424242)
pids=()
for i in 0 1 2 3; do
  BP_PARTY="party$i" BP_VALUE="${values[$i]}" run_on "party$i" bp-compose-party.sh >"$work/party$i.json" 2>"$work/party$i.err" &
  pids+=($!)
done
for i in 0 1 2 3; do
  wait "${pids[$i]}" || { echo "error: party$i failed: $(cat "$work/party$i.err")" >&2; exit 1; }
done
same_result "$work"/party{0,1,2,3}.json
echo "== four parties in four namespaces received the same proof"
verify_result "$work/party0.json" "$BP_SESSION_ID" "$BP_KEYS_DIR/dealer.key.pub" bp

metrics=$(run_on party3 curl -fsS "http://$dealer_host:$port/metrics")
grep -q '^bp_sessions_completed_total 1$' <<<"$metrics" || { echo "error: /metrics does not count the session" >&2; exit 1; }
echo "== /metrics read by party3 across the network ($mode): bp_sessions_completed_total 1"

kill -TERM "$dealer_pid"
wait "$dealer_pid"
dealer_pid=
echo "== dealer exited 0 on SIGTERM; netns demo passed ($mode)"
