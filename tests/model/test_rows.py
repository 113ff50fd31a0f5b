"""Per-node reductions over out-edges (``verifier.model.rows``): the neutral entry after the last
edge must never change a row's answer, dead ends get ``empty`` whatever ``reduceat`` read."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import GameGraph, Semantics
from verifier.model.rows import edge_buffer, is_a_move, reduce_rows


def _graph(n: int, src: list[int], dst: list[int]) -> GameGraph:
    return GameGraph.from_edges(n, src, dst, semantics=Semantics.IMPARTIAL)


def test_by_hand_last_node_has_moves_and_dead_ends_sit_between() -> None:
    # 0 -> 1, 2; 1 dead end; 2 -> 0, 1, 3; 3 -> 3 (the last row runs into the neutral entry)
    g = _graph(4, [0, 0, 2, 2, 2, 3], [1, 2, 0, 1, 3, 3])
    per_edge = np.array([5, -7, 3, 9, 2, -4], dtype=np.int16)  # in CSR order
    buf = edge_buffer(g, np.int16)
    buf[: g.m] = per_edge
    assert reduce_rows(g, np.maximum, buf, -1).tolist() == [5, -1, 9, -4]
    assert reduce_rows(g, np.minimum, buf, 99).tolist() == [-7, 99, 2, -4]
    assert reduce_rows(g, np.minimum, buf, 99).dtype == np.int16
    hit = edge_buffer(g, np.bool_)
    hit[: g.m] = [False, True, False, False, False, False]
    assert reduce_rows(g, np.logical_or, hit, False).tolist() == [True, False, False, False]
    hit[: g.m] = True
    assert reduce_rows(g, np.logical_and, hit, False).tolist() == [True, False, True, True]


def test_trailing_dead_ends_read_the_neutral_entry_and_get_empty() -> None:
    g = _graph(4, [0, 0], [1, 2])  # nodes 1, 2, 3 are dead ends; their starts are m = 2
    buf = edge_buffer(g, np.int64)
    buf[: g.m] = [4, 6]
    assert reduce_rows(g, np.maximum, buf, -1).tolist() == [6, -1, -1, -1]
    assert reduce_rows(g, np.minimum, buf, -1).tolist() == [4, -1, -1, -1]


def test_no_moves_and_no_nodes() -> None:
    g = _graph(3, [], [])
    assert reduce_rows(g, np.maximum, edge_buffer(g, np.int64), -5).tolist() == [-5, -5, -5]
    e = _graph(0, [], [])
    assert reduce_rows(e, np.maximum, edge_buffer(e, np.int64), -1).tolist() == []


def test_a_buffer_of_the_wrong_length_or_an_unknown_reduction_is_refused() -> None:
    g = _graph(2, [0], [1])
    with pytest.raises(ValueError, match="m \\+ 1 = 2"):
        reduce_rows(g, np.maximum, np.zeros(1, dtype=np.int64), -1)
    with pytest.raises(ValueError, match="no neutral element for add"):
        reduce_rows(g, np.add, edge_buffer(g, np.int64), 0)


@st.composite
def _graph_and_values(draw: st.DrawFn) -> tuple[GameGraph, np.ndarray]:
    n = draw(st.integers(0, 10))
    edges = (
        draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=25))
        if n
        else set()
    )
    g = _graph(n, [e[0] for e in edges], [e[1] for e in edges])
    vals = draw(st.lists(st.integers(-(2**15), 2**15 - 1), min_size=g.m, max_size=g.m))
    return g, np.array(vals, dtype=np.int16)


@settings(max_examples=300, deadline=None)
@given(_graph_and_values())
def test_every_row_equals_its_reduction_node_by_node(case: tuple[GameGraph, np.ndarray]) -> None:
    g, vals = case
    for ufunc, fold in ((np.maximum, max), (np.minimum, min)):
        buf = edge_buffer(g, np.int16)
        buf[: g.m] = vals
        got = reduce_rows(g, ufunc, buf, 12345)
        for x in range(g.n):
            row = vals[g.succ_ptr[x] : g.succ_ptr[x + 1]].tolist()
            assert got[x] == (fold(row) if row else 12345)
    hit = edge_buffer(g, np.bool_)
    hit[: g.m] = vals > 0
    anyp = reduce_rows(g, np.logical_or, hit, False)
    assert anyp.tolist() == [
        bool((vals[g.succ_ptr[x] : g.succ_ptr[x + 1]] > 0).any()) for x in range(g.n)
    ]


def test_is_a_move_by_hand() -> None:
    # 0 -> 1, 2; 1 dead end; 2 -> 0, 1, 3; 3 -> 3
    g = _graph(4, [0, 0, 2, 2, 2, 3], [1, 2, 0, 1, 3, 3])
    assert is_a_move(g, np.array([2, -1, 3, 3])).tolist() == [True, False, True, True]
    assert is_a_move(g, np.array([0, 0, 2, 2**40])).tolist() == [False, False, False, False]
    assert is_a_move(g, np.array([-1, 1, -5, 4])).tolist() == [False, False, False, False]
