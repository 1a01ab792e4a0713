#!/usr/bin/env bash
# Pins the MAC address of every bridge that carries GATEWAY (a network's gateway address),
# now and whenever one appears, until killed. Run as root beside a compose demo on podman
# with netavark older than 1.9, such as Debian 12's podman 4.3 with netavark 1.4:
#   deploy/podman/pin-bridge-macs.sh 10.89.187.1 &
#
# Why: netavark 1.4 leaves each network's bridge with the kernel's default MAC, the lowest
# of its ports', which moves whenever a container with a lower one joins or the one that
# had it leaves. A container that learnt the old MAC for its gateway then reaches nothing
# there, DNS included, until its ARP entry expires: 30 s and more, seen in the container
# demo as a party that missed the session's join window (netavark 1.9 pins the MAC itself,
# containers/netavark#833). Setting a bridge's MAC by hand, even to the one it has, tells
# the kernel never to recompute it. Netavark deletes a bridge with its last container and
# makes a new one with the next, so this keeps watching.
#   deploy/podman/pin-bridge-macs.sh GATEWAY...
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 GATEWAY..." >&2; exit 2; }
while :; do
  for gateway in "$@"; do
    # The devices holding the gateway address: asked of the kernel by address, not by
    # walking every interface.
    for device in $(ip -4 -o addr show to "$gateway/32" 2>/dev/null | awk '{print $2}'); do
      dev=/sys/class/net/$device
      [ -d "$dev/bridge" ] || continue
      read -r assigned 2>/dev/null <"$dev/addr_assign_type" || continue
      [ "$assigned" != 3 ] || continue # 3: NET_ADDR_SET, set by hand: already pinned
      read -r mac 2>/dev/null <"$dev/address" || continue
      ip link set dev "$device" address "$mac" 2>/dev/null || true
    done
  done
  sleep 0.05
done
