"""The three-party round trip: share the inputs, run the three computing
parties here on the shares, reconstruct the outputs; the values are those
of a two-party run on the same inputs, and the command line reads the same
stores."""

import numpy as np
import pytest

import twofold
from conftest import EXAMPLES, plain, run_cli

MATMUL = EXAMPLES / "matmul5x5.c"


def matrices(seed):
    rng = np.random.default_rng(seed)
    return {name: {"m": rng.integers(-50, 50, (5, 5), dtype=np.int32)} for name in ("INPUT_A", "INPUT_B")}


@pytest.mark.parametrize("kind", ["xor", "add"])
def test_share_run_reconstruct(kind, tmp_path, cli):
    program = twofold.compile(MATMUL)
    inputs = matrices(7)
    store = tmp_path / "store"

    assert twofold.share(program, inputs, store, kind=kind) == ["INPUT_A", "INPUT_B"]
    # No store holds the values themselves.
    for cp in ("cp1", "cp2", "cp3"):
        assert (store / cp).is_dir()
    report = program.run_parties3_local(store=store, kind=kind, threads=1)
    assert report["stored"] == {"return": "return"}
    assert [p["party"] for p in report["parties"]] == ["cp1", "cp2", "cp3"]

    out = twofold.reconstruct(program, store)
    expected = inputs["INPUT_A"]["m"] @ inputs["INPUT_B"]["m"]
    np.testing.assert_array_equal(out["return"]["m"], expected)
    assert out["return"]["m"].dtype == np.int32
    assert plain(out) == plain(program.run_local(inputs))
    # The command line reconstructs the same values from the same stores.
    theirs = run_cli(cli, "reconstruct", str(MATMUL), "--store", str(store))["outputs"]
    assert theirs == {"return": plain(out["return"])}


def test_stored_names_and_missing_shares(tmp_path):
    program = twofold.compile(MATMUL)
    inputs = matrices(8)
    store = tmp_path / "store"
    twofold.share(program, {"INPUT_A": inputs["INPUT_A"]}, store)
    twofold.share(program, {"INPUT_B": inputs["INPUT_A"]}, tmp_path / "other")
    with pytest.raises(twofold.Error, match="has no value `INPUT_B`"):
        program.run_parties3_local(store=store)
    twofold.share(program, {"INPUT_B": inputs["INPUT_B"]}, store)
    report = program.run_parties3_local(store=store, outs={"return": "product"}, threads=1)
    assert report["stored"] == {"return": "product"}
    with pytest.raises(twofold.Error, match="has no value `return`"):
        twofold.reconstruct(program, store)
    out = twofold.reconstruct(program, store, outs={"return": "product"})
    np.testing.assert_array_equal(out["return"]["m"], inputs["INPUT_A"]["m"] @ inputs["INPUT_B"]["m"])
