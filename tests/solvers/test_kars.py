"""Kars' score four ways (iteration, threshold levels, Alg. 6.7 DFS, Alg. 7.2 memo): hand-worked
graphs, Figure 1 against its closed forms, and random graphs compared pairwise."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pytest
from hypothesis import Phase, find, given, settings
from solver_strategies import minimax_graphs, play

from verifier.model import MAX, MIN, GameGraph, Semantics
from verifier.solvers._common import BudgetExceeded, VisitBudgetExceeded
from verifier.solvers.kars_dfs import kars_dfs, kars_dfs_all
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.kars_levels import kars_levels
from verifier.solvers.kars_memo import MemoTable, kars_memo, kars_memo_all

MM = Semantics.MINIMAX


def graph(
    succ: dict[str, Iterable[str]], owner: dict[str, int], value: dict[str, float]
) -> GameGraph:
    return GameGraph.from_successors(succ, semantics=MM, owner=owner, value=value)


def figure1(b: int, d: int) -> GameGraph:
    """Kars' Figure 1: a (Max) -> b (leaf), c; c (Min) -> d (leaf), a. Ids a, b, c, d = 0..3."""
    return graph(
        {"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []}, {"a": MAX, "c": MIN}, {"b": b, "d": d}
    )


def all_methods(g: GameGraph) -> dict[str, list[float]]:
    return {
        "iteration": kars_iteration(g).value.tolist(),
        "levels": kars_levels(g).value.tolist(),
        "dfs": kars_dfs_all(g).value.tolist(),
        "memo": kars_memo_all(g).value.tolist(),
        "memo-shared": kars_memo_all(g, shared=True).value.tolist(),
    }


# ---------------------------------------------------------------- Figure 1 (Example 3.2)
@pytest.mark.parametrize("b", range(-3, 4))
@pytest.mark.parametrize("d", range(-3, 4))
def test_figure1_closed_forms(b: int, d: int) -> None:
    a = max(b, min(d, 0))
    c = min(d, max(b, 0))
    for method, values in all_methods(figure1(b, d)).items():
        assert values == [a, b, c, d], method


def test_figure1_moves_and_remoteness() -> None:
    # b = 1 > 0: Max takes b at once; d = -2 < 0: Min takes d at once (Example 3.2).
    r = kars_levels(figure1(1, -2))
    assert r.value.tolist() == [1, 1, -2, -2]
    assert r.remoteness.tolist() == [1, 0, 1, 0]
    assert r.move.tolist() == [1, -1, 3, -1]
    # b < 0 < d: the draw. Max goes to c, Min offers the draw by moving back to a.
    r = kars_iteration(figure1(-1, 2))
    assert r.value.tolist() == [0, -1, 0, 2]
    assert r.remoteness.tolist() == [-1, 0, -1, 0]
    assert r.move.tolist() == [2, -1, 0, -1]
    assert r.work["rounds"] == 1


def test_figure1_visit_counts() -> None:
    g = figure1(-1, 2)
    # s a, s b, s c, s d, s a (marked: 0) -- five calls.
    assert kars_dfs(g, 0).visits == 5
    assert kars_memo(g, 0).visits == 5
    # From c: c, d, a, b, c (on the path).
    assert kars_dfs(g, 2).visits == 5


# ---------------------------------------------------------------- hand-worked graphs
def test_self_loops_are_draws() -> None:
    g = graph(
        {"x": ["x", "y"], "y": [], "z": ["z", "w"], "w": []},
        {"x": MAX, "z": MIN},
        {"y": -1.0, "w": 2.0},
    )  # ids x0 y1 z2 w3
    for method, values in all_methods(g).items():
        assert values == [0, -1, 0, 2], method
    r = kars_levels(g)
    assert r.move.tolist() == [0, -1, 2, -1]  # both stay on their loop
    assert r.remoteness.tolist() == [-1, 0, -1, 0]


def test_winner_hurries_loser_delays() -> None:
    # x (Max) -> y2, y1; y1 (Min) -> leaf +1 (one ply); y2 (Min) -> z (Max) -> leaf +1 (two).
    # n0 (Min) -> p (leaf +1), q (Max) -> r (leaf +1): Min loses 1 either way and delays via q.
    g = graph(
        {
            "x": ["y2", "y1"],
            "y2": ["z"],
            "z": ["w2"],
            "y1": ["w1"],
            "n0": ["p", "q"],
            "q": ["r"],
        },
        {"x": MAX, "y2": MIN, "z": MAX, "y1": MIN, "n0": MIN, "q": MAX},
        {"w2": 1.0, "w1": 1.0, "p": 1.0, "r": 1.0},
    )
    ids = {g.name(i): i for i in range(g.n)}
    for r in (kars_levels(g), kars_iteration(g)):
        val = dict(zip(g.names, r.value.tolist(), strict=True))
        rem = dict(zip(g.names, r.remoteness.tolist(), strict=True))
        assert all(v == 1.0 for v in val.values())
        assert rem == {
            "x": 2, "y2": 2, "z": 1, "y1": 1, "n0": 2, "q": 1, "w2": 0, "w1": 0, "p": 0, "r": 0
        }  # fmt: skip
        assert r.move[ids["x"]] == ids["y1"]  # least remoteness, not the smallest id
        assert r.move[ids["n0"]] == ids["q"]  # the loser delays


def test_value_change_and_rounds() -> None:
    # m0 (Max) -> m1, l0 = -1; m1 (Min) -> m2; m2 (Max) -> w = +3, l2 = +1.
    g = graph(
        {"m0": ["m1", "l0"], "m1": ["m2"], "m2": ["w", "l2"]},
        {"m0": MAX, "m1": MIN, "m2": MAX},
        {"l0": -1.0, "w": 3.0, "l2": 1.0},
    )
    r = kars_iteration(g)
    names = list(g.names)
    assert dict(zip(names, r.value.tolist(), strict=True)) == {
        "m0": 3, "m1": 3, "l0": -1, "m2": 3, "w": 3, "l2": 1
    }  # fmt: skip
    assert dict(zip(names, r.remoteness.tolist(), strict=True)) == {
        "m0": 3, "m1": 2, "l0": 0, "m2": 1, "w": 0, "l2": 0
    }  # fmt: skip
    # s_1 = leaves, s_2: m2 = 3, s_3: m1 = 3, s_4: m0 = 3 (it was 0 until then), s_5 = s_4.
    assert r.work["rounds"] == 4
    assert r.move[0] == names.index("m1")


def test_leaf_root_and_isolated_node() -> None:
    g = GameGraph.from_edges(1, [], [], semantics=MM, value=[2.5])
    assert kars_dfs(g, 0).value == 2.5 and kars_dfs(g, 0).visits == 1
    assert kars_memo(g, 0).value == 2.5
    assert kars_levels(g).value.tolist() == [2.5]
    assert kars_iteration(g).remoteness.tolist() == [0]


def test_bad_minimax_graphs_are_rejected() -> None:
    no_value = GameGraph.from_edges(2, [0], [1], semantics=MM, owner=[MAX, -1])
    with pytest.raises(ValueError, match="no finite value"):
        kars_levels(no_value)
    no_owner = GameGraph.from_edges(2, [0], [1], semantics=MM, value=[np.nan, 1.0])
    with pytest.raises(ValueError, match="neither max nor min"):
        kars_iteration(no_owner)


def test_dfs_budget() -> None:
    # A complete graph on 6 Max/Min nodes has 6! simple paths: far over a budget of 100.
    n = 6
    src = [i for i in range(n) for j in range(n) if i != j]
    dst = [j for i in range(n) for j in range(n) if i != j]
    g = GameGraph.from_edges(n, src, dst, semantics=MM, owner=[MAX, MIN] * 3)
    with pytest.raises(VisitBudgetExceeded):
        kars_dfs(g, 0, max_visits=100)
    full = kars_dfs(g, 0)
    assert full.value == 0 and full.visits > 100
    some = kars_dfs_all(g, max_visits=2 * full.visits)
    assert some.covered.tolist() == [True, True, False, False, False, False]
    assert math.isnan(some.value[2]) and some.total_visits == 2 * full.visits


def test_memo_table_can_be_shared() -> None:
    g = figure1(1, 2)
    table = MemoTable()
    first = kars_memo(g, 0, memo=table)
    again = kars_memo(g, 0, memo=table)
    assert first.value == again.value == 1
    assert again.visits == 1  # the root's memo has no dependencies left: one call


# ---------------------------------------------------------------- random graphs, pairwise
@settings(max_examples=500, deadline=None)
@given(minimax_graphs(max_nodes=8))
def test_all_methods_agree(g: GameGraph) -> None:
    it, lev = kars_iteration(g), kars_levels(g)
    assert it.value.tolist() == lev.value.tolist()
    assert it.remoteness.tolist() == lev.remoteness.tolist()
    assert it.move.tolist() == lev.move.tolist()
    assert kars_dfs_all(g).value.tolist() == it.value.tolist()
    assert kars_memo_all(g).value.tolist() == it.value.tolist()
    assert kars_memo_all(g, shared=True).value.tolist() == it.value.tolist()


@settings(max_examples=400, deadline=None)
@given(minimax_graphs(max_nodes=9))
def test_scores_solve_the_equations_and_moves_realise_them(g: GameGraph) -> None:
    r = kars_levels(g)
    s, move, rem = r.value.tolist(), r.move.tolist(), r.remoteness.tolist()
    for x in range(g.n):
        succ = g.successors(x).tolist()
        if not succ:  # (T)
            assert s[x] == g.value[x] and move[x] == -1
            continue
        best = max(s[y] for y in succ) if g.owner[x] == MAX else min(s[y] for y in succ)
        assert s[x] == best  # (MM)
        assert move[x] in succ and s[move[x]] == s[x]
        winner = s[x] != 0 and (s[x] > 0) == (g.owner[x] == MAX)
        if winner:  # the winner's move makes progress
            assert rem[move[x]] == rem[x] - 1
        # both players following the moves: the play ends on a leaf worth s(x), or it cycles
        # and s(x) = 0 (divergence = draw)
        end, plies = play(g, move, x)
        assert (s[x] == 0) if end < 0 else (g.value[end] == s[x])
        if s[x] != 0:
            assert plies <= rem[x] or not winner


@settings(max_examples=300, deadline=None)
@given(minimax_graphs(max_nodes=6, values=1))
def test_remoteness_is_the_first_round_at_the_final_value(g: GameGraph) -> None:
    # Recompute s_n by the definition with every round kept, independently of the solver.
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    s = [0.0] * g.n
    history = [s]
    for _ in range(4 * g.n + 2):
        s = [
            float(g.value[p])
            if ptr[p] == ptr[p + 1]
            else (max if g.owner[p] == MAX else min)(s[q] for q in idx[ptr[p] : ptr[p + 1]])
            for p in range(g.n)
        ]
        history.append(s)
    r = kars_iteration(g)
    assert r.value.tolist() == s
    for x in range(g.n):
        if s[x] != 0:
            first = next(k for k, h in enumerate(history) if h[x] == s[x])
            assert r.remoteness[x] == first - 1


# ---------------------------------------------------------------- the tests can fail
def naive_memo(g: GameGraph, root: int) -> float:
    """A deliberately wrong Alg. 7.2: memoizes every value, ignoring the dependency sets."""
    memo: dict[int, float] = {}
    path: set[int] = set()

    def c(p: int) -> float:  # recursion is fine in this tiny test-only mutant
        if p in path:
            return 0.0
        if p in memo:
            return memo[p]
        succ = g.successors(p).tolist()
        if not succ:
            v = float(g.value[p])
        else:
            path.add(p)
            vals = [c(q) for q in succ]
            path.discard(p)
            v = max(vals) if g.owner[p] == MAX else min(vals)
        memo[p] = v
        return v

    return c(root)


def test_example_7_1_defeats_naive_memoization() -> None:
    # r (Min) -> a, c; Figure 1 below with b = 1, d = 2. Visiting a first memoes c = min(d, 0) = 0
    # with a on the path; reusing it at r's second move gives 0, the true c is min(d, b) = 1.
    g = graph(
        {"r": ["a", "c"], "a": ["b", "c"], "c": ["d", "a"]},
        {"r": MIN, "a": MAX, "c": MIN},
        {"b": 1.0, "d": 2.0},
    )
    assert naive_memo(g, 0) == 0.0
    assert kars_memo(g, 0).value == kars_levels(g).value[0] == 1.0


def test_random_graphs_find_the_naive_memo_bug() -> None:
    bad = find(
        minimax_graphs(max_nodes=8),
        lambda g: any(naive_memo(g, x) != kars_levels(g).value[x] for x in range(g.n)),
        settings=settings(max_examples=2000, database=None, phases=[Phase.generate]),
    )
    assert bad.n >= 3  # Example 7.1 needs a cycle and a second path into it


def test_iteration_budget() -> None:
    # A path of 30 Max nodes to a +1 leaf needs 30 rounds of 30 edges.
    n = 31
    g = GameGraph.from_edges(
        n,
        range(n - 1),
        range(1, n),
        semantics=MM,
        owner=[MAX] * (n - 1) + [-1],
        value=[np.nan] * (n - 1) + [1.0],
    )
    assert kars_iteration(g).work["rounds"] == n
    with pytest.raises(BudgetExceeded):
        kars_iteration(g, max_edges=10 * g.m)
