"""One party of a two-party run in a process of its own, for the tests:
`python party.py PROGRAM PARTY ENDPOINT=ADDR KEY PEER_KEY INPUTS_JSON`
prints the outputs as JSON (numbers and nested lists)."""

import json
import sys

import twofold
from conftest import plain


def main() -> None:
    program, party, endpoint, key, peer_key, inputs = sys.argv[1:]
    where, addr = endpoint.split("=", 1)
    out = twofold.compile(program).run(
        party=party,
        inputs=json.loads(inputs),
        key=key,
        peer_key=peer_key,
        timeout=30,
        threads=1,
        **{where: addr},
    )
    print(json.dumps(None if out is None else {k: plain(v) for k, v in out.items()}))


if __name__ == "__main__":
    main()
