"""Every example through `Program.run_local` with numpy inputs, against the
command line's outputs (`twofold run --local --json`) on the same values."""

import zlib

import numpy as np
import pytest

import twofold
from conftest import EXAMPLES, plain, random_value, run_cli, same, write_json

SOURCES = sorted(EXAMPLES.glob("*.c")) + [EXAMPLES / "millionaires.txt"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_example_matches_the_command_line(path, cli, tmp_path):
    program = twofold.compile(path)
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    inputs = {spec["name"]: random_value(spec, rng) for spec in program.inputs}
    args = []
    for name, value in inputs.items():
        file = tmp_path / f"{name}.json"
        write_json(file, value)
        args += ["-i", f"{name}=@{file}"]

    ours = program.run_local(inputs)
    theirs = run_cli(cli, "run", str(path), "--local", *args)["outputs"]

    assert list(ours) == [o["name"] for o in program.outputs] == list(theirs)
    for name, value in ours.items():
        expected = theirs[name]
        if isinstance(expected, str):  # a Bristol value, in hex
            expected = int(expected, 16)
        assert same(plain(value), expected), name
    for spec, value in zip(program.outputs, ours.values()):
        if spec["type"] not in ("struct", "bits") and spec["shape"]:
            assert value.dtype == np.dtype(spec["type"])
            assert value.shape == tuple(spec["shape"])
