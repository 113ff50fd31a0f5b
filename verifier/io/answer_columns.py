"""Answer tables as parallel columns: the ``.npz`` and Parquet encodings (``docs/answers.md``).

Both hold one row per claimed node:

=============== =========================================================================
column          meaning
=============== =========================================================================
``ids`` / ``id`` int64, the node id (``0..n-1`` of the case, no duplicates)
``value``       the stored value: a ``minimax`` score; a ``normal`` label +1 won, -1 lost,
                0 draw; the ``reachability`` winner 0 / 1; a Grundy value, -1 where infinite
``remoteness``  optional, int64 plies; -1 (or null) where none is claimed
``move``        optional, int64 id of the chosen successor; -1 (or null) where none
(others)        every further column registered with an ``AnswerCodec``, by its name
``loopy``       Grundy only: the K of each infinite value (``.npz``: the header's
                ``loopy`` object, id -> K; Parquet: a nullable list column)
=============== =========================================================================

The ``.npz`` header (a JSON byte array) and the Parquet schema metadata (key
``gamegraph-verifier``) carry ``semantics`` and ``graph`` (positions, moves, digest), checked
against the case. The columns are validated whole, vectorized (no Python loop per row: a table
of 10^7 rows reads in about a second), and the first bad row is named in the one-line error.

>>> from verifier.model import GameGraph, Semantics, Case
>>> g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL)
>>> cols = {"ids": np.array([0, 1]), "value": np.array([1, -1])}
>>> a = columns_answers(Case(g, "t"), "x.npz", cols)
>>> a.values.tolist(), a.given.tolist()
([1, -1], [True, True])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.io.answer_base import Answers, answers_of, check_header
from verifier.io.jsonpath import PathPart, fail, shown
from verifier.io.limits import Limits
from verifier.io.numbers import MAX_EXACT
from verifier.model import Case
from verifier.model.bounds import MAX_REMOTENESS
from verifier.model.columns import ColumnSpec, answer_columns

__all__ = [
    "MAX_REMOTENESS",
    "PARQUET_META_KEY",
    "columns_answers",
    "load_parquet_answers",
    "parquet_columns",
    "parquet_table",
]

PARQUET_META_KEY = b"gamegraph-verifier"
"""The schema-metadata key of a Parquet answer table's header (JSON)."""


def parquet_columns() -> tuple[str, ...]:
    """The columns a Parquet answer table may hold: the registered answer columns too."""
    return ("id", "value", *(s.name for s in answer_columns()), "loopy")


_INT_KINDS = "iu"


def _first(mask: NDArray[np.bool_]) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if len(hit) else None


def _ids(case: Case, file: str, key: str, ids: NDArray[Any]) -> NDArray[np.int64]:
    """The id column: 1-d integers, each a node of the case, none twice."""
    if ids.ndim != 1 or ids.dtype.kind not in _INT_KINDS:
        fail(file, (key,), f"must be a 1-d integer array (got {ids.dtype}, {ids.ndim}-d)")
    n = case.graph.n
    i = _first((ids < 0) | (ids >= n))
    if i is not None:
        fail(file, (key, i), f"a table for another graph: id {int(ids[i])}, the case has {n}")
    out = ids.astype(np.int64)
    if len(out) > 1 and not (out[1:] > out[:-1]).all():  # rows in id order: no duplicate
        first_row = np.full(n, len(out), dtype=np.int64)
        np.minimum.at(first_row, out, np.arange(len(out)))
        i = _first(first_row[out] != np.arange(len(out)))
        if i is not None:
            name = case.graph.name(int(out[i]))
            fail(file, (key, i), f"duplicate entry for position {name!r}")
    return out


def _numbers(file: str, key: str, a: NDArray[Any], rows: int) -> NDArray[np.float64]:
    """A numeric column of one entry per row, as floats; a ``value`` above 2**53 in magnitude
    is refused before the conversion could round it (``verifier.io.numbers``)."""
    if a.shape != (rows,) or a.dtype.kind not in "iuf":
        fail(file, (key,), f"must be a number per id ({rows}), got {a.dtype} {a.shape}")
    if key == "value":
        if a.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                big = np.abs(a) > MAX_EXACT
        else:
            big = (a > MAX_EXACT) | (a < -MAX_EXACT) if a.dtype.kind == "i" else a > MAX_EXACT
        i = _first(big)
        if i is not None:
            got = shown(a[i].item())
            fail(
                file,
                (key, i),
                f"magnitude above 2**53 = {MAX_EXACT}, where float64 stops being exact (got {got})",
            )
    return a.astype(np.float64)


def _stored_values(
    case: Case, file: str, v: NDArray[np.float64], infinite: NDArray[np.bool_]
) -> NDArray[Any]:
    """The ``value`` column in the view's stored form (``Answers.values``); rows of
    ``infinite`` (Grundy values with a K) are stored -1."""
    from verifier.model.describe import describe

    d = describe(case.semantics)
    bad, stored = d.form.from_numbers(v, infinite)
    if d.form.infinite_values:
        i = _first(~infinite & (v == -1.0))
        if i is not None:
            fail(file, ("value", i), "-1 (infinite) needs its K (loopy)")
    i = _first(bad)
    if i is not None:
        fail(file, ("value", i), f"not {d.value_shape} (got {shown(v[i].item())})")
    return np.asarray(stored).astype(d.form.value_dtype)


def _optional(
    case: Case, file: str, spec: ColumnSpec, a: NDArray[Any] | None, rows: int
) -> NDArray[np.int64] | None:
    """An answer column per row (-1: none), validated by its codec: a node's id, or a count."""
    if a is None:
        return None
    key, codec = spec.name, spec.codec
    assert codec is not None
    f = _numbers(file, key, a, rows)
    if codec.entry == "node":
        n = case.graph.n
        i = _first((f != -1) & ((f < 0) | (f >= n) | (f != np.floor(f))))
        if i is not None:
            fail(
                file,
                (key, i),
                f"a table for another graph: id {shown(f[i].item())}, the case has {n}",
            )
    else:
        i = _first((f != -1) & ~((f >= 0) & (f < codec.limit) & (f == np.floor(f))))
        if i is not None:
            got = shown(a[i].item())
            fail(file, (key, i), f"not {codec.noun}, a whole number >= 0 (got {got})")
    return np.asarray(a).astype(np.int64)


def columns_answers(
    case: Case,
    file: str,
    arrays: Mapping[str, NDArray[Any]],
    loopy: Mapping[int, tuple[int, ...]] | None = None,
    id_key: str = "ids",
) -> Answers:
    """The claims of parallel columns (``id_key``, ``value``, optional ``remoteness`` and
    ``move``) and the K of infinite Grundy values by node id (``loopy``; each must be a row)."""
    for need in (id_key, "value"):
        if need not in arrays:
            fail(file, (need,), "required column is missing")
    ids = _ids(case, file, id_key, np.asarray(arrays[id_key]))
    rows = len(ids)
    if rows == 0:
        fail(file, (), "the file claims no position's value")
    loopy = loopy or {}
    infinite = np.isin(ids, np.fromiter(loopy, dtype=np.int64, count=len(loopy)))
    if int(infinite.sum()) != len(loopy):
        stray = sorted(set(loopy) - set(ids[infinite].tolist()))[0]
        fail(file, ("loopy", str(stray)), f"K given for id {stray}, which has no row")
    values = _stored_values(case, file, _numbers(file, "value", arrays["value"], rows), infinite)
    n = case.graph.n
    out = np.zeros(n, dtype=values.dtype)
    out[ids] = values
    given = np.zeros(n, dtype=np.bool_)
    given[ids] = True
    more: dict[str, NDArray[np.int64]] = {}
    for spec in answer_columns():
        col = _optional(case, file, spec, arrays.get(spec.name), rows)
        if col is not None:
            full = np.full(n, -1, dtype=np.int64)
            full[ids] = col
            more[spec.name] = full
    return answers_of(case, out, given, loopy, file, more)


def kset(file: str, where: tuple[PathPart, ...], k: Any) -> tuple[int, ...]:
    """The K of an infinite Grundy value, as read: a list of whole numbers >= 0."""
    if not (isinstance(k, list) and all(type(j) is int and 0 <= j <= MAX_EXACT for j in k)):
        fail(file, where, "K must be a list of whole numbers")
    return tuple(sorted(set(k)))


# ---------------------------------------------------------------------- Parquet
def _pyarrow(file: str) -> tuple[Any, Any, Any]:
    """``pyarrow``, ``pyarrow.parquet`` and ``pyarrow.compute``, or the one-line error."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        fail(file, (), "Parquet needs pyarrow: pip install 'gamegraph-verifier[parquet]'")
    return pa, pq, pc


def load_parquet_answers(path: Path, case: Case, file: str, limits: Limits) -> Answers:
    """Read a Parquet answer table: the row count and the column sizes the file declares are
    checked against ``limits`` before any column is read."""
    pa, pq, pc = _pyarrow(file)
    try:
        pf = pq.ParquetFile(path)
        meta, schema = pf.metadata, pf.schema_arrow
    except (pa.ArrowException, OSError, ValueError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        fail(file, (), f"not a Parquet answer table ({' '.join(str(e).split())})")
    limits.check_positions(meta.num_rows, file, (), f"{meta.num_rows:,} rows")
    names = list(schema.names)
    for i, name in enumerate(names):
        if name not in parquet_columns():
            fail(file, (name,), f"unknown column {shown(name)}")
        if names.index(name) != i:
            fail(file, (name,), f"column {shown(name)} appears twice")
    # the row groups' own byte counts: a column chunk's metadata is not touched, since
    # pyarrow 26 aborts the process on some damaged ones (found by the fuzz tests)
    declared = sum(meta.row_group(r).total_byte_size for r in range(meta.num_row_groups))
    limits.check_bytes(declared, file, "the columns declared")
    raw = (schema.metadata or {}).get(PARQUET_META_KEY)
    header: Any = {}
    if raw is not None:
        from verifier.io.jsonpath import parse_json

        header = parse_json(raw, file)
        if not isinstance(header, dict):
            fail(file, (PARQUET_META_KEY.decode(),), "the header must be a JSON object")
    check_header(header, case, file, (PARQUET_META_KEY.decode(),))
    kinds = {"id": "integer", "value": "number", **{s.name: "integer" for s in answer_columns()}}
    for name, kind in kinds.items():
        if name in names:
            t = schema.field(name).type
            ok = pa.types.is_integer(t) or (kind == "number" and pa.types.is_floating(t))
            if not ok:
                fail(file, (name,), f"must be a column of {kind}s (got {t})")
    if "loopy" in names:
        t = schema.field("loopy").type
        if not (pa.types.is_list(t) and pa.types.is_integer(t.value_type)):
            fail(file, ("loopy",), f"must be a column of lists of integers (got {t})")
    try:
        table = pf.read(columns=names, use_threads=False)  # no thread pool: bounded memory
    except (pa.ArrowException, OSError, ValueError) as e:
        fail(file, (), f"not a Parquet answer table ({' '.join(str(e).split())})")
    arrays: dict[str, NDArray[Any]] = {}
    for name in ("id", "value"):
        if name not in names:
            fail(file, (name,), "required column is missing")
        col = table.column(name)
        whole = name == "id" or pa.types.is_integer(col.type)
        values, given = _arrow_numbers(pa, pc, col, whole, file, name)
        if not given.all():
            fail(file, (name, _first(~given) or 0), "the entry is missing (null)")
        arrays[name] = values
    for spec in answer_columns():
        if (name := spec.name) in names:
            values, given = _arrow_numbers(pa, pc, table.column(name), True, file, name)
            arrays[name] = np.where(given, values, -1)
    loopy: dict[int, tuple[int, ...]] = {}
    if "loopy" in names:
        col = table.column("loopy")
        rows = np.flatnonzero(_arrow_given(col))
        ks = pc.filter(col, pc.is_valid(col)).to_pylist()
        for i, k in zip(rows.tolist(), ks, strict=True):
            if any(j is None for j in k):
                fail(file, ("loopy", i), "K must be a list of whole numbers")
            loopy[int(arrays["id"][i])] = kset(file, ("loopy", i), k)
    return columns_answers(case, file, arrays, loopy, id_key="id")


def _arrow_numbers(
    pa: Any, pc: Any, col: Any, whole: bool, file: str, name: str
) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """A numeric column as int64 (``whole``) or float64 values and where they are given (not
    null), read from the Arrow buffers. Not ``to_numpy``, ``fill_null`` with a number or
    ``pa.array``: each makes pyarrow import pandas when it is installed, which a reader under a
    memory limit may not survive (a MemoryError, found by the fuzz tests, instead of the
    one-line error)."""
    dtype = np.int64 if whole else np.float64
    try:
        col = pc.cast(col, pa.int64() if whole else pa.float64())
    except (pa.ArrowException, ValueError) as e:
        fail(file, (name,), f"a number out of range ({' '.join(str(e).split())})")
    parts = []
    for chunk in col.chunks:
        data = chunk.buffers()[1]
        end = chunk.offset + len(chunk)
        parts.append(np.frombuffer(data, dtype=dtype, count=end)[chunk.offset :])
    values = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return values, _arrow_given(col)


def _arrow_given(col: Any) -> NDArray[np.bool_]:
    """Where a column's entries are not null, from the chunks' validity bitmaps (see
    ``_arrow_numbers``: no pandas)."""
    parts = []
    for chunk in col.chunks:
        bitmap = chunk.buffers()[0]
        if bitmap is None:  # no nulls in this chunk
            parts.append(np.ones(len(chunk), dtype=np.bool_))
            continue
        end = chunk.offset + len(chunk)
        bits = np.frombuffer(bitmap, dtype=np.uint8, count=(end + 7) // 8)
        parts.append(np.unpackbits(bits, count=end, bitorder="little")[chunk.offset :] > 0)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.bool_)


def parquet_table(arrays: Mapping[str, NDArray[Any]], header: Mapping[str, Any]) -> Any:
    """The Parquet table of an answer's columns (``ids``, ``value``, ``remoteness``, ``move``
    as written to ``.npz``) and header (with ``loopy``: id -> K)."""
    pa, _, _ = _pyarrow("<parquet>")
    ids = arrays["ids"]
    cols: dict[str, Any] = {"id": pa.array(ids), "value": pa.array(arrays["value"])}
    for spec in answer_columns():
        if spec.name in arrays:
            a = arrays[spec.name]
            cols[spec.name] = pa.array(a, mask=a < 0)  # -1 -> null
    loopy = header.get("loopy") or {}
    if loopy:
        rows = np.flatnonzero(np.isin(ids, [int(x) for x in loopy]))
        ks = [list(loopy[str(int(x))]) for x in ids[rows]]
        lengths = np.zeros(len(ids), dtype=np.int32)
        lengths[rows] = [len(k) for k in ks]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        flat = np.asarray([j for k in ks for j in k], dtype=np.int64)
        present = np.zeros(len(ids), dtype=np.bool_)
        present[rows] = True
        cols["loopy"] = pa.ListArray.from_arrays(
            pa.array(offsets), pa.array(flat), mask=pa.array(~present)
        )
    meta = {k: v for k, v in header.items() if k != "loopy"}
    return pa.table(cols).replace_schema_metadata({PARQUET_META_KEY: json.dumps(meta)})
