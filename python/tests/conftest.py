"""Shared fixtures: the repository, the `twofold` command line (to compare
against), and random input values made from a program's own description
of its inputs."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `twofold` binary: $TWOFOLD_CLI, or built from this checkout."""
    given = os.environ.get("TWOFOLD_CLI")
    if given:
        return Path(given)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "twofold", "--bin", "twofold"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (ROOT / target / "release" / "twofold").resolve()


def run_cli(cli: Path, *args: str) -> dict:
    """Runs the command line with `--json`; returns its JSON object."""
    done = subprocess.run(
        [str(cli), *args, "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_value(spec: dict, rng: np.random.Generator):
    """A random value of the type `spec` (an entry of `Program.inputs`):
    numpy arrays for arrays of scalars, dicts for structs, ints."""
    shape = tuple(spec["shape"])
    if spec["type"] == "struct":
        one = lambda: {k: random_value(m, rng) for k, m in spec["members"].items()}
        if not shape:
            return one()
        return np.array([one() for _ in range(int(np.prod(shape)))], dtype=object).reshape(shape).tolist()
    if spec["type"] == "bits":
        return int(rng.integers(0, 2**62)) % (2 ** spec["width"])
    dtype = np.dtype(spec["type"])
    if dtype == np.bool_:
        values = rng.integers(0, 2, size=shape).astype(bool)
    elif dtype.kind == "f":
        values = (rng.standard_normal(size=shape) * 100).astype(dtype)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return values if shape else values.item()


def plain(value):
    """A value as the command line's JSON writes it: numbers and nested
    lists (struct members in order)."""
    if isinstance(value, dict):
        return [plain(v) for v in value.values()]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value)
    return int(value)


def same(ours, theirs) -> bool:
    """Whether a value from `Program.run_local`, made plain, is what the
    command line's JSON says: a `float` prints as the shortest decimal
    that reads back as a float, so it may equal ours only as a float32."""
    if isinstance(ours, list):
        return isinstance(theirs, list) and len(ours) == len(theirs) and all(
            same(a, b) for a, b in zip(ours, theirs)
        )
    if isinstance(ours, float):
        return ours == theirs or ours == float(np.float32(theirs))
    return ours == theirs


def write_json(path: Path, value) -> None:
    """Writes a Python input value as a JSON input file for the CLI."""

    def encode(v):
        if isinstance(v, dict):
            return {k: encode(x) for k, x in v.items()}
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, list):
            return [encode(x) for x in v]
        if isinstance(v, (float, np.floating)):
            return float(v)
        return int(v)

    path.write_text(json.dumps(encode(value)))
