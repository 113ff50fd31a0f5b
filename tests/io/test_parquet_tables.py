"""A folder of Parquet graph tables (``nodes.parquet``, ``edges.parquet``) is a case: read by
``load_any`` and found by ``verify``'s discovery when named; any other folder is not."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from verifier.errors import CaseError
from verifier.io.discover import discover
from verifier.io.formats import load_any
from verifier.model import GameGraph, Semantics


def _tables(folder: Path) -> Path:
    from verifier.dataset.parquet_io import write_parquet_graph

    # hand-made: a -> b -> c, a -> c; c lost for its mover, so b won, a won (moving to c)
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": ["c"], "c": []}, semantics=Semantics.NORMAL
    )
    return write_parquet_graph(g, folder, root=0)


def test_tables_read_as_a_case(tmp_path: Path) -> None:
    case = load_any(_tables(tmp_path / "g"))
    assert case.id == "g" and case.path == tmp_path / "g" and case.root == 0
    assert case.semantics is Semantics.NORMAL
    assert [case.graph.names[i] for i in range(3)] == ["a", "b", "c"]
    assert case.graph.m == 3


def test_named_tables_are_one_case_and_other_folders_are_searched(tmp_path: Path) -> None:
    src = _tables(tmp_path / "g")
    found = discover([src]).cases
    assert [f.path for f in found] == [src] and found[0].error is None
    assert discover([tmp_path]).cases == ()  # under a folder: only case files are cases


def test_a_folder_without_tables_and_semantics_on_a_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(CaseError, match=r"empty: \$: a folder, not a case"):
        load_any(tmp_path / "empty")
    f = tmp_path / "x.json"
    f.write_text('{"semantics": "normal", "nodes": {"a": []}}')
    with pytest.raises(CaseError, match="--semantics is for Parquet tables"):
        load_any(f, semantics=Semantics.MINIMAX)
    # tables that store their semantics take the same one given, and refuse another
    assert load_any(_tables(tmp_path / "h"), semantics=Semantics.NORMAL).semantics.value == "normal"
    with pytest.raises(CaseError, match="stores 'normal', --semantics gives 'minimax'"):
        load_any(tmp_path / "h", semantics=Semantics.MINIMAX)
