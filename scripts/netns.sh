#!/usr/bin/env bash
# Two network namespaces joined by a veth pair, the link shaped with tc to a
# given rate and delay: a LAN/WAN between party A and party B on one machine.
# Run as root.
#
#   scripts/netns.sh up [RATE] [DELAY]   # default 100mbit, 20ms (each way)
#   scripts/netns.sh down
#
# Party A lives in namespace twofold-a at 10.77.0.1, party B in twofold-b at
# 10.77.0.2; `twofold bench --ipp --netns` uses them.
set -euo pipefail

A=twofold-a
B=twofold-b
ADDR_A=10.77.0.1
ADDR_B=10.77.0.2

down() {
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
}

up() {
  local rate=${1:-100mbit} delay=${2:-20ms}
  if [ "$(id -u)" -ne 0 ]; then
    echo "netns.sh: run as root" >&2
    exit 1
  fi
  command -v tc >/dev/null || { echo "netns.sh: tc (iproute2) is missing" >&2; exit 1; }
  down
  ip netns add "$A"
  ip netns add "$B"
  ip link add veth-2fa type veth peer name veth-2fb
  ip link set veth-2fa netns "$A"
  ip link set veth-2fb netns "$B"
  ip -n "$A" addr add "$ADDR_A/24" dev veth-2fa
  ip -n "$B" addr add "$ADDR_B/24" dev veth-2fb
  for ns in "$A" "$B"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$A" link set veth-2fa up
  ip -n "$B" link set veth-2fb up
  # Shape both directions on each end's egress: netem gives rate and delay;
  # kernels without sch_netem get a token bucket (rate only, no delay).
  local shaped="$rate, $delay each way"
  for end in "$A veth-2fa" "$B veth-2fb"; do
    set -- $end
    if ! ip netns exec "$1" tc qdisc add dev "$2" root netem rate "$rate" delay "$delay" limit 100000 2>/dev/null; then
      ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" burst 256kb latency 200ms
      shaped="$rate, no added delay (this kernel has no sch_netem)"
    fi
  done
  echo "namespaces $A ($ADDR_A) and $B ($ADDR_B) joined at $shaped"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  *) echo "usage: $0 up [RATE] [DELAY] | down" >&2; exit 2 ;;
esac
