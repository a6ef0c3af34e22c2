"""Type stubs of twofold's native module (re-exported by ``twofold``)."""

import os
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Union

StrPath = Union[str, "os.PathLike[str]"]
Party = Literal["a", "b"]
Schedule = Literal["seq", "fgp", "cgp", "auto"]
Scheme = Literal["half-gates", "three-halves"]
ShareKind = Literal["xor", "add"]
#: Called as ``progress(done, total)`` with AND gates done and in all.
ProgressCallback = Callable[[int, int], object]
#: An input value: an int, a numpy array or nested lists (arrays), a dict
#: of members (structs); a ``str`` holds a Bristol value (``"0x…"``).
InputValue = Any
#: An output value: an int (``bool`` for ``_Bool``), a numpy array of the C
#: element type, a dict of members, or a list (arrays of structs).
OutputValue = Any

class Error(Exception):
    """Any failure of twofold (the base of its other exceptions)."""

class CompileError(Error):
    """The program could not be read or compiled."""

class InputError(Error):
    """An input value is missing, unknown, of the wrong shape or out of range."""

class ProtocolError(Error):
    """The two-party (or three-party) protocol failed."""

class NetworkError(ProtocolError):
    """The peer could not be reached, left, stalled, or the address was taken."""

class IntegrityError(NetworkError):
    """The secure channel failed its integrity or authentication check."""

class Program:
    """A program compiled from C or read from a circuit file, ready to run."""

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """The inputs in order: ``name``, ``party`` (``"a"``/``"b"``),
        ``type`` (a numpy dtype name, ``"struct"`` or ``"bits"``), ``shape``,
        ``ctype``, ``width`` and, for structs, ``members``."""
    @property
    def outputs(self) -> List[Dict[str, Any]]:
        """The outputs in order, described as ``inputs`` are (no ``party``)."""
    def stats(self, *, levels: bool = False) -> Dict[str, Any]:
        """Size and shape of the program, as ``twofold stats --json``."""
    def run_local(
        self,
        inputs: Mapping[str, InputValue],
        *,
        threads: Optional[int] = None,
        schedule: Schedule = "auto",
        scheme: Scheme = "half-gates",
        reveal_to: Optional[Party] = None,
        ipp: bool = False,
        progress: Optional[ProgressCallback] = None,
    ) -> Dict[str, OutputValue]:
        """Runs both parties in this process on every input value (keyed by
        name); returns the outputs keyed by name."""
    def run(
        self,
        *,
        party: Party,
        inputs: Mapping[str, InputValue],
        listen: Optional[str] = None,
        connect: Optional[str] = None,
        key: Optional[StrPath] = None,
        peer_key: Optional[str] = None,
        psk_file: Optional[StrPath] = None,
        insecure: bool = False,
        timeout: float = 60.0,
        threads: Optional[int] = None,
        schedule: Schedule = "auto",
        scheme: Scheme = "half-gates",
        reveal_to: Optional[Party] = None,
        ipp: bool = False,
        progress: Optional[ProgressCallback] = None,
    ) -> Optional[Dict[str, OutputValue]]:
        """Runs one party with its own inputs; the peer runs the other in
        another process. ``listen`` or ``connect`` says where the peer is;
        ``key``/``peer_key``, ``psk_file`` or ``insecure`` how the
        connection is protected. Returns the outputs, or ``None`` if they
        are revealed to the other party only."""
    def run_parties3_local(
        self,
        *,
        store: StrPath,
        ins: Optional[Mapping[str, str]] = None,
        outs: Optional[Mapping[str, str]] = None,
        kind: ShareKind = "xor",
        threads: Optional[int] = None,
        schedule: Schedule = "auto",
        scheme: Scheme = "half-gates",
        timeout: float = 60.0,
        progress: Optional[ProgressCallback] = None,
    ) -> Dict[str, Any]:
        """The hybrid mode, all three computing parties here, on the shares
        in ``store/cp1..cp3``; writes the output shares there and returns
        the report (``stored``: each output's stored name)."""

def compile(
    path: Optional[StrPath] = None,
    *,
    source: Optional[str] = None,
    name: Optional[str] = None,
    owner: Optional[Mapping[str, Party]] = None,
    unwind: Optional[int] = None,
    no_regions: bool = False,
    no_loops: bool = False,
    max_memory: Union[int, str, None] = None,
) -> Program:
    """Compiles C (``.c``) or reads a Bristol or binary circuit from
    ``path``, or from the text ``source`` named ``name``."""

def share(
    program: Program,
    inputs: Mapping[str, InputValue],
    store: StrPath,
    *,
    kind: ShareKind = "xor",
) -> List[str]:
    """Splits input values into three shares in ``store/cp1..cp3``;
    returns the names stored."""

def reconstruct(
    program: Program,
    store: StrPath,
    *,
    outs: Optional[Mapping[str, str]] = None,
) -> Dict[str, OutputValue]:
    """Combines the output shares in ``store/cp1..cp3`` into the values."""

def keygen(name: StrPath, *, psk: bool = False, force: bool = False) -> Dict[str, str]:
    """Writes ``name.key`` and ``name.pub`` (or ``name.psk`` with
    ``psk=True``); returns the files and the key's fingerprint."""
