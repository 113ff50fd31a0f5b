"""One entry point for every case file the tool reads or writes, chosen by the file's suffix.

=============  ==========================================  =======================
suffix         format                                      module
=============  ==========================================  =======================
``.json``      case file, readable or compact encoding     :mod:`~verifier.io.case_json`
``.npz``       binary case (CSR arrays + JSON header)      :mod:`~verifier.io.binary`
``.graphml``   GraphML with owner/value/target attributes  :mod:`~verifier.io.networkx_io`
``.gml``       GML with owner/value/target attributes      :mod:`~verifier.io.networkx_io`
a folder       Parquet tables ``nodes`` and ``edges``      :mod:`~verifier.dataset.parquet_io`
=============  ==========================================  =======================
"""

from __future__ import annotations

from pathlib import Path

from verifier.errors import UsageError
from verifier.io.binary import load_npz, save_npz
from verifier.io.case_json import Encoding, dump_case, load_case
from verifier.io.discover import is_parquet_graph
from verifier.io.jsonpath import fail
from verifier.io.limits import Limits
from verifier.io.networkx_io import GRAPH_SUFFIXES, read_graph_file, write_graph_file
from verifier.model import Case
from verifier.model.semantics import Semantics

__all__ = ["SUFFIXES", "load_any", "save_any"]

SUFFIXES = (".json", ".npz", *GRAPH_SUFFIXES)
"""The file suffixes :func:`load_any` reads."""


def load_any(
    path: str | Path, *, limits: Limits | None = None, semantics: Semantics | None = None
) -> Case:
    """Read a case from any supported file, by suffix, or from a folder of Parquet tables;
    every problem is a ``CaseError``, a file too big for ``limits`` (default: sized to the
    machine) among them. ``semantics``: for Parquet tables that do not store theirs."""
    p = Path(path)
    suffix = p.suffix.lower()
    limits = limits or Limits()
    if not p.exists():  # in the words of verify's discovery, whatever the suffix
        fail(str(path), (), "no such file or directory")
    if is_parquet_graph(p):
        return _load_parquet_graph(p, limits, semantics)
    if p.is_dir():
        fail(str(path), (), "a folder, not a case (Parquet graph tables: nodes.parquet and "
             "edges.parquet)")  # fmt: skip
    if semantics is not None:
        fail(str(path), (), "--semantics is for Parquet tables: a case file names its own")
    if suffix == ".json":
        return load_case(p, limits=limits)
    if suffix == ".npz":
        return load_npz(p, limits=limits)
    if suffix in GRAPH_SUFFIXES:
        return read_graph_file(p, limits=limits)
    fail(str(path), (), f"unknown file type {p.suffix!r} (expected {', '.join(SUFFIXES)})")


def _load_parquet_graph(path: Path, limits: Limits, semantics: Semantics | None) -> Case:
    try:
        from verifier.dataset.parquet_io import read_parquet_graph
    except ImportError as e:
        fail(str(path), (), f"reading Parquet tables needs pyarrow: pip install '.[dask]' ({e})")
    graph, root = read_parquet_graph(path, semantics, limits)
    return Case(graph=graph, id=path.name, root=root, path=path)


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
