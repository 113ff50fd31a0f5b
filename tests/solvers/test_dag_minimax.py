"""DFS minimax on a DAG (Paul and Carole): values, moves, cycles refused, long paths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from solver_strategies import minimax_graphs

from verifier.errors import CycleError
from verifier.model import MAX, MIN, GameGraph, Semantics
from verifier.solvers.dag_minimax import dag_minimax
from verifier.solvers.kars_levels import kars_levels

MM = Semantics.MINIMAX


def test_values_and_moves_with_a_shared_position() -> None:
    # s (Paul) -> u, v; u (Carole) -> w, x; v (Carole) -> x, y; w = 5, x = 2, y = 7.
    # u = min(5, 2) = 2, v = min(2, 7) = 2, s = 2; x is shared (a proper semicycle).
    g = GameGraph.from_successors(
        {"s": ["u", "v"], "u": ["w", "x"], "v": ["x", "y"], "w": [], "x": [], "y": []},
        semantics=MM,
        owner={"s": MAX, "u": MIN, "v": MIN},
        value={"w": 5.0, "x": 2.0, "y": 7.0},
    )
    r = dag_minimax(g)
    assert r.value.tolist() == [2, 2, 2, 5, 2, 7]
    assert r.move.tolist() == [1, 4, 4, -1, -1, -1]  # ties: the smallest id (u before v)
    assert r.edges_scanned == g.m == 6
    assert r.visited.all()


def test_root_limits_the_search() -> None:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": [], "c": ["b"]}, semantics=MM, owner={"a": MAX, "c": MIN}, value={"b": 1}
    )
    r = dag_minimax(g, root=0)
    assert r.visited.tolist() == [True, True, False]
    assert r.value[0] == 1 and math.isnan(r.value[2])


def test_cycle_is_refused_with_its_nodes() -> None:
    g = GameGraph.from_successors(
        {"a": ["b", "z"], "b": ["c"], "c": ["a"], "z": []},
        semantics=MM,
        owner={"a": MAX, "b": MIN, "c": MAX},
        value={"z": 0},
    )
    with pytest.raises(CycleError) as err:
        dag_minimax(g)
    assert err.value.cycle == ("a", "b", "c")
    assert "a -> b -> c -> a" in str(err.value)


def test_self_loop_is_a_cycle() -> None:
    g = GameGraph.from_successors({"x": ["x", "y"], "y": []}, semantics=MM, owner={"x": MIN},
                                  value={"y": 1})  # fmt: skip
    with pytest.raises(CycleError) as err:
        dag_minimax(g)
    assert err.value.cycle == ("x",)


def test_long_path_needs_no_recursion() -> None:
    n = 200_000
    src = np.arange(n - 1)
    owner = np.where(np.arange(n) % 2 == 0, MAX, MIN)
    owner[-1] = -1
    value = np.full(n, np.nan)
    value[-1] = 3.0
    g = GameGraph.from_edges(n, src, src + 1, semantics=MM, owner=owner, value=value)
    r = dag_minimax(g)
    assert (r.value == 3.0).all()


@settings(max_examples=400, deadline=None)
@given(minimax_graphs(max_nodes=9, acyclic=True))
def test_agrees_with_kars_on_dags(g: GameGraph) -> None:
    r = dag_minimax(g)
    assert r.value.tolist() == kars_levels(g).value.tolist()
    for x in range(g.n):
        if g.successors(x).size:
            assert r.value[r.move[x]] == r.value[x]
