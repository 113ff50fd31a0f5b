"""One entry point for every case file the tool reads or writes, chosen by the file's suffix.

=============  ==========================================  =======================
suffix         format                                      module
=============  ==========================================  =======================
``.json``      case file, readable or compact encoding     :mod:`~verifier.io.case_json`
``.npz``       binary case (CSR arrays + JSON header)      :mod:`~verifier.io.binary`
``.graphml``   GraphML with owner/value/target attributes  :mod:`~verifier.io.networkx_io`
``.gml``       GML with owner/value/target attributes      :mod:`~verifier.io.networkx_io`
=============  ==========================================  =======================
"""

from __future__ import annotations

from pathlib import Path

from verifier.errors import UsageError
from verifier.io.binary import load_npz, save_npz
from verifier.io.case_json import Encoding, dump_case, load_case
from verifier.io.jsonpath import fail
from verifier.io.limits import Limits
from verifier.io.networkx_io import GRAPH_SUFFIXES, read_graph_file, write_graph_file
from verifier.model import Case

__all__ = ["SUFFIXES", "load_any", "save_any"]

SUFFIXES = (".json", ".npz", *GRAPH_SUFFIXES)
"""The file suffixes :func:`load_any` reads."""


def load_any(path: str | Path, *, limits: Limits | None = None) -> Case:
    """Read a case from any supported file, by suffix; every problem is a ``CaseError``, a file
    too big for ``limits`` (default: sized to the machine) among them."""
    p = Path(path)
    suffix = p.suffix.lower()
    limits = limits or Limits()
    if not p.exists():  # in the words of verify's discovery, whatever the suffix
        fail(str(path), (), "no such file or directory")
    if suffix == ".json":
        return load_case(p, limits=limits)
    if suffix == ".npz":
        return load_npz(p, limits=limits)
    if suffix in GRAPH_SUFFIXES:
        return read_graph_file(p, limits=limits)
    if not p.exists():
        fail(str(path), (), "no such file or directory")
    fail(str(path), (), f"unknown file type {p.suffix!r} (expected {', '.join(SUFFIXES)})")


def save_any(case: Case, path: str | Path, encoding: Encoding = "auto") -> Path:
    """Write a case to a file of any supported type, by suffix (``encoding`` is for ``.json``).

    GraphML / GML keep the graph and its metadata but not ``expect``.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return dump_case(case, p, encoding)
    if suffix == ".npz":
        return save_npz(case, p)
    if suffix in GRAPH_SUFFIXES:
        return write_graph_file(case, p)
    raise UsageError(f"{path}: unknown file type {p.suffix!r} (expected {', '.join(SUFFIXES)})")
