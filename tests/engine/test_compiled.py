"""The compiled kernels (numba): the transposition, both index widths, many buckets and
threads, Kars' score, and agreement with the numpy engine and the references."""

from __future__ import annotations

import numpy as np
import pytest
from engine_strategies import graphs
from hypothesis import given, settings

from verifier.engine import (
    _kernels,
    attractor_numpy,
    compiled,
    frontier,
    grundy_numpy,
    kars_numpy,
    predecessor_csr,
    retrograde_numpy,
)
from verifier.engine.compiled import (
    attractor_compiled,
    grundy_compiled,
    kars_compiled,
    predecessor_csr_compiled,
    retrograde_compiled,
)
from verifier.errors import CycleError
from verifier.games.random_graphs import random_case
from verifier.model import MAX, MIN, GameGraph, Semantics
from verifier.model import graph as graph_module
from verifier.solvers.kars_levels import kars_levels


@settings(max_examples=200, deadline=None)
@given(graphs(Semantics.NORMAL, max_nodes=30))
def test_transposition_matches_numpy(g: GameGraph) -> None:
    a, b = predecessor_csr_compiled(g), predecessor_csr(g)
    assert a.ptr.tolist() == b.ptr.tolist()
    assert a.idx.tolist() == b.idx.tolist()


def test_transposition_by_hand() -> None:
    # 0 -> 2, 1 -> 2, 1 -> 0, 2 -> 2: predecessors 0: [1], 1: [], 2: [0, 1, 2]
    g = GameGraph.from_edges(3, [0, 1, 1, 2], [2, 2, 0, 2], semantics=Semantics.NORMAL)
    c = predecessor_csr_compiled(g)
    assert c.ptr.tolist() == [0, 1, 1, 4]
    assert c.idx.tolist() == [1, 0, 1, 2]


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_bucket_scatter_is_stable_for_any_thread_count(threads: int) -> None:
    """Many buckets (n > 2^BUCKET_BITS) split over 1..7 node ranges: the same CSR, with the
    predecessors of each node in increasing order."""
    g = random_case(Semantics.NORMAL, 3 * 2**_kernels.BUCKET_BITS + 5, 3.0, seed=threads).graph
    ptr, idx = g.succ_ptr.astype(np.int64), g.succ_idx.astype(np.int32)
    start, src, low = _kernels.bucket_scatter(ptr, idx, threads)
    pptr = np.empty(g.n + 1, dtype=np.int32)
    pptr[g.n] = g.m
    pidx = np.empty(g.m, dtype=np.int32)
    _kernels.bucket_sort(start, src, low, pptr, pidx)
    assert len(start) == (g.n >> _kernels.BUCKET_BITS) + 2
    assert pptr.tolist() == g.pred_ptr.tolist()
    assert pidx.tolist() == g.pred_idx.tolist()


def _same_retrograde(g: GameGraph) -> None:
    a, b = retrograde_compiled(g), retrograde_numpy(g)
    assert np.array_equal(a.label, b.label)
    assert np.array_equal(a.remoteness, b.remoteness)
    assert np.array_equal(a.move, b.move)
    assert a.edges_scanned == b.edges_scanned
    assert a.layers == b.rounds


def _same_attractor(g: GameGraph) -> None:
    a, b = attractor_compiled(g), attractor_numpy(g)
    assert np.array_equal(a.win, b.win)
    assert np.array_equal(a.layer, b.layer)
    assert np.array_equal(a.move, b.move)
    assert a.edges_scanned == b.edges_scanned


def _same_kars(g: GameGraph) -> None:
    a, b = kars_compiled(g, moves=True), kars_numpy(g, moves=True)
    assert np.array_equal(a.score, b.score)
    assert a.remoteness is not None and b.remoteness is not None
    assert np.array_equal(a.remoteness, b.remoteness)
    assert a.move is not None and np.array_equal(a.move, b.move)
    assert a.levels == b.levels
    assert a.edges_scanned == b.edges_scanned


@pytest.mark.parametrize("seed", [0, 1])
def test_large_graphs_agree_with_numpy(seed: int) -> None:
    """20,000 nodes: several buckets, long queues (the prefetch runs ahead), many layers."""
    _same_retrograde(random_case(Semantics.NORMAL, 20_000, 2.0 + seed, seed=seed).graph)
    _same_attractor(random_case(Semantics.REACHABILITY, 20_000, 2.0 + seed, seed=seed).graph)
    values = (-3, -2, -1, 0, 1, 2, 3)
    _same_kars(random_case(Semantics.MINIMAX, 20_000, 2.0 + seed, seed=seed, values=values).graph)
    _same_grundy(
        random_case(Semantics.IMPARTIAL, 20_000, 2.0 + seed, seed=seed, acyclic=True).graph
    )


def test_kars_figure_one() -> None:
    """Kars' Figure 1 (a Max, c Min, a -> b | c, c -> d | a): with b = -1, d = 2 the cycle is a
    draw (Max avoids b, Min avoids d); with b = 1 Max takes b at once, and Min at c prefers
    returning to a (worth 1) to d (worth 2)."""
    for b, d, want in [(-1.0, 2.0, [0.0, 0.0, -1.0, 2.0]), (1.0, 2.0, [1.0, 1.0, 1.0, 2.0])]:
        g = GameGraph.from_successors(
            {"a": ["b", "c"], "c": ["d", "a"]},
            semantics=Semantics.MINIMAX,
            owner={"a": MAX, "c": MIN},
            value={"b": b, "d": d},
        )
        r = kars_compiled(g, moves=True)
        assert r.score.tolist() == want
        assert r.remoteness is not None
        assert r.remoteness.tolist() == ([-1, -1, 0, 0] if b < 0 else [1, 2, 0, 0])


@settings(max_examples=200, deadline=None)
@given(graphs(Semantics.MINIMAX, max_nodes=14))
def test_kars_agrees_with_the_threshold_reference(g: GameGraph) -> None:
    a, b = kars_compiled(g, moves=True), kars_levels(g)
    assert a.score.tolist() == b.value.tolist()
    assert a.remoteness is not None
    assert a.remoteness.tolist() == b.remoteness.tolist()


def _same_grundy(g: GameGraph) -> None:
    a, b = grundy_compiled(g), grundy_numpy(g)
    assert np.array_equal(a.value, b.value)
    assert np.array_equal(a.height, b.height)
    assert a.edges_scanned == b.edges_scanned


def test_grundy_by_hand() -> None:
    # nim heap of 3 as a graph: h3 -> h2, h1, h0; h2 -> h1, h0; h1 -> h0; plus x -> h1, h2
    g = GameGraph.from_successors(
        {"h3": ["h2", "h1", "h0"], "h2": ["h1", "h0"], "h1": ["h0"], "h0": [], "x": ["h1", "h2"]},
        semantics=Semantics.IMPARTIAL,
    )
    r = grundy_compiled(g)
    assert {x: int(r.value[g.id_of(x)]) for x in g.names} == {
        "h3": 3,
        "h2": 2,
        "h1": 1,
        "h0": 0,
        "x": 0,  # mex{1, 2}
    }
    assert {x: int(r.height[g.id_of(x)]) for x in g.names} == {
        "h3": 3,
        "h2": 2,
        "h1": 1,
        "h0": 0,
        "x": 3,
    }


def test_grundy_names_a_cycle() -> None:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": []}, semantics=Semantics.IMPARTIAL
    )
    with pytest.raises(CycleError, match="a -> b -> c"):
        grundy_compiled(g)


@settings(max_examples=200, deadline=None)
@given(graphs(Semantics.IMPARTIAL, max_nodes=20, acyclic=True))
def test_grundy_agrees_with_numpy(g: GameGraph) -> None:
    _same_grundy(g)


def test_wide_indices_and_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Graphs past 2^31 edges or 2^30 nodes use 64-bit indices and state: the same answers
    (forced here on a small graph)."""
    monkeypatch.setattr(frontier, "index_dtype", lambda n: np.int64)
    monkeypatch.setattr(graph_module, "index_dtype", lambda n: np.int64)
    monkeypatch.setattr(compiled, "_state_dtype", lambda n, m: np.int64)
    wide = random_case(Semantics.NORMAL, 5_000, 2.5, seed=3).graph
    assert wide.succ_idx.dtype == np.int64 and frontier.successor_csr(wide).idx.dtype == np.int64
    _same_retrograde(wide)
    _same_attractor(random_case(Semantics.REACHABILITY, 5_000, 2.5, seed=3).graph)
    _same_kars(random_case(Semantics.MINIMAX, 5_000, 2.5, seed=3).graph)
    _same_grundy(random_case(Semantics.IMPARTIAL, 5_000, 2.5, seed=3, acyclic=True).graph)


def test_empty_and_edgeless_graphs() -> None:
    g = GameGraph.from_edges(4, [], [], semantics=Semantics.NORMAL, value=[1, -1, 0, np.nan])
    r = retrograde_compiled(g)
    assert r.label.tolist() == [1, -1, 0, -1]  # NaN: lost, as every unlabelled terminal
    assert r.remoteness.tolist() == [0, 0, -1, 0]
    assert r.move.tolist() == [-1] * 4
    assert r.layers == 1 and r.edges_scanned == 0
    d = GameGraph.from_edges(2, [], [], semantics=Semantics.NORMAL, value=[0, 0])
    assert retrograde_compiled(d).layers == 0


def test_self_loop_cycle_with_exit() -> None:
    # s loops on itself and may move to lost t: won; u only loops: unknown, moves to itself
    g = GameGraph.from_successors(
        {"s": ["s", "t"], "t": [], "u": ["u"]}, semantics=Semantics.NORMAL
    )
    r = retrograde_compiled(g)
    s, t, u = (g.id_of(x) for x in "stu")
    assert r.label.tolist() == [1, -1, 0]
    assert r.move.tolist() == [t, -1, u]
    assert s == 0
