"""Two parties over TLS with pinned keys: as two threads of this process, as
two processes, and a Python party against the command line's."""

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import twofold
from conftest import EXAMPLES, plain, run_cli

HERE = Path(__file__).resolve().parent
DOT = EXAMPLES / "dotproduct.c"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """Key pairs for alice (party a), bob (party b) and mallory."""
    d = tmp_path_factory.mktemp("keys")
    made = {who: twofold.keygen(d / who) for who in ("alice", "bob", "mallory")}
    for who, report in made.items():
        assert report["private_key"] == str(d / f"{who}.key")
        assert len(report["fingerprint"]) == 16
    return d


def vectors(seed: int):
    rng = np.random.default_rng(seed)
    n = twofold.compile(DOT).inputs[0]["members"]["x"]["shape"][0]
    return rng.integers(-1000, 1000, n, dtype=np.int32), rng.integers(-1000, 1000, n, dtype=np.int32)


def in_threads(program, a_kwargs, b_kwargs):
    """Runs party a (listening) and party b (connecting) on two threads;
    returns both results (or the exceptions raised)."""
    port = free_port()
    results = {}

    def party(name, kwargs):
        try:
            results[name] = program.run(party=name, timeout=10, threads=1, **kwargs)
        except Exception as e:  # noqa: BLE001 - handed to the test
            results[name] = e

    a = threading.Thread(target=party, args=("a", {"listen": f"127.0.0.1:{port}", **a_kwargs}))
    b = threading.Thread(target=party, args=("b", {"connect": f"127.0.0.1:{port}", **b_kwargs}))
    a.start()
    b.start()
    a.join()
    b.join()
    return results["a"], results["b"]


def keyed(keys: Path, name: str, x, me: str, peer: str) -> dict:
    """The keyword arguments of a party holding `me`'s key that expects `peer`."""
    return {"inputs": {name: {"x": x}}, "key": keys / f"{me}.key", "peer_key": str(keys / f"{peer}.pub")}


def test_two_threads_with_keys(keys):
    program = twofold.compile(DOT)
    x, y = vectors(1)
    a, b = in_threads(
        program, keyed(keys, "INPUT_A", x, "alice", "bob"), keyed(keys, "INPUT_B", y, "bob", "alice")
    )
    assert a == b == {"return": int(np.dot(x.astype(np.int64), y))}


def test_reveal_to_one_party_with_a_psk(tmp_path):
    twofold.keygen(tmp_path / "run", psk=True)
    program = twofold.compile(DOT)
    x, y = vectors(2)
    psk = {"psk_file": tmp_path / "run.psk", "reveal_to": "b"}
    a, b = in_threads(program, {"inputs": {"INPUT_A": {"x": x}}, **psk}, {"inputs": {"INPUT_B": {"x": y}}, **psk})
    assert a is None
    assert b == {"return": int(np.dot(x, y))}


def test_a_wrong_key_is_an_integrity_error(keys):
    program = twofold.compile(DOT)
    x, y = vectors(3)
    # Party a expects bob, but mallory connects.
    a, b = in_threads(
        program, keyed(keys, "INPUT_A", x, "alice", "bob"), keyed(keys, "INPUT_B", y, "mallory", "alice")
    )
    assert isinstance(a, twofold.IntegrityError), a
    assert isinstance(b, twofold.NetworkError), b
    assert "integrity/authentication" in str(a)


def test_no_peer_is_a_network_error(keys):
    program = twofold.compile(DOT)
    x, _ = vectors(4)
    with pytest.raises(twofold.NetworkError, match="could not connect"):
        program.run(
            party="b",
            connect=f"127.0.0.1:{free_port()}",
            inputs={"INPUT_B": {"x": x}},
            key=keys / "bob.key",
            peer_key=str(keys / "alice.pub"),
            timeout=1,
        )


def party_process(endpoint: str, party: str, me: str, peer: str, keys: Path, inputs) -> subprocess.Popen:
    args = [str(DOT), party, endpoint, str(keys / f"{me}.key"), str(keys / f"{peer}.pub"), json.dumps(inputs)]
    return subprocess.Popen(
        [sys.executable, str(HERE / "party.py"), *args], cwd=HERE, stdout=subprocess.PIPE, text=True
    )


def test_two_processes_with_keys(keys):
    x, y = vectors(5)
    port = free_port()
    a = party_process(f"listen=127.0.0.1:{port}", "a", "alice", "bob", keys, {"INPUT_A": {"x": x.tolist()}})
    b = party_process(f"connect=127.0.0.1:{port}", "b", "bob", "alice", keys, {"INPUT_B": {"x": y.tolist()}})
    outs = [json.loads(p.communicate(timeout=60)[0]) for p in (a, b)]
    assert a.returncode == b.returncode == 0
    assert outs[0] == outs[1] == {"return": int(np.dot(x, y))}


def test_python_party_against_the_command_line(keys, cli):
    x, y = vectors(6)
    port = free_port()
    cli_party = subprocess.Popen(
        [str(cli), "run", str(DOT), "--party", "b", "--connect", f"127.0.0.1:{port}",
         "--key", str(keys / "bob.key"), "--peer-key", str(keys / "alice.pub"),
         "--threads", "1", "-i", "INPUT_B={" + ",".join(map(str, y)) + "}", "--json"],
        stdout=subprocess.PIPE, text=True,
    )
    ours = twofold.compile(DOT).run(
        party="a", listen=f"127.0.0.1:{port}", inputs={"INPUT_A": {"x": x}},
        key=keys / "alice.key", peer_key=str(keys / "bob.pub"), threads=1, timeout=30,
    )
    theirs = json.loads(cli_party.communicate(timeout=60)[0])["outputs"]
    assert cli_party.returncode == 0
    assert {k: plain(v) for k, v in ours.items()} == theirs == {"return": int(np.dot(x, y))}
