"""The binary case form (``.npz``): the CSR arrays as they are, plus a small JSON header.

Meant for generated graphs: a 10^7-edge graph loads in a fraction of a second, since the
arrays are read straight into numpy and checked with vectorized operations (no sort: the
successors are stored sorted, and that is verified). The file holds

``succ_ptr``, ``succ_idx``
    CSR of the moves (int32 when the ids fit, else int64), successors strictly increasing.
``owner`` (int8), ``value`` (float64, NaN = none), ``target`` (bool)
    per-node arrays as in :class:`~verifier.model.GameGraph`.
``header``
    UTF-8 JSON: ``format``, ``version``, ``semantics``, ``id``, ``source``, ``description``,
    ``root``, ``sums`` and ``expect`` exactly as in the compact encoding (ids, keys as strings).
``names`` (optional)
    UTF-8 JSON list of the node names.
``name_codes`` (optional, instead of ``names``)
    uint64 position codes of a generated game, one per node, decoded into names on demand by
    the codec the header's ``name_codec`` names (``verifier.games.name_codecs``).

Nothing is pickled: arrays of Python objects are refused. The archive is read by
:mod:`~verifier.io.npzfile`, which checks the sizes every entry declares (against each other and
against :class:`~verifier.io.limits.Limits`) before it allocates anything. A corrupt or foreign
file is a ``CaseError`` whose path names the array, e.g. ``$.succ_idx[17]``.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import Field, ValidationError

from verifier.io.case_json import expect_to_dict, finish_case, resolve_positions
from verifier.io.files import write_atomically
from verifier.io.jsonpath import PathPart, fail, from_validation_error, parse_json
from verifier.io.limits import Limits
from verifier.io.models import CaseFields, CompactSumModel
from verifier.io.npzfile import NpyEntry, read_npz, write_npz
from verifier.io.rules import (
    check_nodes,
    check_values_finite,
    compact_key,
    first_in_blocks,
    graph_from_csr,
)
from verifier.model import Case, Semantics
from verifier.model.bounds import INT32_MAX
from verifier.model.graph import index_dtype

__all__ = ["ARRAY_NAMES", "FORMAT", "VERSION", "NpzHeader", "load_npz", "save_npz"]

FORMAT = "gamegraph-verifier-case"
VERSION = 1
ARRAY_NAMES = (
    "header",
    "names",
    "name_codes",
    "succ_ptr",
    "succ_idx",
    "owner",
    "value",
    "target",
)
"""The arrays of a case; other entries of the archive are not read."""


class NpzHeader(CaseFields):
    """The JSON header of a ``.npz`` case."""

    format: Literal["gamegraph-verifier-case"]
    version: Literal[1]
    root: Annotated[int, Field(ge=0)] | None = None
    sums: list[CompactSumModel] | None = None
    name_codec: str | None = None
    """The codec of ``name_codes`` (``verifier.games.name_codecs``), when names are codes."""


def save_npz(case: Case, path: str | Path) -> Path:
    """Write ``case`` in the binary form (uncompressed ``.npz``, atomically); returns the path.

    Refuses to overwrite the file the case was read from (``UsageError``).
    """
    g = case.graph
    small = g.n <= INT32_MAX and g.m <= INT32_MAX
    ids = np.int32 if small else np.int64
    header: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "semantics": g.semantics.value,
        "id": case.id,
        "source": case.source,
        "description": case.description,
        "root": case.root,
        "sums": [{"name": s.name, "positions": list(s.positions)} for s in case.sums] or None,
        "expect": expect_to_dict(case.expect, str) if case.expect is not None else None,
    }
    codec = getattr(g.names, "codec", None)  # a generator's names: store its position codes
    header["name_codec"] = codec
    header = {k: v for k, v in header.items() if v is not None}
    arrays: dict[str, Callable[[], NDArray[Any]]] = {  # made one at a time by write_npz
        "header": lambda: _json_bytes(header),
        "succ_ptr": lambda: g.succ_ptr.astype(ids),
        "succ_idx": lambda: g.succ_idx.astype(ids, copy=False),
        "owner": lambda: g.owner,
        "value": lambda: g.value,
        "target": lambda: g.target,
    }
    if codec is not None:
        codes = g.names.codes  # type: ignore[attr-defined]
        arrays["name_codes"] = lambda: np.asarray(codes, dtype=np.uint64)
    elif g.has_names:
        arrays["names"] = lambda: _json_bytes(list(g.names))

    def write(f: BinaryIO) -> None:
        write_npz(f, arrays)

    return write_atomically(path, write, case.path)


def _json_bytes(obj: Any) -> NDArray[np.uint8]:
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def load_npz(path: str | Path, *, limits: Limits | None = None) -> Case:
    """Read and check a case written by :func:`save_npz` (refused above ``limits``)."""
    file = str(path)
    arrays = _read_arrays(Path(path), file, limits or Limits())
    data = parse_json(_text(arrays, "header", file), file, [])  # [] : exact literals
    if not isinstance(data, dict):
        fail(file, ("header",), "the header must be a JSON object")
    try:
        header = NpzHeader.model_validate(data)
    except ValidationError as e:
        raise from_validation_error(e, data, file, base=("header",)) from None
    sem = Semantics(header.semantics)
    ptr = _ids(arrays, "succ_ptr", file)
    idx = _array(arrays, "succ_idx", file, "iu")
    n = len(ptr) - 1
    if n < 1:
        fail(file, ("succ_ptr",), "the graph has no nodes")
    _check_csr(ptr, idx, n, file)  # on the stored ids, before they are narrowed
    idx = np.array(idx, dtype=index_dtype(n))  # owned, in the graph's own dtype: no second copy
    owner = _per_node(arrays, "owner", np.int8, n, file)
    value = _per_node(arrays, "value", np.float64, n, file)
    target = _per_node(arrays, "target", np.bool_, n, file)
    names: Sequence[str] | None = None
    if "name_codes" in arrays:
        names = _coded_names(arrays["name_codes"], header.name_codec, n, file)
    elif "names" in arrays:
        names = parse_json(_text(arrays, "names", file), file)
        if not (isinstance(names, list) and all(isinstance(x, str) and x for x in names)):
            fail(file, ("names",), "names must be a JSON list of non-empty strings")
        if len(names) != n:
            fail(file, ("names",), f"{len(names)} names for {n} nodes")
        if len(set(names)) != n:
            fail(file, ("names",), "names are not distinct")

    def where(i: int, f: str) -> tuple[PathPart, ...]:
        return (f, i)

    check_values_finite(value, None, file, where)

    def resolve(i: int) -> int | None:
        return i if 0 <= i < n else None

    _, root, sums = resolve_positions(sem, header.root, None, header.sums, resolve, n, file)
    value = check_nodes(sem, np.diff(ptr), owner, value, target, file, where)
    graph = graph_from_csr(sem, ptr, idx, owner, value, target, names)
    return finish_case(header, graph, root, sums, compact_key(n), file, Path(path))


def _coded_names(codes: NDArray[Any], codec: str | None, n: int, file: str) -> Sequence[str]:
    """The names of a generated game, decoded on demand from its position codes."""
    from verifier.games.name_codecs import codec_names  # a generator's codec: games decode

    if codec is None:
        fail(file, ("header", "name_codec"), "name_codes need a name_codec")
    if len(codes) != n:
        fail(file, ("name_codes",), f"{len(codes)} codes for {n} nodes")
    try:
        return codec_names(codec, codes)
    except ValueError as e:
        fail(file, ("name_codes",), str(e))


def _read_arrays(path: Path, file: str, limits: Limits) -> dict[str, NDArray[Any]]:
    if not path.is_file():
        fail(
            file,
            (),
            "cannot read the file: a folder" if path.is_dir() else "no such file or directory",
        )
    if not zipfile.is_zipfile(path):
        fail(file, (), "not an .npz case file (not a zip archive)")

    def check(entries: dict[str, NpyEntry]) -> None:
        """Refuse declared sizes above the limits before any array is read."""
        nodes = max(entries["succ_ptr"].count - 1, 0) if "succ_ptr" in entries else 0
        moves = entries["succ_idx"].count if "succ_idx" in entries else 0
        limits.check_positions(
            nodes + moves, file, what=f"{nodes:,} nodes and {moves:,} moves declared"
        )
        limits.check_bytes(sum(e.nbytes for e in entries.values()), file, "arrays")

    return read_npz(path, file, ARRAY_NAMES, check)


def _array(
    arrays: dict[str, NDArray[Any]], name: str, file: str, kinds: str, ndim: int = 1
) -> NDArray[Any]:
    if name not in arrays:
        fail(file, (name,), "array missing")
    a = arrays[name]
    if a.ndim != ndim or a.dtype.kind not in kinds:
        fail(file, (name,), f"expected a {ndim}-d array of kind {kinds!r}, got {a.dtype}{a.shape}")
    return a


def _text(arrays: dict[str, NDArray[Any]], name: str, file: str) -> bytes:
    return _array(arrays, name, file, "u").astype(np.uint8, copy=False).tobytes()


def _ids(arrays: dict[str, NDArray[Any]], name: str, file: str) -> NDArray[np.int64]:
    return _array(arrays, name, file, "iu").astype(np.int64)


def _per_node(
    arrays: dict[str, NDArray[Any]], name: str, dtype: Any, n: int, file: str
) -> NDArray[Any]:
    a = _array(arrays, name, file, "biuf")
    if a.dtype != np.dtype(dtype):
        fail(file, (name,), f"expected dtype {np.dtype(dtype)}, got {a.dtype}")
    if len(a) != n:
        fail(file, (name,), f"{len(a)} entries for {n} nodes")
    return np.array(a)  # an owned copy, not a view of the (memory-mapped) file


def _check_csr(ptr: NDArray[np.int64], idx: NDArray[Any], n: int, file: str) -> None:
    """Row pointers from 0 to ``m``, not decreasing; ids in range, strictly increasing in each
    row; a block at a time (:func:`first_in_blocks`)."""
    m = len(idx)
    if ptr[0] != 0:
        fail(file, ("succ_ptr", 0), f"must be 0 (got {int(ptr[0])})")
    bad = first_in_blocks(n, lambda b: ptr[b.start + 1 : b.stop + 1] < ptr[b])
    if bad is not None:
        fail(file, ("succ_ptr", bad + 1), "row pointers must not decrease")
    if ptr[-1] != m:
        fail(file, ("succ_ptr", n), f"must equal the number of moves {m} (got {int(ptr[-1])})")
    bad = first_in_blocks(m, lambda b: (idx[b] < 0) | (idx[b] >= n))
    if bad is not None:
        fail(file, ("succ_idx", bad), f"node id {int(idx[bad])} out of range (nodes: {n})")
    if m > 1:
        row_start = np.zeros(m, dtype=np.bool_)
        row_start[ptr[:-1][ptr[:-1] < m]] = True

        def unsorted(b: slice) -> NDArray[np.bool_]:
            later = slice(b.start + 1, b.stop + 1)
            return (idx[later] <= idx[b]) & ~row_start[later]

        bad = first_in_blocks(m - 1, unsorted)
        if bad is not None:
            path: tuple[PathPart, ...] = ("succ_idx", bad + 1)
            fail(file, path, "successors must be strictly increasing (duplicate or unsorted)")
