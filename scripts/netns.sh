#!/usr/bin/env bash
# Two network namespaces joined by a link of a given rate and one-way delay:
# a LAN/WAN between party A and party B on one machine. Run as root.
#
#   scripts/netns.sh up [RATE] [DELAY]   # default 100mbit, 20ms (each way;
#                                        # tc syntax: 1gbit, 500us, ...)
#   scripts/netns.sh down
#
# Party A lives in namespace twofold-a at 10.77.0.1, party B in twofold-b at
# 10.77.0.2; `twofold bench --netns --ipp FILE...` uses them.
#
# Where the kernel has sch_netem, the link is a veth pair shaped with
# `tc qdisc ... netem rate RATE delay DELAY` on both ends. Otherwise (or with
# TWOFOLD_LINKEMU=1) scripts/linkemu.py, a userspace emulator, joins the
# namespaces through TUN devices (tun-2fa, tun-2fb; MTU 9000) and forwards
# the packets at RATE with DELAY in each direction. It needs /dev/net/tun and
# python3 (stdlib only; $PYTHON overrides which), runs in the background
# until `down` (pid in /run/twofold-linkemu.pid, log and final statistics in
# /run/twofold-linkemu.log; /tmp if /run is not writable), at real-time
# priority, and takes 10-20% of a core at 100mbit both ways (a quarter of it
# its own work, the rest the kernel's receive path run in its writes).
# `linkemu.py ping HOST` stands in for ping on machines without it.
#
# Three computing parties (the three-party hybrid mode):
#
#   scripts/netns.sh up3 [RATE] [DELAY]  # defaults as for `up`
#   scripts/netns.sh down3
#
# CP1 lives in namespace twofold-cp1 at 10.77.0.1, CP2 in twofold-cp2 at
# 10.77.0.2, CP3 in twofold-cp3 at 10.77.0.3, joined as a full mesh: every
# pair of parties has its own link of RATE and DELAY each way (what a
# switched LAN with full-duplex ports gives when each party talks mostly to
# one other at a time; a shared uplink is not modelled). With sch_netem,
# the mesh is three veth pairs (v2f12 in cp1 <-> v2f21 in cp2, v2f13 <->
# v2f31, v2f23 <-> v2f32; each end holds its party's address as /32 with a
# host route to the peer), every end shaped with netem as above. Otherwise
# linkemu.py joins the three namespaces through TUN devices (tun-2f1,
# tun-2f2, tun-2f3, 10.77.0.K/24) and forwards each packet, by its IPv4
# destination, over the link of that ordered pair (pid in
# twofold-linkemu3.pid, log in twofold-linkemu3.log, next to the two-party
# ones). The two-party and the three-party namespaces can be up together.
set -euo pipefail

A=twofold-a
B=twofold-b
ADDR_A=10.77.0.1
ADDR_B=10.77.0.2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNDIR=/run
[ -d "$RUNDIR" ] && [ -w "$RUNDIR" ] || RUNDIR=/tmp
PIDFILE=$RUNDIR/twofold-linkemu.pid
LOG=$RUNDIR/twofold-linkemu.log
CPS=(twofold-cp1 twofold-cp2 twofold-cp3)
CP_ADDRS=(10.77.0.1 10.77.0.2 10.77.0.3)
PIDFILE3=$RUNDIR/twofold-linkemu3.pid
LOG3=$RUNDIR/twofold-linkemu3.log

fail() {
  echo "netns.sh: $*" >&2
  exit 1
}

# Whether process $1 exists and is not a zombie.
alive() {
  local state
  state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Stops the link emulator of the pidfile, if it runs; prints its final
# statistics when $1 is "report".
stop_emulator() {
  local pid
  [ -f "$PIDFILE" ] || return 0
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  if [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" && grep -qa linkemu.py "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
    elif [ "${1:-}" = report ]; then
      echo "link emulator stopped:"
      sed -n '/stopped by/,$p' "$LOG" 2>/dev/null | grep -- '->' | sed 's/^linkemu: /  /' || true
    fi
  fi
  rm -f "$PIDFILE"
}

down() {
  stop_emulator "${1:-}"
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
  ip link del veth-2fa 2>/dev/null || true # left in the root namespace by an interrupted `up`
}

down3() {
  PIDFILE=$PIDFILE3 LOG=$LOG3 stop_emulator "${1:-}"
  local ns i j
  for ns in "${CPS[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
  for i in 1 2 3; do # left in the root namespace by an interrupted `up3`
    for j in 1 2 3; do
      [ "$i" = "$j" ] || ip link del "v2f$i$j" 2>/dev/null || true
    done
  done
}

# Whether netem can be used (tried in namespace $1, default party A's).
netem_works() {
  local ns=${1:-$A}
  [ "${TWOFOLD_LINKEMU:-0}" != 1 ] || return 1
  command -v tc >/dev/null || return 1
  ip netns exec "$ns" tc qdisc add dev lo root netem delay 1ms 2>/dev/null || return 1
  ip netns exec "$ns" tc qdisc del dev lo root
}

# Waits until the namespaces reach each other: each argument NS=ADDR,ADDR...
# says which addresses namespace NS must reach. Fails (and tears down with
# $TEARDOWN, `down` unless set) if the emulator $1 dies or the links are not
# up within 10 s. The emulator's log is $LOG.
wait_link() {
  local pid=$1 py=$2
  shift 2
  local teardown=${TEARDOWN:-down} ok check ns addr
  for _ in $(seq 50); do
    if ! alive "$pid"; then
      echo "netns.sh: the link emulator exited:" >&2
      sed 's/^/  /' "$LOG" >&2 || true
      "$teardown"
      exit 1
    fi
    ok=1
    for check in "$@"; do
      ns=${check%%=*}
      for addr in ${check#*=}; do
        ip netns exec "$ns" "$py" "$HERE/linkemu.py" ping -q -c 1 -W 0.2 "$addr" >/dev/null 2>&1 || { ok=0; break 2; }
      done
    done
    [ "$ok" = 0 ] || return 0
    sleep 0.1
  done
  echo "netns.sh: the namespaces cannot reach each other after 10 s; emulator log:" >&2
  sed 's/^/  /' "$LOG" >&2 || true
  "$teardown"
  exit 1
}

up() {
  local rate=${1:-100mbit} delay=${2:-20ms}
  [ "$(id -u)" -eq 0 ] || fail "run as root"
  command -v ip >/dev/null || fail "ip (iproute2) is missing"
  down
  ip netns add "$A"
  ip netns add "$B"
  for ns in "$A" "$B"; do
    ip -n "$ns" link set lo up
  done
  if netem_works; then
    ip link add veth-2fa type veth peer name veth-2fb
    ip link set veth-2fa netns "$A"
    ip link set veth-2fb netns "$B"
    ip -n "$A" addr add "$ADDR_A/24" dev veth-2fa
    ip -n "$B" addr add "$ADDR_B/24" dev veth-2fb
    ip -n "$A" link set veth-2fa up
    ip -n "$B" link set veth-2fb up
    # Shape both directions on each end's egress.
    ip netns exec "$A" tc qdisc add dev veth-2fa root netem rate "$rate" delay "$delay" limit 100000
    ip netns exec "$B" tc qdisc add dev veth-2fb root netem rate "$rate" delay "$delay" limit 100000
    echo "namespaces $A ($ADDR_A) and $B ($ADDR_B) joined at $rate, $delay each way (veth pair, tc netem)"
    return
  fi
  local why="this kernel has no sch_netem"
  [ "${TWOFOLD_LINKEMU:-0}" != 1 ] || why="TWOFOLD_LINKEMU=1"
  if [ ! -c /dev/net/tun ]; then
    down
    fail "$why, and /dev/net/tun (for the userspace link emulator) is missing: try 'modprobe tun'"
  fi
  local py=${PYTHON:-$(command -v python3 || true)}
  if [ -z "$py" ]; then
    down
    fail "$why, and python3 (for the userspace link emulator) is missing"
  fi
  nohup "$py" "$HERE/linkemu.py" run --rate "$rate" --delay "$delay" \
    --ns-a "$A" --ns-b "$B" --addr-a "$ADDR_A/24" --addr-b "$ADDR_B/24" \
    >"$LOG" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$PIDFILE"
  wait_link "$pid" "$py" "$A=$ADDR_B" "$B=$ADDR_A"
  echo "namespaces $A ($ADDR_A) and $B ($ADDR_B) joined at $rate, $delay each way" \
    "(userspace link emulator: $why; pid $pid, log $LOG)"
}

up3() {
  local rate=${1:-100mbit} delay=${2:-20ms}
  [ "$(id -u)" -eq 0 ] || fail "run as root"
  command -v ip >/dev/null || fail "ip (iproute2) is missing"
  down3
  local ns i j
  for ns in "${CPS[@]}"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  local names="${CPS[0]} (${CP_ADDRS[0]}), ${CPS[1]} (${CP_ADDRS[1]}) and ${CPS[2]} (${CP_ADDRS[2]})"
  if netem_works "${CPS[0]}"; then
    # A veth pair per pair of parties: v2fIJ in cpI, v2fJI in cpJ.
    for i in 1 2 3; do
      for j in 1 2 3; do
        [ "$i" -lt "$j" ] || continue
        ip link add "v2f$i$j" type veth peer name "v2f$j$i"
        ip link set "v2f$i$j" netns "${CPS[i - 1]}"
        ip link set "v2f$j$i" netns "${CPS[j - 1]}"
      done
    done
    for i in 1 2 3; do
      ns=${CPS[i - 1]}
      for j in 1 2 3; do
        [ "$i" != "$j" ] || continue
        ip -n "$ns" addr add "${CP_ADDRS[i - 1]}/32" dev "v2f$i$j"
        ip -n "$ns" link set "v2f$i$j" up
        ip -n "$ns" route add "${CP_ADDRS[j - 1]}/32" dev "v2f$i$j" src "${CP_ADDRS[i - 1]}"
        ip netns exec "$ns" tc qdisc add dev "v2f$i$j" root netem rate "$rate" delay "$delay" limit 100000
      done
    done
    echo "namespaces $names joined pairwise at $rate, $delay each way (three veth pairs, tc netem)"
    return
  fi
  local why="this kernel has no sch_netem"
  [ "${TWOFOLD_LINKEMU:-0}" != 1 ] || why="TWOFOLD_LINKEMU=1"
  if [ ! -c /dev/net/tun ]; then
    down3
    fail "$why, and /dev/net/tun (for the userspace link emulator) is missing: try 'modprobe tun'"
  fi
  local py=${PYTHON:-$(command -v python3 || true)}
  if [ -z "$py" ]; then
    down3
    fail "$why, and python3 (for the userspace link emulator) is missing"
  fi
  nohup "$py" "$HERE/linkemu.py" run --rate "$rate" --delay "$delay" \
    --party "${CPS[0]},tun-2f1,${CP_ADDRS[0]}/24" \
    --party "${CPS[1]},tun-2f2,${CP_ADDRS[1]}/24" \
    --party "${CPS[2]},tun-2f3,${CP_ADDRS[2]}/24" \
    >"$LOG3" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$PIDFILE3"
  PIDFILE=$PIDFILE3 LOG=$LOG3 TEARDOWN=down3 wait_link "$pid" "$py" \
    "${CPS[0]}=${CP_ADDRS[1]} ${CP_ADDRS[2]}" \
    "${CPS[1]}=${CP_ADDRS[0]} ${CP_ADDRS[2]}" \
    "${CPS[2]}=${CP_ADDRS[0]} ${CP_ADDRS[1]}"
  echo "namespaces $names joined pairwise at $rate, $delay each way" \
    "(userspace link emulator: $why; pid $pid, log $LOG3)"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down report ;;
  up3) shift; up3 "$@" ;;
  down3) down3 report ;;
  *) echo "usage: $0 up [RATE] [DELAY] | down | up3 [RATE] [DELAY] | down3" >&2; exit 2 ;;
esac
