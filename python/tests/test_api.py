"""The program's description and statistics, circuits from text, the
progress callback, the GIL released during a run, and Ctrl-C."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import twofold
from conftest import EXAMPLES, run_cli


def test_inputs_and_outputs_describe_the_types():
    program = twofold.compile(EXAMPLES / "biomatch.c")
    a, b = program.inputs
    assert (a["name"], a["party"], a["type"]) == ("INPUT_A", "a", "struct")
    db = a["members"]["db"]
    assert (db["type"], db["shape"], db["width"]) == ("uint64", (512, 4), 512 * 4 * 64)
    assert (b["name"], b["party"], b["members"]["sample"]["shape"]) == ("INPUT_B", "b", (4,))
    assert program.outputs == [
        {"name": "return", "type": "uint64", "shape": (), "ctype": "unsigned long long", "width": 64}
    ]


def test_stats_are_the_command_lines(cli):
    path = EXAMPLES / "mvmul.c"
    ours = twofold.compile(path).stats()
    theirs = run_cli(cli, "stats", str(path))
    assert ours == theirs
    assert ours["and_gates"] > 0
    levels = twofold.compile(path).stats(levels=True)["ands_per_level"]
    assert sum(levels) == ours["and_gates"]


def test_bristol_from_text():
    text = (EXAMPLES / "millionaires.txt").read_text()
    program = twofold.compile(source=text, name="m.txt")
    assert [(i["name"], i["type"], i["width"]) for i in program.inputs] == [("0", "bits", 32), ("1", "bits", 32)]
    assert program.run_local({"0": 10**6, "1": 999_999}) == {"0": 1}
    assert program.run_local({"0": 5, "1": "0x6"}) == {"0": 0}


AES = EXAMPLES.parent.parent / "shared" / "data" / "bristol" / "aes_128.txt"


@pytest.mark.skipif(not AES.exists(), reason="needs ../shared/data/bristol/aes_128.txt")
def test_values_past_64_bits():
    # FIPS-197 C.1 on the published AES-128 circuit: 128-bit Python ints.
    out = twofold.compile(AES).run_local(
        {"0": 0x000102030405060708090A0B0C0D0E0F, "1": 0x00112233445566778899AABBCCDDEEFF}
    )
    assert out == {"0": 0x69C4E0D86A7B0430D8CDB78070B4C55A}


def test_progress_reaches_the_total():
    program = twofold.compile(EXAMPLES / "mvmul.c")
    seen = []
    inputs = {i["name"]: {k: np.ones(m["shape"], dtype=m["type"]) for k, m in i["members"].items()} for i in program.inputs}
    program.run_local(inputs, progress=lambda done, total: seen.append((done, total)))
    total = program.stats()["and_gates"]
    assert seen and seen[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


def big_program():
    program = twofold.compile(EXAMPLES / "mexp.c")
    rng = np.random.default_rng(3)
    inputs = {
        i["name"]: {k: rng.integers(0, 2**32, m["shape"], dtype=np.uint64).astype(m["type"]) for k, m in i["members"].items()}
        for i in program.inputs
    }
    return program, inputs


def test_the_gil_is_released_during_a_run():
    program, inputs = big_program()
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.monotonic()
    program.run_local(inputs, threads=1)
    elapsed = time.monotonic() - start
    stop.set()
    counter.join()
    # The Python thread kept running while the run worked.
    assert ticks > elapsed * 100, (ticks, elapsed)


def interrupted_after(seconds, run):
    """Sends this process SIGINT (Ctrl-C) after `seconds`; returns how long
    `run` took to raise KeyboardInterrupt."""
    # Python's own handler, as in a terminal (a process started in the
    # background inherits SIGINT ignored, and Python then leaves it so).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            run()
        return time.monotonic() - start
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_local_run():
    program, inputs = big_program()
    assert interrupted_after(0.1, lambda: program.run_local(inputs, threads=1)) < 1.0


def test_ctrl_c_stops_a_party_waiting_for_its_peer():
    program, inputs = big_program()
    mine = {"INPUT_A": inputs["INPUT_A"]}
    wait = lambda: program.run(party="a", listen="127.0.0.1:0", inputs=mine, insecure=True, timeout=30)
    assert interrupted_after(0.3, wait) < 1.5
