"""The engine's retrograde analysis (numpy frontiers and compiled queue): hand-checked graphs
and agreement with the reference."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest
from engine_strategies import FRONTIER_PATHS, force_frontier_path, graphs, random_graph
from hypothesis import given, settings

from verifier.engine import retrograde_numpy
from verifier.engine.compiled import retrograde_compiled
from verifier.model import GameGraph, Semantics
from verifier.solvers.retrograde import retrograde

SOLVE = pytest.mark.parametrize("solve", [retrograde_numpy, retrograde_compiled])
"""Each hand-checked test runs on both engine implementations."""


def normal(succ: dict[str, Iterable[str]], **value: float) -> GameGraph:
    return GameGraph.from_successors(succ, semantics=Semantics.NORMAL, value=value)


@SOLVE
def test_path_alternates_and_counts_plies(solve: Any) -> None:
    # a -> b -> c -> d, d lost: c won (1), b lost (2), a won (3)
    g = normal({"a": ["b"], "b": ["c"], "c": ["d"], "d": []})
    r = solve(g)
    assert r.label.tolist() == [1, -1, 1, -1]
    assert r.remoteness.tolist() == [3, 2, 1, 0]
    assert r.move.tolist() == [1, 2, 3, -1]


@SOLVE
def test_winner_hurries_loser_delays(solve: Any) -> None:
    # a: moves to lost t (0 plies) or to lost b (2 plies) -> won in 1 via t
    # b: moves to won c1 (1) or won c2 (rem 3 via the chain) -> lost, delays to c2
    g = normal(
        {
            "a": ["b", "t"],
            "b": ["c1", "c2"],
            "c1": ["t"],
            "c2": ["e"],
            "e": ["f"],
            "f": ["t"],
            "t": [],
        }
    )
    r = solve(g)
    ids = {x: g.id_of(x) for x in g.names}
    lab = {x: int(r.label[i]) for x, i in ids.items()}
    rem = {x: int(r.remoteness[i]) for x, i in ids.items()}
    assert lab == {"a": 1, "b": -1, "c1": 1, "c2": 1, "e": -1, "f": 1, "t": -1}
    assert rem == {"a": 1, "b": 4, "c1": 1, "c2": 3, "e": 2, "f": 1, "t": 0}
    assert int(r.move[ids["a"]]) == ids["t"]
    assert int(r.move[ids["b"]]) == ids["c2"]


@SOLVE
def test_cycle_and_draw_terminal_stay_unknown(solve: Any) -> None:
    # x <-> y cycle; z moves to a draw terminal d or into the cycle; s has only a self-loop
    g = normal({"x": ["y"], "y": ["x"], "z": ["d", "y"], "d": [], "s": ["s"]}, d=0.0)
    r = solve(g)
    assert r.label.tolist() == [0, 0, 0, 0, 0]
    assert r.remoteness.tolist() == [-1] * 5
    x, y, s = (g.id_of(k) for k in "xys")
    # unknown nodes move to their smallest unknown successor (y has a smaller id than d)
    assert r.move.tolist() == [y, x, y, -1, s]


@SOLVE
def test_won_terminal_makes_predecessor_lost(solve: Any) -> None:
    g = normal({"a": ["w"], "w": []}, w=1.0)
    r = solve(g)
    assert r.label.tolist() == [-1, 1]
    assert r.remoteness.tolist() == [1, 0]


def _same(g: GameGraph) -> None:
    b = retrograde(g)
    for a in (retrograde_numpy(g), retrograde_compiled(g)):
        assert a.label.tolist() == b.label.tolist()
        assert a.remoteness.tolist() == b.remoteness.tolist()
        assert a.move.tolist() == b.move.tolist()
        assert a.edges_scanned == b.edges_scanned


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_agrees_with_reference(g: GameGraph) -> None:
    _same(g)


@pytest.mark.parametrize(("scalar", "scan"), FRONTIER_PATHS)
def test_scalar_and_numpy_steps_agree(
    monkeypatch: pytest.MonkeyPatch, scalar: int, scan: int
) -> None:
    """Force every frontier through one path (scalar, numpy with de-duplication, numpy with
    a scan of the layer array; tiny chunks): same answers."""
    force_frontier_path(monkeypatch, scalar, scan)
    rng = np.random.default_rng(7)
    for _ in range(150):
        _same(random_graph(rng, Semantics.NORMAL, 25))


def test_long_path_many_layers() -> None:
    n = 3000
    g = GameGraph.from_edges(n, np.arange(n - 1) + 1, np.arange(n - 1), semantics=Semantics.NORMAL)
    r = retrograde_numpy(g)
    c = retrograde_compiled(g)
    for x in (r, c):
        assert x.remoteness.tolist() == list(range(n))
        assert x.label.tolist() == [(-1) ** (i + 1) for i in range(n)]
    assert r.rounds == n
    assert c.layers == n
