#!/usr/bin/env python3
"""Loopback TCP throughput between two processes (2 GiB in 1 MiB writes),
and the AND rate it bounds at 32 bytes a gate: the yardstick issue 28's
end-to-end figures are given against, measured in the same run."""
import os
import socket
import time

TOTAL = 2 << 30
CHUNK = 1 << 20

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
port = listener.getsockname()[1]
child = os.fork()
if child == 0:
    conn = socket.create_connection(("127.0.0.1", port))
    buf = bytearray(CHUNK)
    got = 0
    while got < TOTAL:
        n = conn.recv_into(buf)
        if n == 0:
            break
        got += n
    conn.sendall(b"x")
    os._exit(0)
conn, _ = listener.accept()
data = b"\0" * CHUNK
start = time.time()
for _ in range(TOTAL // CHUNK):
    conn.sendall(data)
conn.recv(1)
seconds = time.time() - start
os.waitpid(child, 0)
print(f"tcp GB/s {TOTAL / seconds / 1e9:.2f} bound_MAND/s {TOTAL / seconds / 32 / 1e6:.1f}")
