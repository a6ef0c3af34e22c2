"""examples/python/biomatch.py: BioMatch on the example CSV between two
processes gives what the clear computation gives."""

import re
import subprocess
import sys

import numpy as np

from conftest import EXAMPLES


def test_biomatch_script():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / "biomatch.py"), "--sample", "5,10,1000,7"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    secure = re.search(r"the smallest squared distance: (\d+)", done.stdout)
    clear = re.search(r"computed in the clear from both inputs: (\d+)", done.stdout)
    assert secure and clear, done.stdout
    assert secure.group(1) == clear.group(1)
    db = np.loadtxt(EXAMPLES / "data" / "biomatch_db.csv", delimiter=",", dtype=np.int64)
    expected = ((db - np.array([5, 10, 1000, 7])) ** 2).sum(axis=1).min()
    assert int(secure.group(1)) == expected
    assert "party A: 512 samples of 4 features" in done.stdout
