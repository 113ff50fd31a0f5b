"""Parquet tables: the input format a cluster user keeps large graphs in.

Input: a directory holding two tables (each a ``.parquet`` file or a directory of parts).

``nodes.parquet``

======== ========= ========================================================================
column   type      meaning
======== ========= ========================================================================
id       int64     node id; the ids are exactly ``0..n-1`` (any row order)
name     string    optional; the user's node name (default: the id)
owner    int8      optional; 0 = Max / player 0, 1 = Min / player 1, -1 = none (default -1)
value    float64   optional, nullable; ``minimax`` terminal value t(x), ``normal`` terminal
                   label (+1 won, -1 lost, 0 draw); null where there is none
target   bool      optional; ``reachability`` target set G (default false)
======== ========= ========================================================================

``edges.parquet``: ``src`` int64, ``dst`` int64, one row per move (no duplicates).

The semantics comes from the ``semantics`` key of the nodes table's schema metadata (written
by ``write_parquet_graph``) unless the caller passes it; an optional ``root`` key gives the
start position's id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numpy.typing import NDArray

from verifier.errors import CaseError
from verifier.io.limits import Limits
from verifier.model.graph import GameGraph, IntArray
from verifier.model.semantics import NOBODY, Semantics

__all__ = ["read_parquet_graph", "write_parquet_graph"]


def write_parquet_graph(graph: GameGraph, path: Path, *, root: int | None = None) -> Path:
    """Write ``graph`` as ``path/nodes.parquet`` and ``path/edges.parquet``; returns ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    meta = {"semantics": graph.semantics.value}
    if root is not None:
        meta["root"] = str(root)
    nodes = pa.table(
        {
            "id": pa.array(np.arange(graph.n, dtype=np.int64)),
            "name": pa.array(list(graph.names), type=pa.string()),
            "owner": pa.array(graph.owner),
            "value": pa.array(graph.value, from_pandas=True),  # NaN -> null
            "target": pa.array(graph.target),
        }
    ).replace_schema_metadata(meta)
    pq.write_table(nodes, path / "nodes.parquet")
    dst = graph.succ_idx.astype(np.int64)  # the format says int64 whatever the graph stores
    edges = pa.table({"src": pa.array(graph.edge_src), "dst": pa.array(dst)})
    pq.write_table(edges, path / "edges.parquet")
    return path


def read_parquet_graph(
    path: Path, semantics: Semantics | None = None, limits: Limits | None = None
) -> tuple[GameGraph, int | None]:
    """Read the node and edge tables under ``path``; returns the graph and the root (or None).
    The row counts the tables declare (Parquet metadata) are checked against ``limits``
    (``--max-positions``) before any table is read."""
    nodes_path, edges_path = path / "nodes.parquet", path / "edges.parquet"
    for p in (nodes_path, edges_path):
        if not p.exists():
            raise CaseError(str(path), "$", f"missing table {p.name}")
    try:
        rows = sum(pq.ParquetFile(p).metadata.num_rows for p in (nodes_path, edges_path))
    except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError
        raise CaseError(str(path), "$", f"not a Parquet table: {err}") from None
    (limits or Limits()).check_positions(rows, str(path), what=f"{rows:,} rows declared")
    nodes = pq.read_table(nodes_path)
    edges = pq.read_table(edges_path, columns=["src", "dst"])
    meta = {k.decode(): v.decode() for k, v in (nodes.schema.metadata or {}).items()}
    sem = _semantics(nodes_path, meta, semantics)
    order = _id_order(nodes_path, nodes)
    src = edges.column("src").to_numpy().astype(np.int64)
    dst = edges.column("dst").to_numpy().astype(np.int64)
    try:
        graph = GameGraph.from_edges(
            _names(nodes, order),
            src,
            dst,
            semantics=sem,
            owner=_node_column(nodes, order, "owner", np.int8, NOBODY),
            value=_node_column(nodes, order, "value", np.float64, np.nan),
            target=_node_column(nodes, order, "target", np.bool_, False),
        )
    except ValueError as err:
        raise CaseError(str(edges_path), "$", str(err)) from None
    root = int(meta["root"]) if "root" in meta else None
    return graph, root


def _semantics(nodes_path: Path, meta: dict[str, str], given: Semantics | None) -> Semantics:
    """The semantics stored in the nodes table's metadata, else the one the caller gave (both:
    they must agree)."""
    stored = meta.get("semantics")
    if given is not None and stored is not None and stored != given.value:
        raise CaseError(str(nodes_path), "$.metadata.semantics",
                        f"stores {stored!r}, --semantics gives {given.value!r}")  # fmt: skip
    name = given.value if given is not None else stored
    if name is None:
        raise CaseError(
            str(nodes_path),
            "$.metadata",
            "no semantics stored (its schema metadata's 'semantics' key) or given (--semantics)",
        )
    try:
        return Semantics(name)
    except ValueError:
        raise CaseError(str(nodes_path), "$.metadata.semantics", f"unknown {name!r}") from None


def _id_order(nodes_path: Path, nodes: pa.Table) -> IntArray:
    """The row order that sorts the nodes table by id (the ids must be exactly 0..n-1)."""
    if "id" not in nodes.column_names:
        raise CaseError(str(nodes_path), "$.id", "the nodes table needs an id column")
    ids = nodes.column("id").to_numpy().astype(np.int64)
    n = len(ids)
    order = np.argsort(ids, kind="stable")
    if not np.array_equal(ids[order], np.arange(n)):
        raise CaseError(str(nodes_path), "$.id", f"ids are not exactly 0..{n - 1}")
    return order.astype(np.int64)


def _node_column(
    nodes: pa.Table, order: IntArray, name: str, dtype: type[np.generic], fill: object
) -> NDArray[np.generic] | None:
    """An optional column of the nodes table in id order, nulls filled (``None`` if absent)."""
    if name not in nodes.column_names:
        return None
    col = nodes.column(name).fill_null(fill).to_numpy()
    return np.asarray(col, dtype=dtype)[order]


def _names(nodes: pa.Table, order: IntArray) -> list[str] | int:
    """The node names in id order, or the node count when the table has no names."""
    if "name" not in nodes.column_names:
        return len(order)
    return [str(x) for x in np.asarray(nodes.column("name").to_pylist(), dtype=object)[order]]
