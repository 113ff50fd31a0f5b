"""The engine's attractor (numpy frontiers and compiled queue): hand-checked games and
agreement with the reference."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest
from engine_strategies import FRONTIER_PATHS, force_frontier_path, graphs, random_graph
from hypothesis import given, settings

from verifier.engine import attractor_numpy
from verifier.engine.compiled import attractor_compiled
from verifier.model import GameGraph, Semantics
from verifier.solvers.attractor import attractor

SOLVE = pytest.mark.parametrize("solve", [attractor_numpy, attractor_compiled])
"""Each hand-checked test runs on both engine implementations."""


def reach(succ: dict[str, Iterable[str]], owner: dict[str, int], target: list[str]) -> GameGraph:
    return GameGraph.from_successors(
        succ, semantics=Semantics.REACHABILITY, owner=owner, target=target
    )


@SOLVE
def test_layers_and_strategies(solve: Any) -> None:
    # p0 chooses (OR), q1 needs all moves in W (AND); dead end e is not a target
    g = reach(
        {"p": ["q", "e"], "q": ["g", "r"], "r": ["g"], "s": ["e", "s"], "g": [], "e": []},
        owner={"p": 0, "q": 1, "r": 0, "s": 1},
        target=["g"],
    )
    r = solve(g)
    i = g.id_of
    assert {x: int(r.layer[i(x)]) for x in "pqrsge"} == {
        "p": 3,
        "q": 2,
        "r": 1,
        "s": -1,
        "g": 0,
        "e": -1,
    }
    assert r.win.tolist() == (r.layer >= 0).tolist()
    assert int(r.move[i("p")]) == i("q")  # player 0 lowers the layer
    assert int(r.move[i("r")]) == i("g")
    assert int(r.move[i("q")]) == -1  # player 1 inside W: no useful move
    assert int(r.move[i("s")]) == i("s")  # player 1 stays outside W (smallest id: s < e)
    assert int(r.move[i("g")]) == -1


@SOLVE
def test_infinite_play_is_player_one_s(solve: Any) -> None:
    g = reach({"a": ["b"], "b": ["a"], "t": []}, owner={"a": 0, "b": 0}, target=["t"])
    r = solve(g)
    assert r.win.tolist() == [False, False, True]


@SOLVE
def test_owner_is_required(solve: Any) -> None:
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.REACHABILITY)
    with pytest.raises(ValueError, match="no owner"):
        solve(g)


def _same(g: GameGraph) -> None:
    b = attractor(g)
    for a in (attractor_numpy(g), attractor_compiled(g)):
        assert a.win.tolist() == b.win.tolist()
        assert a.layer.tolist() == b.layer.tolist()
        assert a.move.tolist() == b.move.tolist()


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.REACHABILITY))
def test_agrees_with_reference(g: GameGraph) -> None:
    _same(g)


@pytest.mark.parametrize(("scalar", "scan"), FRONTIER_PATHS)
def test_scalar_and_numpy_steps_agree(
    monkeypatch: pytest.MonkeyPatch, scalar: int, scan: int
) -> None:
    force_frontier_path(monkeypatch, scalar, scan)
    rng = np.random.default_rng(11)
    for _ in range(150):
        _same(random_graph(rng, Semantics.REACHABILITY, 25))
