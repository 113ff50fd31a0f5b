"""The engine's kernel helpers: CSR transposition, gathers, chunks, first matches."""

from __future__ import annotations

import itertools

import numpy as np
from engine_strategies import graphs
from hypothesis import given, settings

from verifier.engine.frontier import (
    edge_chunks,
    first_match_per_source,
    gather,
    predecessor_csr,
    successor_csr,
)
from verifier.model import GameGraph, Semantics


@settings(max_examples=200, deadline=None)
@given(graphs(Semantics.IMPARTIAL))
def test_predecessor_csr_matches_graph(g: GameGraph) -> None:
    fresh = GameGraph.from_edges(g.n, g.edge_src, g.succ_idx, semantics=g.semantics)
    p = predecessor_csr(fresh)  # computed by scipy (the graph has not derived it)
    assert p.ptr.tolist() == g.pred_ptr.tolist()
    assert p.idx.tolist() == g.pred_idx.tolist()
    assert predecessor_csr(fresh) is p  # cached


def test_gather_concatenates_rows() -> None:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": [], "c": ["a", "b", "c"]}, semantics=Semantics.IMPARTIAL
    )
    vals, counts = gather(successor_csr(g), np.array([2, 1, 0]))
    assert vals.tolist() == [0, 1, 2, 1, 2]
    assert counts.tolist() == [3, 0, 2]


def test_edge_chunks_cover_every_row_once() -> None:
    ptr = np.array([0, 5, 5, 6, 20, 21, 21, 30], dtype=np.int64)
    chunks = list(edge_chunks(ptr, 4))
    assert chunks[0][0] == 0 and chunks[-1][1] == 7
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(chunks))


def test_first_match_takes_smallest_successor() -> None:
    g = GameGraph.from_successors(
        {"a": ["b", "c", "d"], "b": ["d"], "c": [], "d": []}, semantics=Semantics.IMPARTIAL
    )
    code = np.array([9, 1, 2, 2])
    want = np.array([2, 7, -1, -1])  # a wants code 2 (c and d have it: c first), b wants 7
    assert first_match_per_source(successor_csr(g), want, code).tolist() == [2, -1, -1, -1]
