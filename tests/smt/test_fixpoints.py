"""lfp / gfp by propagation, Kars' clamp, attractor layers and derived labels."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from smt_reference import (
    all_solutions,
    attractor_ref,
    figure1,
    graphs,
    kars_iteration,
    retrograde,
)

from verifier.equations.fixpoints import BoolSystem, attractor, gfp, kars_clamp, least, lfp
from verifier.equations.rules import derived_labels, region_system
from verifier.equations.system import OrderSystem
from verifier.model import MAX, GameGraph, Semantics


def _vals(sys: OrderSystem, idx: np.ndarray) -> dict[str, float]:
    return {sys.graph.name(i): float(sys.levels[idx[i]]) for i in range(sys.n)}


def test_figure1_b_lt_d_interval_is_b_to_d() -> None:
    sys = OrderSystem.minimax(figure1(-1, 2))
    lo, hi = lfp(sys), gfp(sys)
    assert _vals(sys, lo) == {"a": -1, "c": -1, "b": -1, "d": 2}
    assert _vals(sys, hi) == {"a": 2, "c": 2, "b": -1, "d": 2}
    # Kars: a = b max (d min 0) = 0, c = d min (b max 0) = 0
    assert _vals(sys, kars_clamp(sys, lo, hi)) == {"a": 0, "c": 0, "b": -1, "d": 2}


def test_figure1_b_ge_d_unique() -> None:
    sys = OrderSystem.minimax(figure1(3, 2))
    lo, hi = lfp(sys), gfp(sys)
    assert np.array_equal(lo, hi)
    assert _vals(sys, lo) == {"a": 3, "c": 2, "b": 3, "d": 2}


def test_figure1_positive_interval_kars_takes_lower_end() -> None:
    sys = OrderSystem.minimax(figure1(1, 2))  # b < d, both positive: Kars a = 1
    k = kars_clamp(sys, lfp(sys), gfp(sys))
    assert _vals(sys, k)["a"] == 1 and _vals(sys, k)["c"] == 1


def test_self_loop_max_node_is_free_above_its_exit() -> None:
    g = GameGraph.from_successors(
        {"p": ["p", "q"]}, semantics=Semantics.MINIMAX, owner={"p": MAX}, value={"q": -1}
    )
    sys = OrderSystem.minimax(g)
    assert _vals(sys, lfp(sys))["p"] == -1
    assert _vals(sys, gfp(sys))["p"] == 0  # levels are t(F) ∪ {0} = {-1, 0}


def test_attractor_layers_by_hand() -> None:
    # x (player 0) -> y, t; y (player 1) -> t, z; z -> t (player 0); t target
    g = GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["t", "z"], "z": ["t"], "t": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "z": 0, "t": 0},
        target=["t"],
    )
    layer = attractor(region_system(g))
    assert dict(zip(g.names, layer.tolist(), strict=True)) == {"x": 1, "y": 2, "z": 1, "t": 0}


def test_restrict_keeps_only_the_chosen_move() -> None:
    g = GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["y"], "t": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 0, "t": 0},
        target=["t"],
    )
    rules = region_system(g)
    assert least(rules).tolist() == [True, False, True]
    bad = rules.restrict(np.array([1, -1, -1]))  # x plays to y: never reaches t
    assert least(bad).tolist() == [False, False, True]


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.MINIMAX, max_nodes=6))
def test_lfp_gfp_bound_every_solution_and_kars_is_the_clamp(g: GameGraph) -> None:
    sys = OrderSystem.minimax(g)
    lo, hi = sys.to_values(lfp(sys)), sys.to_values(gfp(sys))
    sols = np.array(all_solutions(g))
    assert len(sols)  # lfp is a solution, so there is one
    assert np.array_equal(sols.min(axis=0), lo)
    assert np.array_equal(sols.max(axis=0), hi)
    kars = np.array(kars_iteration(g))
    assert np.array_equal(sys.to_values(kars_clamp(sys, lfp(sys), gfp(sys))), kars)
    # every value of [lfp, gfp] is attained: clamp(v) is a solution for each level v
    for v in range(sys.top + 1):
        c = np.maximum(lfp(sys), np.minimum(gfp(sys), v))
        assert len(sys.violations(c)) == 0


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_derived_labels_match_the_queue(g: GameGraph) -> None:
    lab, rem = derived_labels(g)
    ref_lab, ref_rem, _ = retrograde(g)
    assert lab.tolist() == ref_lab
    assert rem.tolist() == ref_rem


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.REACHABILITY))
def test_attractor_matches_the_queue(g: GameGraph) -> None:
    layer = attractor(region_system(g))
    _, ref_layer, _ = attractor_ref(g)
    assert layer.tolist() == ref_layer


@settings(max_examples=40, deadline=None)
@given(graphs(Semantics.MINIMAX))
def test_greatest_is_complement_of_dual_least(g: GameGraph) -> None:
    sys = OrderSystem.minimax(g)
    for k in range(1, sys.top + 1):
        b = BoolSystem.threshold(sys, k)
        assert not (least(b) & ~(gfp(sys) >= k)).any()
