"""Conversions to minimax: Kars' score through them equals retrograde analysis and the
attractor node by node (values, remoteness, moves)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from solver_strategies import normal_graphs, reachability_graphs

from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, Semantics
from verifier.model.results import View
from verifier.registry import Options
from verifier.solvers.attractor import attractor
from verifier.solvers.convert import (
    kars_via_minimax_solver,
    normal_to_minimax,
    reachability_to_minimax,
)
from verifier.solvers.kars_dfs import kars_dfs_all
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.kars_levels import kars_levels
from verifier.solvers.kars_memo import kars_memo_all
from verifier.solvers.retrograde import retrograde


def test_normal_split() -> None:
    # x -> y, y -> x, y -> t (t lost; d a draw terminal)
    g = GameGraph.from_successors(
        {"x": ["y"], "y": ["x", "t"], "t": [], "d": []},
        semantics=Semantics.NORMAL,
        value={"d": 0.0},
    )
    h, node_of = normal_to_minimax(g)
    assert list(h.names) == ["x+", "y+", "t+", "d+", "x-", "y-", "t-", "d-"]
    assert node_of.tolist() == [0, 1, 2, 3]
    assert h.successors(0).tolist() == [5] and h.successors(5).tolist() == [0, 2]
    assert h.owner.tolist() == [MAX, MAX, NOBODY, NOBODY, MIN, MIN, NOBODY, NOBODY]
    assert h.value[[2, 3, 6, 7]].tolist() == [-1, 0, 1, 0]
    s = kars_levels(h).value
    assert s[node_of].tolist() == retrograde(g).label.tolist() == [-1, 1, -1, 0]


def test_reachability_conversion() -> None:
    # a (player 0) -> b, g; b (player 1) -> a, e; g target with a move to e; e a dead end.
    g = GameGraph.from_successors(
        {"a": ["b", "g"], "b": ["a", "e"], "g": ["e"], "e": []},
        semantics=Semantics.REACHABILITY,
        owner={"a": 0, "b": 1, "g": 1},
        target=["g"],
    )
    h, node_of = reachability_to_minimax(g)
    assert h.succ_idx.tolist() == [1, 2, 0, 3]  # g lost its move
    assert h.owner.tolist() == [MAX, MIN, NOBODY, NOBODY]
    assert h.value[[2, 3]].tolist() == [1, -1]
    s = kars_levels(h).value
    assert s.tolist() == [1, -1, 1, -1]  # b escapes to the dead end e
    assert (s[node_of] == 1).tolist() == attractor(g).win.tolist()


@settings(max_examples=500, deadline=None)
@given(normal_graphs(max_nodes=8))
def test_retrograde_equals_kars_via_minimax(g: GameGraph) -> None:
    ret = retrograde(g)
    h, node_of = normal_to_minimax(g)
    lev, it = kars_levels(h), kars_iteration(h)
    assert lev.value[node_of].tolist() == ret.label.tolist()
    assert it.value.tolist() == lev.value.tolist()
    assert lev.remoteness[node_of].tolist() == ret.remoteness.tolist()
    via = kars_via_minimax_solver(Case(graph=g, id="t"), Options())
    assert via.view is View.LABEL
    assert via.values.tolist() == ret.label.tolist()
    assert via.remoteness is not None and via.move is not None
    assert via.remoteness.tolist() == ret.remoteness.tolist()
    assert via.move.tolist() == ret.move.tolist()


@settings(max_examples=200, deadline=None)
@given(normal_graphs(max_nodes=5))
def test_retrograde_equals_kars_searches(g: GameGraph) -> None:
    h, node_of = normal_to_minimax(g)
    want = retrograde(g).label.tolist()
    assert kars_dfs_all(h).value[node_of].tolist() == want
    assert kars_memo_all(h).value[node_of].tolist() == want


@settings(max_examples=500, deadline=None)
@given(reachability_graphs(max_nodes=9))
def test_attractor_equals_kars_via_minimax(g: GameGraph) -> None:
    att = attractor(g)
    h, node_of = reachability_to_minimax(g)
    s = kars_iteration(h).value[node_of]
    assert (s == 1).tolist() == att.win.tolist()
    via = kars_via_minimax_solver(Case(graph=g, id="t"), Options())
    assert via.view is View.REGION
    assert via.values.tolist() == att.win.astype(np.int8).tolist()
    assert via.remoteness is not None and via.move is not None
    assert via.remoteness.tolist() == att.layer.tolist()
    p0_in_w = (g.owner == 0) & att.win & ~g.target
    assert via.move[p0_in_w].tolist() == att.move[p0_in_w].tolist()
    p1_out = (g.owner == 1) & ~att.win & (g.out_degree > 0)
    assert not att.win[via.move[p1_out]].any()  # Kars' Min move also stays outside W
