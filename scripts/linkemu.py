#!/usr/bin/env python3
"""Userspace link emulator: two network namespaces joined by a pair of TUN
devices, with IP packets forwarded between them by this process at a given
rate and one-way delay. scripts/netns.sh runs it when the kernel has no
sch_netem (so `tc ... netem delay` is unavailable). Python 3 stdlib only; run
as root.

    linkemu.py run [--rate 100mbit] [--delay 20ms] [--queue BYTES] ...
    linkemu.py ping [-c N] [-i SECONDS] [-W SECONDS] [-q] HOST

`run` creates tun-2fa and tun-2fb, moves them into the namespaces (default
twofold-a at 10.77.0.1/24 and twofold-b at 10.77.0.2/24), configures them and
forwards packets until SIGTERM/SIGINT (or until a device disappears, e.g.
because its namespace was deleted); it then prints statistics. SIGUSR1
prints them without stopping.

With `--party NS,DEV,ADDR` given three or more times (instead of --ns-a ...
--addr-b), it joins that many namespaces, one TUN device each, as a full
mesh: every ordered pair of parties has its own link of the given rate and
delay (like a veth pair per pair of namespaces), and a packet goes to the
party whose address is its IPv4 destination (others are dropped and counted
as unroutable).

Each direction is emulated on its own, like `netem rate R delay D` on each end
of a veth pair:
  - rate R: a packet of L bytes (the IP packet; no link-layer framing) keeps
    the link busy for L*8/R seconds; it departs at
    max(arrival, previous departure) + L*8/R;
  - delay D: it is delivered (written to the other TUN device) at departure
    + D, so the ping RTT over an idle link is 2*D;
  - queue: a packet is dropped (tail drop) if, counting it, the backlog not
    yet serialized exceeds --queue bytes. The default is twice the
    bandwidth-delay product of the round trip (2 * R * 2D / 8), at least
    256 KiB: enough for one TCP flow to fill the link, bounded so that a bulk
    transfer adds at most ~4D of queueing delay (netem's "limit 100000"
    packets is in effect unbounded; the socket buffers bound it there);
  - packets stay in order within a direction.
Packets wait in one deque per direction (their delivery times only increase)
and the loop sleeps in select() until the next delivery or the next arrival,
so timing is accurate to well under a millisecond (the statistics report how
far deliveries were from their due times).

`ping` is a minimal ICMP echo client (raw socket) for machines without
iputils ping; netns.sh uses it to wait for the link.
"""

import argparse
import collections
import ctypes
import errno
import fcntl
import gc
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
PR_SET_TIMERSLACK = 29

# A 9000-byte MTU instead of Ethernet's 1500: six times fewer packets for the
# same bytes, which is what keeps a Python forwarder cheap (at 100 Mbit/s,
# ~1,400 full packets a second each way instead of ~8,300). TCP's segments
# grow accordingly (MSS 8948), so goodput is ~99.4% of the rate rather than
# the ~95% of 1500-byte Ethernet frames behind netem on a veth pair.
DEFAULT_MTU = 9000


def parse_rate(text):
    """A tc-style rate ("100mbit", "1gbit", "10mbps" = bytes/s, bare = bit/s)
    as bits per second; "0" or "none" means unlimited (0.0)."""
    s = text.strip().lower()
    if s in ("0", "none", "inf", "unlimited"):
        return 0.0
    units = [
        ("tibit", 1024**4), ("gibit", 1024**3), ("mibit", 1024**2), ("kibit", 1024),
        ("tbit", 1e12), ("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1),
        ("tibps", 8 * 1024**4), ("gibps", 8 * 1024**3), ("mibps", 8 * 1024**2), ("kibps", 8 * 1024),
        ("tbps", 8e12), ("gbps", 8e9), ("mbps", 8e6), ("kbps", 8e3), ("bps", 8),
    ]
    for suffix, mult in units:
        if s.endswith(suffix):
            return float(s[: -len(suffix)]) * mult
    return float(s)  # tc: a bare number is bits per second


def parse_time(text):
    """A tc-style time ("20ms", "1.5s", "500us"; bare = microseconds, as in
    tc) as seconds."""
    s = text.strip().lower()
    units = [
        ("usecs", 1e-6), ("usec", 1e-6), ("us", 1e-6),
        ("msecs", 1e-3), ("msec", 1e-3), ("ms", 1e-3),
        ("secs", 1.0), ("sec", 1.0), ("s", 1.0),
    ]
    for suffix, mult in units:
        if s.endswith(suffix):
            return float(s[: -len(suffix)]) * mult
    return float(s) * 1e-6


def parse_size(text):
    s = text.strip().lower()
    for suffix, mult in (("kb", 1024), ("mb", 1024**2), ("gb", 1024**3), ("k", 1024), ("m", 1024**2), ("g", 1024**3), ("b", 1)):
        if s.endswith(suffix):
            return int(float(s[: -len(suffix)]) * mult)
    return int(s)


def fmt_rate(bps):
    if bps <= 0:
        return "unlimited"
    for unit, mult in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bps >= mult:
            return f"{bps / mult:g} {unit}"
    return f"{bps:g} bit/s"


def log(msg):
    print(f"linkemu: {msg}", flush=True)


def die(msg, code=1):
    print(f"linkemu: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def sh(*argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip() or 'exit ' + str(r.returncode)}")


def open_tun(name):
    """A new (non-persistent) TUN device, IP packets without a header; it
    disappears when the last descriptor closes."""
    try:
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        die("/dev/net/tun is missing (no TUN support: modprobe tun, or mknod /dev/net/tun c 10 200)")
    except PermissionError:
        die("cannot open /dev/net/tun: run as root")
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TUN | IFF_NO_PI))
    except OSError as e:
        die(f"TUNSETIFF {name}: {e}")
    return fd


class Direction:
    """One direction of the link: packets read from `src`, written to `dst`."""

    __slots__ = ("name", "src", "dst", "q", "busy", "pkts", "bytes", "drops", "werr", "late", "max_late", "max_backlog")

    def __init__(self, name, src, dst):
        self.name = name
        self.src = src
        self.dst = dst
        self.q = collections.deque()  # (delivery time, packet), times increasing
        self.busy = 0.0  # when the link finishes serializing what it holds
        self.pkts = 0
        self.bytes = 0
        self.drops = 0
        self.werr = 0
        self.late = [0] * 501  # |delivery time error| histogram, 20 us buckets, last = >= 10 ms
        self.max_late = 0.0
        self.max_backlog = 0.0  # seconds

    def stats(self):
        n = sum(self.late)
        pct = []
        for p in (0.5, 0.99, 0.999):
            target, acc = p * n, 0
            for i, c in enumerate(self.late):
                acc += c
                if n and acc >= target:
                    pct.append(f"p{p * 100:g} <{(i + 1) * 0.02:.2f}ms" if i < 500 else f"p{p * 100:g} >=10ms")
                    break
        return (
            f"{self.name}: {self.pkts} packets, {self.bytes / 1e6:.1f} MB delivered, "
            f"{self.drops} dropped (queue full), {self.werr} write errors, "
            f"max backlog {self.max_backlog * 1e3:.1f} ms; delivery time error "
            + (", ".join(pct) + f", max {self.max_late * 1e3:.2f}ms" if n else "n/a")
        )


def run(args):
    if os.geteuid() != 0:
        die("run as root")
    try:
        rate = parse_rate(args.rate)
        delay = parse_time(args.delay)
        queue = parse_size(args.queue) if args.queue is not None else None
    except ValueError as e:
        die(f"bad rate, delay or queue size ({e})")
    if rate < 0 or delay < 0:
        die("rate and delay must not be negative")
    if queue is None:
        queue = max(int(2 * rate * 2 * delay / 8), 256 * 1024)
    per_byte = 8.0 / rate if rate > 0 else 0.0
    max_backlog = queue * per_byte  # seconds of serialization the queue holds

    try:
        os.setsid()  # out of the caller's process group (no stray SIGINT)
    except OSError:
        pass
    try:  # timer slack 1 us instead of 50 us: select() may not wake later by that much
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    except Exception:
        pass
    if args.rt_prio > 0:
        # Real-time priority so that deliveries are on time even when both
        # CPUs are busy (twofold bench pins one party to each). The loop
        # sleeps between packets; the kernel's RT throttling caps it anyway.
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt_prio))
        except (OSError, AttributeError) as e:
            log(f"no real-time priority ({e}); timing may suffer under CPU load")

    if args.party:
        try:
            parties = [tuple(x.split(",")) for x in args.party]
            assert len(parties) >= 2 and all(len(x) == 3 for x in parties)
            hosts = [socket.inet_aton(addr.split("/")[0]) for _, _, addr in parties]
        except (AssertionError, OSError):
            die("--party wants NS,DEV,ADDR (an IPv4 address), at least twice")
    else:
        parties = [(args.ns_a, args.dev_a, args.addr_a), (args.ns_b, args.dev_b, args.addr_b)]
        hosts = None  # two parties: everything goes to the other one
    fds = [open_tun(dev) for _, dev, _ in parties]
    try:
        for ns, dev, addr in parties:
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "-n", ns, "link", "set", dev, "mtu", str(args.mtu))
            sh("ip", "-n", ns, "addr", "add", addr, "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
    except RuntimeError as e:
        die(str(e))
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")

    # One Direction per ordered pair of parties; `route[fd]` maps a packet's
    # destination address (4 bytes) to the Direction from that fd, or None
    # with two parties (everything goes to the other one).
    dirs = []
    route = {}
    for i, (ns_i, _, _) in enumerate(parties):
        table = {}
        for j, (ns_j, _, _) in enumerate(parties):
            if i != j:
                d = Direction(f"{ns_i} -> {ns_j}", fds[i], fds[j])
                dirs.append(d)
                table[hosts[j] if hosts else None] = d
        route[fds[i]] = table
    unroutable = [0]

    def report(*_):
        for d in dirs:
            log(d.stats())
        if hosts:
            log(f"unroutable: {unroutable[0]} packets dropped (destination not a party)")

    class Stop(Exception):
        pass

    def stop(signum, _frame):
        raise Stop(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, report)

    log(
        "ready: "
        + (" <-> " if len(parties) == 2 else ", ").join(f"{dev} ({ns}, {addr})" for ns, dev, addr in parties)
        + (" (full mesh)" if len(parties) > 2 else "")
        + f", {fmt_rate(rate)} and {delay * 1e3:g} ms each way, queue {queue} bytes, mtu {args.mtu}"
    )

    # No reference cycles are made per packet: the cyclic GC would only add
    # pauses (it runs every ~700 allocations of (time, packet) tuples).
    gc.disable()
    now_f = time.monotonic
    read, write = os.read, os.write
    sel = select.select
    why = "stopped"
    # select() oversleeps its timeout (by ~50-100 us on a VM): an average of
    # that, `slack`, is taken off each timeout, and packets due within
    # `slack` from now go out, so that deliveries are centred on time
    # rather than always late.
    over = []
    for _ in range(20):
        t0 = now_f()
        sel((), (), (), 0.0005)
        over.append(now_f() - t0 - 0.0005)
    slack = min(max(sorted(over)[10], 0.0), 0.0005)
    log(f"select() oversleeps by ~{slack * 1e6:.0f} us: deliveries aim that much early")
    try:
        while True:
            # Deliver what is due; sleep until the next delivery or arrival.
            now = now_f()
            timeout = None
            for d in dirs:
                q = d.q
                while q and q[0][0] <= now + slack:
                    due, pkt = q.popleft()
                    try:
                        write(d.dst, pkt)
                    except OSError as e:
                        if e.errno in (errno.EBADFD, errno.EIO, errno.ENODEV, errno.EBADF):
                            raise
                        d.werr += 1
                    late = now - due
                    if late < 0:
                        late = -late
                    d.late[int(late * 5e4) if late < 0.01 else 500] += 1
                    if late > d.max_late:
                        d.max_late = late
                    now = now_f()
                if q:
                    t = q[0][0] - now - slack
                    if timeout is None or t < timeout:
                        timeout = t if t > 0.0 else 0.0
            ready = sel(fds, (), (), timeout)[0]
            if not ready and timeout:
                over = now_f() - now - timeout
                slack += ((over if over < 0.0005 else 0.0005) - slack) * 0.05
            for fd in ready:
                table = route[fd]
                only = table.get(None)
                # A bounded batch, so that deliveries are not held up.
                for _ in range(32):
                    try:
                        pkt = read(fd, 65536)
                    except BlockingIOError:
                        break
                    if only is not None:
                        d = only
                    elif len(pkt) >= 20 and pkt[0] >> 4 == 4:  # IPv4: by destination
                        d = table.get(pkt[16:20])
                    else:
                        d = None
                    if d is None:
                        unroutable[0] += 1
                        continue
                    q = d.q
                    now = now_f()
                    start = d.busy if d.busy > now else now
                    backlog = start - now
                    n = len(pkt)
                    if backlog + n * per_byte > max_backlog:
                        d.drops += 1
                        continue
                    if backlog > d.max_backlog:
                        d.max_backlog = backlog
                    d.busy = start + n * per_byte
                    d.pkts += 1
                    d.bytes += n
                    q.append((d.busy + delay, pkt))
    except Stop as e:
        why = f"stopped by {e}"
    except OSError as e:
        why = f"device gone ({e})"  # e.g. its namespace was deleted
    log(why)
    report()


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def ping(args):
    """ICMP echo over a raw socket: prints each reply's RTT and a summary,
    exits 0 if any reply came back."""
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    except PermissionError:
        die("ping: raw sockets need root")
    try:
        dst = socket.gethostbyname(args.host)
    except OSError as e:
        die(f"ping: {args.host}: {e}")
    ident = os.getpid() & 0xFFFF
    rtts, sent = [], 0
    for seq in range(1, args.count + 1):
        payload = struct.pack("!d", time.monotonic()) + bytes(48)
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        hdr = struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq)
        t0 = time.monotonic()
        try:
            sock.sendto(hdr + payload, (dst, 0))
        except OSError as e:
            if not args.quiet:
                print(f"seq={seq}: {e}", flush=True)
        sent += 1
        deadline = t0 + args.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([sock], [], [], left)[0]:
                if not args.quiet:
                    print(f"seq={seq}: no reply in {args.timeout:g} s", flush=True)
                break
            data, addr = sock.recvfrom(65536)
            t1 = time.monotonic()
            ihl = (data[0] & 0x0F) * 4
            typ, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl : ihl + 8])
            if typ == 0 and rid == ident and rseq == seq and addr[0] == dst:
                rtts.append((t1 - t0) * 1e3)
                if not args.quiet:
                    print(f"{len(data) - ihl} bytes from {dst}: icmp_seq={seq} time={rtts[-1]:.3f} ms", flush=True)
                break
        if seq < args.count:
            time.sleep(max(0.0, t0 + args.interval - time.monotonic()))
    loss = 100.0 * (sent - len(rtts)) / sent if sent else 100.0
    print(f"{sent} sent, {len(rtts)} received, {loss:g}% loss", end="")
    if rtts:
        print(f", rtt min/avg/max = {min(rtts):.3f}/{sum(rtts) / len(rtts):.3f}/{max(rtts):.3f} ms", end="")
    print(flush=True)
    sys.exit(0 if rtts else 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="create the TUN pair and forward packets until stopped")
    r.add_argument("--rate", default="100mbit", help="per direction, tc syntax (100mbit, 1gbit; 0 = unlimited)")
    r.add_argument("--delay", default="20ms", help="one-way delay, tc syntax (20ms, 500us)")
    r.add_argument("--queue", help="queue limit per direction in bytes (e.g. 1mb); default 2 * rate * RTT, >= 256kb")
    r.add_argument("--mtu", type=int, default=DEFAULT_MTU)
    r.add_argument("--ns-a", default="twofold-a")
    r.add_argument("--ns-b", default="twofold-b")
    r.add_argument("--dev-a", default="tun-2fa")
    r.add_argument("--dev-b", default="tun-2fb")
    r.add_argument("--addr-a", default="10.77.0.1/24")
    r.add_argument("--addr-b", default="10.77.0.2/24")
    r.add_argument(
        "--party",
        action="append",
        metavar="NS,DEV,ADDR",
        help="a party's namespace, TUN device and address/prefix; three or more make a full mesh (replaces --ns-a ... --addr-b)",
    )
    r.add_argument("--rt-prio", type=int, default=10, help="SCHED_FIFO priority, 0 = normal scheduling")
    r.add_argument("--pidfile")
    g = sub.add_parser("ping", help="ICMP echo (for machines without ping)")
    g.add_argument("host")
    g.add_argument("-c", dest="count", type=int, default=5)
    g.add_argument("-i", dest="interval", type=float, default=1.0)
    g.add_argument("-W", dest="timeout", type=float, default=2.0)
    g.add_argument("-q", dest="quiet", action="store_true", help="print the summary only")
    args = p.parse_args()
    if args.cmd == "run":
        run(args)
    else:
        ping(args)


if __name__ == "__main__":
    main()
