"""Parquet node / edge tables: round trips and the errors on malformed tables."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from dist_graphs import SEMANTICS, small_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.errors import CaseError
from verifier.model import GameGraph, Semantics

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from verifier.dataset.parquet_io import read_parquet_graph, write_parquet_graph  # noqa: E402


def same_graph(a: GameGraph, b: GameGraph) -> bool:
    return (
        a.semantics is b.semantics
        and np.array_equal(a.succ_ptr, b.succ_ptr)
        and np.array_equal(a.succ_idx, b.succ_idx)
        and np.array_equal(a.owner, b.owner)
        and np.array_equal(a.value, b.value, equal_nan=True)
        and np.array_equal(a.target, b.target)
        and list(a.names) == list(b.names)
    )


@pytest.mark.parametrize("sem", SEMANTICS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_round_trip(sem: Semantics, data: st.DataObject) -> None:
    g = data.draw(small_graphs(sem))
    g = g.replace(names=tuple(f"p{i}" for i in range(g.n)))
    root = data.draw(st.integers(0, g.n - 1))
    with tempfile.TemporaryDirectory() as tmp:
        back, back_root = read_parquet_graph(write_parquet_graph(g, Path(tmp), root=root))
    assert same_graph(g, back) and back_root == root


def test_rows_in_any_order_and_optional_columns(tmp_path: Path) -> None:
    # nodes given in reverse id order, without name/owner/target: ids become the names
    nodes = pa.table({"id": [2, 1, 0], "value": [None, -1.0, None]})
    pq.write_table(nodes, tmp_path / "nodes.parquet")
    pq.write_table(pa.table({"src": [0, 2], "dst": [1, 0]}), tmp_path / "edges.parquet")
    g, root = read_parquet_graph(tmp_path, Semantics.NORMAL)
    assert root is None and list(g.names) == ["0", "1", "2"]
    assert np.isnan(g.value[0]) and g.value[1] == -1.0 and g.owner.tolist() == [-1, -1, -1]
    assert g.successors(2).tolist() == [0]


@pytest.mark.parametrize(
    ("nodes", "edges", "semantics", "message"),
    [
        ({"id": [0, 2]}, {"src": [0], "dst": [1]}, Semantics.NORMAL, r"not exactly 0\.\.1"),
        ({"id": [0, 1]}, {"src": [0, 0], "dst": [1, 1]}, Semantics.NORMAL, "duplicate edge"),
        ({"id": [0, 1]}, {"src": [0], "dst": [5]}, Semantics.NORMAL, "out of range"),
        ({"id": [0, 1]}, {"src": [0], "dst": [1]}, None, "no semantics"),
        ({"name": ["a"]}, {"src": [], "dst": []}, Semantics.NORMAL, "id column"),
    ],
)
def test_malformed_tables(
    tmp_path: Path,
    nodes: dict[str, list[object]],
    edges: dict[str, list[int]],
    semantics: Semantics | None,
    message: str,
) -> None:
    pq.write_table(pa.table(nodes), tmp_path / "nodes.parquet")
    pq.write_table(
        pa.table({k: pa.array(v, type=pa.int64()) for k, v in edges.items()}),
        tmp_path / "edges.parquet",
    )
    with pytest.raises(CaseError, match=message):
        read_parquet_graph(tmp_path, semantics)


def test_missing_table(tmp_path: Path) -> None:
    pq.write_table(pa.table({"id": [0]}), tmp_path / "nodes.parquet")
    with pytest.raises(CaseError, match=r"edges\.parquet"):
        read_parquet_graph(tmp_path, Semantics.NORMAL)


def test_declared_rows_over_the_limit_are_refused_before_reading(tmp_path: Path) -> None:
    # a -> b, b -> c: 3 nodes + 2 moves = 5 positions, declared in the Parquet metadata
    from verifier.io.limits import Limits

    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    out = write_parquet_graph(g, tmp_path)
    assert read_parquet_graph(out, limits=Limits(max_positions=5))[0].n == 3
    with pytest.raises(CaseError, match="5 rows declared: too big to process") as e:
        read_parquet_graph(out, limits=Limits(max_positions=4))
    assert "\n" not in str(e.value)
