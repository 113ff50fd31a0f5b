"""The engine's kernel helpers: CSR transposition, gathers, chunks, first matches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
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


def test_the_join_step_is_one_place_for_both_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``frontier.settle`` is the join step of the engine's propagation and of a shard's round
    on the sharded route (``dataset.round_rules.step``): weakened in that one place (every
    trigger taken for an OR), both routes give the same wrong label.

    By hand: d has no move (lost), b's only move reaches d (won), y's only move is to itself
    (drawn), x moves to b or y: drawn (no lost successor; not all successors won)."""
    from verifier.dataset.round_rules import RULES, step
    from verifier.engine import frontier
    from verifier.engine.retrograde import retrograde_numpy

    g = GameGraph.from_successors({"x": ["b", "y"], "b": ["d"], "y": ["y"]},
                                  semantics=Semantics.NORMAL)  # fmt: skip
    x = g.id_of("x")

    def by_the_shards() -> int:
        """x's label after the round that tells it b is won (x: counter 2, undecided)."""
        state = {"done": np.zeros(1, np.int8), "rank": np.full(1, -1, np.int32),
                 "counter": np.array([2], np.int32)}  # fmt: skip
        step(RULES[Semantics.NORMAL], state, np.array([0]), np.array([1], np.int8), None, 2)
        return int(state["done"][0])

    monkeypatch.setattr(frontier, "SCALAR_FRONTIER", 0)  # every frontier through settle
    assert int(retrograde_numpy(g).label[x]) == 0 and by_the_shards() == 0  # drawn, undecided
    right = frontier.settle
    monkeypatch.setattr(frontier, "settle", lambda p, o, a, *rest: right(p, True, False, *rest))
    assert int(retrograde_numpy(g).label[x]) == 1 and by_the_shards() == 1  # both: won
