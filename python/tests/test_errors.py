"""Every kind of bad input raises `twofold.InputError` with the command
line's message; bad programs, options and runs raise their own classes."""

import subprocess

import numpy as np
import pytest

import twofold
from conftest import EXAMPLES

SOURCE = """
typedef struct { unsigned char v[2][3]; int n; } Pair;
int mpc_main(Pair INPUT_A, unsigned char INPUT_B) {
    return INPUT_A.v[1][2] + INPUT_A.n + INPUT_B;
}
"""
GOOD_A = {"v": np.arange(6, dtype=np.uint8).reshape(2, 3), "n": -4}


@pytest.fixture(scope="module")
def program():
    return twofold.compile(source=SOURCE, name="pair.c")


def test_good_inputs_run(program):
    assert program.run_local({"INPUT_A": GOOD_A, "INPUT_B": 250}) == {"return": 5 - 4 + 250}
    # Nested lists and numpy scalars do as well as arrays and ints.
    a = {"v": [[0, 1, 2], [3, 4, 5]], "n": np.int64(-4)}
    assert program.run_local({"INPUT_A": a, "INPUT_B": np.uint8(250)}) == {"return": 251}


@pytest.mark.parametrize(
    "inputs, message",
    [
        # An unknown name: the closest name and the program's inputs.
        ({"INPUT_A": GOOD_A, "INPUT_C": 1}, r"the program has no input `INPUT_C`; did you mean `INPUT_A`\?"),
        # A missing input.
        ({"INPUT_A": GOOD_A}, r"missing input value\(s\).*\n  INPUT_B \(party b, unsigned char\)"),
        # Shapes: too few rows, too few and too many columns, a scalar for an array, an array for a scalar.
        ({"INPUT_A": {**GOOD_A, "v": np.zeros((1, 3), dtype=int)}, "INPUT_B": 1}, r"input `INPUT_A`: expected 2 elements for unsigned char\[2\]\[3\], found 1"),
        ({"INPUT_A": {**GOOD_A, "v": np.zeros((2, 2), dtype=int)}, "INPUT_B": 1}, r"input `INPUT_A`: expected 3 elements for unsigned char\[3\], found 2"),
        ({"INPUT_A": {**GOOD_A, "v": np.zeros((2, 4), dtype=int)}, "INPUT_B": 1}, r"input `INPUT_A`: .*3 elements"),
        ({"INPUT_A": {**GOOD_A, "v": 7}, "INPUT_B": 1}, r"input `INPUT_A`: expected an array or object for unsigned char\[2\]\[3\], found 7"),
        ({"INPUT_A": GOOD_A, "INPUT_B": [1, 2]}, r"input `INPUT_B`: expected a number for unsigned char, found an array"),
        # Out of range, and not an integer.
        ({"INPUT_A": GOOD_A, "INPUT_B": 256}, r"input `INPUT_B`: value 256 does not fit in unsigned char"),
        ({"INPUT_A": {**GOOD_A, "n": 2**32}, "INPUT_B": 1}, r"input `INPUT_A`: value 4294967296 does not fit in int"),
        ({"INPUT_A": {**GOOD_A, "n": 2**70}, "INPUT_B": 1}, r"input `INPUT_A`: .*\"1180591620717411303424\""),
        ({"INPUT_A": GOOD_A, "INPUT_B": 1.5}, r"input `INPUT_B`: 1.5 is not an integer"),
        # Struct members: missing, unknown.
        ({"INPUT_A": {"v": GOOD_A["v"]}, "INPUT_B": 1}, r"input `INPUT_A`: missing member `n`"),
        ({"INPUT_A": {**GOOD_A, "m": 1}, "INPUT_B": 1}, r"input `INPUT_A`: .*`m`"),
        # Values of no number type.
        ({"INPUT_A": GOOD_A, "INPUT_B": "7"}, r"input `INPUT_B`: expected a number for unsigned char, found the string \"7\""),
        ({"INPUT_A": GOOD_A, "INPUT_B": object()}, r"input `INPUT_B`: a object is not a value"),
        ({"INPUT_A": GOOD_A, 3: 1}, r"input names are strings"),
    ],
)
def test_bad_inputs_raise_input_error(program, inputs, message):
    with pytest.raises(twofold.InputError, match=message):
        program.run_local(inputs)


def test_another_partys_input_is_refused(program):
    with pytest.raises(twofold.InputError, match=r"input `INPUT_B` belongs to party b; give it on that party's side"):
        program.run(party="a", listen="127.0.0.1:0", insecure=True, inputs={"INPUT_A": GOOD_A, "INPUT_B": 1})


def test_messages_are_the_command_lines(program, cli, tmp_path):
    """The messages that do not depend on how a value is written are the
    command line's, word for word."""
    source = tmp_path / "pair.c"
    source.write_text(SOURCE)
    program = twofold.compile(source)
    cases = [
        ({"INPUT_A": GOOD_A, "INPUT_C": 1}, ["-i", "INPUT_A={}", "-i", "INPUT_C=1"]),
        ({"INPUT_A": GOOD_A}, ["-i", "INPUT_A={}"]),
        ({"INPUT_A": GOOD_A, "INPUT_B": 256}, ["-i", "INPUT_A={}", "-i", "INPUT_B=256"]),
    ]
    for inputs, args in cases:
        with pytest.raises(twofold.InputError) as raised:
            program.run_local(inputs)
        done = subprocess.run([str(cli), "run", str(source), "--local", *args], capture_output=True, text=True)
        assert done.returncode != 0
        ours = str(raised.value)
        if "256" in ours:  # the CLI places the value in its text: compare the message
            ours = ours.split(": ", 1)[1]
        assert ours in done.stderr, (ours, done.stderr)


def test_share_takes_any_inputs_but_checks_them(program, tmp_path):
    with pytest.raises(twofold.InputError, match="value 300 does not fit"):
        twofold.share(program, {"INPUT_B": 300}, tmp_path / "store")


def test_bad_programs_raise_compile_error(tmp_path):
    with pytest.raises(twofold.CompileError, match=r"^bad\.c:1:\d+: "):
        twofold.compile(source="int mpc_main(int INPUT_A) { return INPUT_A +; }", name="bad.c")
    with pytest.raises(twofold.CompileError, match="bad.txt"):
        twofold.compile(source="not a circuit", name="bad.txt")
    with pytest.raises(FileNotFoundError):
        twofold.compile(tmp_path / "missing.c")
    with pytest.raises(ValueError):
        twofold.compile(EXAMPLES / "millionaires.c", source="int x;")


def test_bad_options_raise_value_error(program):
    inputs = {"INPUT_A": GOOD_A, "INPUT_B": 1}
    for options in [{"schedule": "fast"}, {"scheme": "quarter-gates"}, {"reveal_to": "c"}, {"threads": 1000}]:
        with pytest.raises(ValueError):
            program.run_local(inputs, **options)
    with pytest.raises(ValueError, match="one of listen= and connect="):
        program.run(party="a", inputs=inputs, insecure=True)
    with pytest.raises(ValueError, match="exclude each other"):
        program.run(party="a", listen="127.0.0.1:0", inputs=inputs, insecure=True, psk_file="x.psk")


def test_runs_between_processes_need_a_secure_channel(program, tmp_path):
    inputs = {"INPUT_A": GOOD_A}
    with pytest.raises(twofold.Error, match="needs a secure channel"):
        program.run(party="a", listen="127.0.0.1:0", inputs=inputs)
    twofold.keygen(tmp_path / "bob")
    with pytest.raises(twofold.Error, match="missing.key"):
        program.run(
            party="a",
            listen="127.0.0.1:0",
            inputs=inputs,
            key=tmp_path / "missing.key",
            peer_key=str(tmp_path / "bob.pub"),
        )


def test_the_exception_classes_nest():
    assert issubclass(twofold.InputError, twofold.Error)
    assert issubclass(twofold.CompileError, twofold.Error)
    assert issubclass(twofold.IntegrityError, twofold.NetworkError)
    assert issubclass(twofold.NetworkError, twofold.ProtocolError)
    assert issubclass(twofold.ProtocolError, twofold.Error)
    assert twofold.InputError.__module__ == "twofold"
