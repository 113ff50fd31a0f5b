"""Kars' score on the engine: hand-checked graphs, Def. 4.1 directly, and the references."""

from __future__ import annotations

import numpy as np
import pytest
from engine_strategies import FRONTIER_PATHS, force_frontier_path, graphs, random_graph
from hypothesis import given, settings

from verifier.engine import kars_numpy
from verifier.model import MAX, MIN, GameGraph, Semantics
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.kars_levels import kars_levels


def def_4_1(g: GameGraph) -> list[float]:
    """Kars' Def. 4.1 verbatim: s_0 = 0, s_{n+1} = A s_n until it stops changing."""
    n = g.n
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    owner, t = g.owner.tolist(), g.value.tolist()
    s = [0.0] * n
    for _ in range(4 * n * n + 4):  # values move monotonically away from 0: this bound is ample
        nxt = [
            t[x]
            if ptr[x] == ptr[x + 1]
            else (max if owner[x] == MAX else min)(s[y] for y in idx[ptr[x] : ptr[x + 1]])
            for x in range(n)
        ]
        if nxt == s:
            return s
        s = nxt
    raise AssertionError("Def. 4.1 did not converge")


def figure1(b: float, d: float) -> GameGraph:
    return GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": b, "d": d},
    )


@pytest.mark.parametrize(
    ("b", "d", "a", "c"),
    [
        (-1.0, 2.0, 0.0, 0.0),  # the cycle a -> c -> a is a draw (Kars Example 3.2)
        (1.0, 2.0, 1.0, 1.0),  # Max takes b; Min at c chooses between d = 2 and a = 1
        (-2.0, -1.0, -1.0, -1.0),  # Min forces d = -1; Max at a prefers c (-1) to b (-2)
        (3.0, -1.0, 3.0, -1.0),
    ],
)
def test_figure_1(b: float, d: float, a: float, c: float) -> None:
    g = figure1(b, d)
    assert kars_numpy(g).score.tolist() == [a, c, b, d]


def test_self_loops_and_levels() -> None:
    # m (Max) loops on itself or takes -1: the loop is a draw, 0 > -1
    # n (Min) loops or takes 5: the loop (0) < 5; k (Max) chooses 2 or 7 via Min node j
    g = GameGraph.from_successors(
        {"m": ["m", "l"], "n": ["n", "h"], "k": ["x", "j"], "j": ["y", "z"]},
        semantics=Semantics.MINIMAX,
        owner={"m": MAX, "n": MIN, "k": MAX, "j": MIN},
        value={"l": -1.0, "h": 5.0, "x": 2.0, "y": 7.0, "z": 9.0},
    )
    s = dict(zip(g.names, kars_numpy(g).score.tolist(), strict=True))
    assert s == {"m": 0.0, "n": 0.0, "k": 7.0, "j": 7.0, "l": -1, "h": 5, "x": 2, "y": 7, "z": 9}


def test_thousands_of_random_graphs_against_def_4_1() -> None:
    rng = np.random.default_rng(2024)
    for _ in range(3000):
        g = random_graph(rng, Semantics.MINIMAX, 14)
        assert kars_numpy(g).score.tolist() == def_4_1(g)


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.MINIMAX))
def test_agrees_with_def_4_1_and_references(g: GameGraph) -> None:
    s = kars_numpy(g).score.tolist()
    assert s == def_4_1(g)
    assert s == kars_iteration(g).value.tolist()
    assert s == kars_levels(g).value.tolist()


def test_moves_and_remoteness_by_hand() -> None:
    # k (Max) takes x = 2 or goes to j (Min) over the leaves 7 and 9, so s(k) = s(j) = 7.
    # Max wins at s > 0 and moves to j (remoteness 1); j (Min, the loser) moves to y = 7.
    g = GameGraph.from_successors(
        {"k": ["x", "j"], "j": ["y", "z"], "w": ["w", "y"]},
        semantics=Semantics.MINIMAX,
        owner={"k": MAX, "j": MIN, "w": MIN},
        value={"x": 2.0, "y": 7.0, "z": 9.0},
    )
    r = kars_numpy(g, moves=True)
    i = g.id_of
    assert r.score.tolist() == [7.0, 7.0, 0.0, 2.0, 7.0, 9.0]
    assert r.remoteness is not None and r.move is not None
    assert r.remoteness.tolist() == [2, 1, -1, 0, 0, 0]
    assert int(r.move[i("k")]) == i("j")
    assert int(r.move[i("j")]) == i("y")
    assert int(r.move[i("w")]) == i("w")  # Min keeps the draw (the self-loop, 0 < 7)
    assert r.move[[i("x"), i("y"), i("z")]].tolist() == [-1, -1, -1]


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.MINIMAX))
def test_remoteness_and_moves_agree_with_references(g: GameGraph) -> None:
    a, b, c = kars_numpy(g, moves=True), kars_levels(g), kars_iteration(g)
    assert a.remoteness is not None and a.move is not None
    assert a.remoteness.tolist() == b.remoteness.tolist() == c.remoteness.tolist()
    assert a.move.tolist() == b.move.tolist() == c.move.tolist()


@pytest.mark.parametrize(("scalar", "scan"), FRONTIER_PATHS)
def test_scalar_and_numpy_steps_agree(
    monkeypatch: pytest.MonkeyPatch, scalar: int, scan: int
) -> None:
    force_frontier_path(monkeypatch, scalar, scan)
    rng = np.random.default_rng(5)
    for _ in range(150):
        g = random_graph(rng, Semantics.MINIMAX, 25)
        assert kars_numpy(g).score.tolist() == def_4_1(g)


def test_many_distinct_values() -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        g0 = random_graph(rng, Semantics.MINIMAX, 30)
        t = np.where(g0.is_terminal, rng.normal(size=g0.n), np.nan)
        g = g0.replace(value=t)
        assert kars_numpy(g).score.tolist() == def_4_1(g)


def test_rejects_missing_value_and_owner() -> None:
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.MINIMAX, owner=[MAX, -1])
    with pytest.raises(ValueError, match="no finite value"):
        kars_numpy(g)
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.MINIMAX, value=[np.nan, 1.0])
    with pytest.raises(ValueError, match="neither max nor min"):
        kars_numpy(g)
