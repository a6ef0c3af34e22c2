"""twofold: secure two-party computation with Yao's garbled circuits.

Compile a C program (or read a Bristol circuit), give each party's inputs as
Python ints, numpy arrays (or nested lists) and dicts (for structs), and run
the garbled-circuit protocol: both parties in this process
(``Program.run_local``), or one party per process over TLS with pinned keys
(``Program.run``). Outputs come back the same way, keyed by output name
(``"return"`` for a return value), arrays as numpy arrays of the C element
type.

>>> import twofold
>>> p = twofold.compile(source="int mpc_main(int INPUT_A, int INPUT_B) "
...                            "{ return INPUT_A * INPUT_B; }", name="mul.c")
>>> p.run_local({"INPUT_A": -6, "INPUT_B": 7})
{'return': -42}

The three-party hybrid mode: ``share`` puts input values as shares into
three stores, ``Program.run_parties3_local`` computes on them, and
``reconstruct`` combines the output shares.
"""

from ._twofold import (
    CompileError,
    Error,
    InputError,
    IntegrityError,
    NetworkError,
    Program,
    ProtocolError,
    compile,
    keygen,
    reconstruct,
    share,
)

__all__ = [
    "CompileError",
    "Error",
    "InputError",
    "IntegrityError",
    "NetworkError",
    "Program",
    "ProtocolError",
    "compile",
    "keygen",
    "reconstruct",
    "share",
]
