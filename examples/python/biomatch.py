"""BioMatch between two processes: party A (a clinic) holds a database of
512 samples of 4 features, read from a CSV file with numpy; party B holds
one sample. Together they learn the smallest squared Euclidean distance
between B's sample and any of A's, and nothing else about each other's data.

    pip install ./python
    python examples/python/biomatch.py [DB.csv] [--sample 100,200,300,400]

This script plays both parties, each in a process of its own talking TLS
over 127.0.0.1 with keys made for the occasion; on two machines each side
runs its `Program.run` call alone (the comments say which), with
`listen="0.0.0.0:7766"` on A's machine and `connect="A's host:7766"` on B's.
"""

import argparse
import multiprocessing
import socket
import tempfile
from pathlib import Path

import numpy as np

import twofold

EXAMPLES = Path(__file__).resolve().parents[1]


def party(role, port, keys, data, results):
    """One party's process: compiles the program and runs its side."""
    program = twofold.compile(EXAMPLES / "biomatch.c")
    me, peer = ("alice", "bob") if role == "a" else ("bob", "alice")
    where = {"listen": f"127.0.0.1:{port}"} if role == "a" else {"connect": f"127.0.0.1:{port}"}
    name, member = ("INPUT_A", "db") if role == "a" else ("INPUT_B", "sample")
    out = program.run(
        party=role,
        inputs={name: {member: data}},
        key=keys / f"{me}.key",
        peer_key=str(keys / f"{peer}.pub"),
        timeout=60,
        **where,
    )
    results.put((role, int(out["return"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", nargs="?", default=EXAMPLES / "data" / "biomatch_db.csv")
    parser.add_argument("--sample", default="100,200,300,400", help="party B's sample")
    args = parser.parse_args()

    db = np.loadtxt(args.db, delimiter=",", dtype=np.uint64)  # party A's data
    sample = np.array(args.sample.split(","), dtype=np.uint64)  # party B's data
    print(f"party A: {db.shape[0]} samples of {db.shape[1]} features from {args.db}")
    print(f"party B: the sample {sample.tolist()}")

    with tempfile.TemporaryDirectory() as d:
        keys = Path(d)
        for who in ("alice", "bob"):  # each party makes its own; the .pub files are swapped
            twofold.keygen(keys / who)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        results = multiprocessing.get_context("spawn").Queue()
        procs = [
            multiprocessing.get_context("spawn").Process(target=party, args=(role, port, keys, data, results))
            for role, data in (("a", db), ("b", sample))
        ]
        for p in procs:
            p.start()
        outputs = dict(results.get(timeout=120) for _ in procs)
        for p in procs:
            p.join()

    best = outputs["b"]
    assert outputs["a"] == best, "both parties learn the same output"
    print(f"the smallest squared distance: {best}")
    # Only to show that it is right: nobody could compute this in practice,
    # as no one holds both inputs.
    clear = int(((db - sample) ** 2).sum(axis=1).min())
    print(f"(computed in the clear from both inputs: {clear})")


if __name__ == "__main__":
    main()
