"""The checks that compute their own answer also judge every solver's (issue 13): smt-uniqueness
(its ``smt-bounds`` results) and grundy-z3-mex (its answer-vs-solutions results).

Each test runs every registered solver on a small hand-made graph (answers worked out by hand
in the comments), then either keeps the answers (confirmed) or corrupts them identically in
*every* solver (``dataclasses.replace``), so that agreement between solvers cannot catch the
corruption, and calls the check's registered function directly: its judging result must refute
the corrupted answer at the corrupted node. Another check may catch the same corruption; only
this check's verdict is asserted here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from sg_graphs import impartial_graphs
from smt_reference import graphs, reference_results

from verifier.errors import NotApplicable
from verifier.model import GameGraph, Semantics, SolverResult, Verdict
from verifier.model.case import Case
from verifier.model.results import CheckResult
from verifier.model.semantics import MAX, MIN
from verifier.registry import CheckContext, Options, solvers_for
from verifier.smt import common
from verifier.smt.mex import COUNT, JUDGE, mex_check
from verifier.smt.uniqueness import BOUNDS, NAME, check_uniqueness

Corrupt = Callable[[GameGraph, SolverResult], SolverResult]
"""Turns a solver's answer for a graph into the corrupted one."""


def solve_all(g: GameGraph) -> dict[str, SolverResult]:
    """Every registered solver's answer for ``g`` (those that apply)."""
    case = Case(g, "judging")
    out: dict[str, SolverResult] = {}
    for spec in solvers_for(g.semantics):
        with contextlib.suppress(NotApplicable):
            out[spec.name] = spec.fn(case, Options())
    assert out, "no solver ran"
    return out


def run(
    check: Callable[[CheckContext], list[CheckResult]],
    g: GameGraph,
    corrupt: Corrupt | None = None,
) -> list[CheckResult]:
    """The check on every solver's answer, each corrupted the same way by ``corrupt``."""
    common.forget()
    results = solve_all(g)
    if corrupt is not None:
        results = {name: corrupt(g, r) for name, r in results.items()}
        answers = {r.values.tobytes() for r in results.values()}
        assert len(answers) == 1, "the corruption must leave every solver agreeing"
    return check(CheckContext(Case(g, "judging"), results, Options()))


def named(results: list[CheckResult], name: str) -> list[CheckResult]:
    """The results called ``name`` (one per distinct answer)."""
    found = [r for r in results if r.name == name]
    assert found, f"no {name!r} result among {[r.name for r in results]}"
    return found


def assert_refuted_at(results: list[CheckResult], name: str, node: str) -> Mapping[str, Any]:
    """Every ``name`` result refutes, naming ``node``; the first witness."""
    found = named(results, name)
    for r in found:
        assert r.verdict is Verdict.REFUTED, r.detail
        assert r.witness is not None and r.witness["node"] == node, r.witness
        assert r.witness["solvers"], r.witness
    witness = found[0].witness
    assert witness is not None
    return witness


def assert_confirmed(results: list[CheckResult], name: str) -> None:
    for r in named(results, name):
        assert r.verdict is Verdict.CONFIRMED, r.detail


def set_values(**values: float) -> Corrupt:
    """Every solver says ``node = value`` for the given nodes (a finite value; no K set)."""

    def corrupt(g: GameGraph, r: SolverResult) -> SolverResult:
        out = r.values.copy()
        loopy = dict(r.loopy or {})
        for node, v in values.items():
            out[g.id_of(node)] = v
            loopy.pop(g.id_of(node), None)
        return replace(r, values=out, loopy=loopy if r.loopy is not None else None)

    return corrupt


def graph(succ: dict[str, list[str]], sem: Semantics, **kw: Any) -> GameGraph:
    return GameGraph.from_successors(succ, semantics=sem, **kw)


# --------------------------------------------------------------------- minimax (smt-bounds)


def unique_minimax() -> GameGraph:
    """Kars' Figure 1 with b = 3 >= d = 2: a (Max) -> b, c; c (Min) -> d, a.

    a = max(3, c) >= 3, so c = min(2, a) = 2 and a = 3: the only solution, intervals [3, 3]
    for a and [2, 2] for c."""
    return graph(
        {"a": ["b", "c"], "c": ["d", "a"], "b": [], "d": []},
        Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": 3, "d": 2},
    )


def free_minimax() -> GameGraph:
    """Figure 1 with b = -1 < d = 2, and an isolated leaf e = 5 (so 5 is a value of the chain).

    a = max(-1, c), c = min(2, a): every a = c = v in {-1, 0, 2} solves it, intervals [-1, 2]
    for a and c; Kars' score (nearest the draw) is a = c = 0; e = 5."""
    return graph(
        {"a": ["b", "c"], "c": ["d", "a"], "b": [], "d": [], "e": []},
        Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2, "e": 5},
    )


def test_minimax_right_answers_are_within_the_bounds() -> None:
    for g in (unique_minimax(), free_minimax()):
        res = run(check_uniqueness, g)
        assert named(res, NAME)[0].verdict is Verdict.CONFIRMED
        assert_confirmed(res, BOUNDS)


def test_minimax_value_off_the_single_solution_is_refuted() -> None:
    """Every solver says a = 2 (a is 3 in the only solution)."""
    res = run(check_uniqueness, unique_minimax(), set_values(a=2.0))
    assert named(res, NAME)[0].data["unique"] is True  # the check's own finding is unchanged
    w = assert_refuted_at(res, BOUNDS, "a")
    assert w["value"] == 2.0 and w["interval"] == [3.0, 3.0]


def test_minimax_value_outside_the_interval_is_refuted() -> None:
    """Every solver says a = 5, a value of the chain (leaf e) but outside a's [-1, 2]."""
    res = run(check_uniqueness, free_minimax(), set_values(a=5.0))
    assert named(res, NAME)[0].data["intervals"]["a"] == [-1.0, 2.0]
    w = assert_refuted_at(res, BOUNDS, "a")
    assert w["value"] == 5.0 and w["interval"] == [-1.0, 2.0]


def test_minimax_value_not_in_the_chain_is_refuted() -> None:
    """Every solver says c = 1, not a leaf value nor 0: no solution takes it."""
    w = assert_refuted_at(run(check_uniqueness, free_minimax(), set_values(c=1.0)), BOUNDS, "c")
    assert w["value"] == 1.0


def test_minimax_other_solution_is_within_the_bounds() -> None:
    """a = c = 2 solves (T+MM) but is not Kars' score (0): within the intervals, so smt-bounds
    confirms it; telling it from Kars' least solution is smt-kars-least's job."""
    assert_confirmed(run(check_uniqueness, free_minimax(), set_values(a=2.0, c=2.0)), BOUNDS)


# --------------------------------------------------------------------- normal (smt-bounds)


def normal_graph() -> GameGraph:
    """a -> b; b -> a, t; t terminal (lost for the mover); c <-> d, a pure cycle.

    t is lost (-1), b has the lost successor t: won (+1), a's only successor b is won: lost
    (-1). c and d derive nothing: unknown (0). Without ranks c = +1, d = -1 (and the reverse)
    also satisfy the rules: not unique."""
    return graph({"a": ["b"], "b": ["a", "t"], "t": [], "c": ["d"], "d": ["c"]}, Semantics.NORMAL)


def test_normal_right_labels_are_the_proved_ones() -> None:
    res = run(check_uniqueness, normal_graph())
    assert named(res, NAME)[0].data["unique"] is False
    assert_confirmed(res, BOUNDS)


def test_normal_wrong_won_lost_label_is_refuted() -> None:
    """Every solver says a is won (it is lost: its only move reaches the won b)."""
    w = assert_refuted_at(run(check_uniqueness, normal_graph(), set_values(a=1.0)), BOUNDS, "a")
    assert (w["label"], w["proved"]) == ("won", "lost")


def test_normal_circular_labelling_is_refuted() -> None:
    """Every solver says c won, d lost: a solution of the rules without ranks (so equations
    alone accept it), but nothing derives it: c and d are unknown."""
    res = run(check_uniqueness, normal_graph(), set_values(c=1.0, d=-1.0))
    w = assert_refuted_at(res, BOUNDS, "c")
    assert (w["label"], w["proved"], w["interval"]) == ("won", "draw", [0.0, 0.0])


# --------------------------------------------------------------------- grundy (mex solutions)


def unique_grundy() -> GameGraph:
    """a -> b; b -> a, t; t terminal. Mex: t = 0, b = mex{a, 0} >= 1, a = mex{b}: a = 0 forces
    b = 1 (and a = mex{1} = 0 holds); a >= 1 is impossible (a = mex{b} with b >= 1 is 0). The
    only solution: a = 0, b = 1, t = 0, which is also the generalized function (all finite)."""
    return graph({"a": ["b"], "b": ["a", "t"], "t": []}, Semantics.IMPARTIAL)


def several_grundy() -> GameGraph:
    """a <-> b with exits a -> t, b -> u (docs/sprague-grundy.md). Mex: t = u = 0, a = mex{b, 0},
    b = mex{a, 0}: (a, b) = (1, 2) and (2, 1). The generalized values: a = b = inf(0) (each
    can win by moving to its exit, but b reverses a's 1 only through a itself)."""
    return graph({"a": ["b", "t"], "b": ["a", "u"], "t": [], "u": []}, Semantics.IMPARTIAL)


def draw_unique_grundy() -> GameGraph:
    """a -> b, c; b -> c; c -> a. Mex: c = mex{a}, b = mex{c}, a = mex{b, c}; the only solution
    is a = 2, b = 1, c = 0 (c = 0 forces b = 1, a = 2, and c = mex{2} = 0; c >= 1 needs a = 0,
    then b = 0 or c = 0 contradicts). No terminal: every play is infinite and every value is
    inf. A unique solution does not make the values finite."""
    return graph({"a": ["b", "c"], "b": ["c"], "c": ["a"]}, Semantics.IMPARTIAL)


def acyclic_below_grundy() -> GameGraph:
    """x -> t; t terminal; c <-> d. x reaches no cycle: x = mex{0} = 1; c = d = inf."""
    return graph({"x": ["t"], "t": [], "c": ["d"], "d": ["c"]}, Semantics.IMPARTIAL)


def loop_grundy() -> GameGraph:
    """v -> v, t; t terminal. v = mex{v, 0} cannot hold (v != v): no solution; v = inf(0)."""
    return graph({"v": ["v", "t"], "t": []}, Semantics.IMPARTIAL)


@pytest.mark.parametrize(
    "make", [unique_grundy, several_grundy, draw_unique_grundy, acyclic_below_grundy, loop_grundy]
)
def test_grundy_right_answers_match_the_solutions(make: Callable[[], GameGraph]) -> None:
    assert_confirmed(run(mex_check, make()), JUDGE)


def test_grundy_draws_with_a_unique_mex_solution_are_not_refuted() -> None:
    res = run(mex_check, draw_unique_grundy())
    assert named(res, COUNT)[0].data["solutions"] == "1"
    assert_confirmed(res, JUDGE)


def test_grundy_value_off_the_unique_solution_is_refuted() -> None:
    """Every solver says b = 2 (the only solution has b = 1)."""
    w = assert_refuted_at(run(mex_check, unique_grundy(), set_values(b=2)), JUDGE, "b")
    assert (w["value"], w["solutions"]) == (2, [1])


def test_grundy_finite_where_solutions_differ_is_refuted() -> None:
    """Every solver says a = 1, b = 2: a solution of the mex equations (so the mex constraints
    hold), but there is another, so a and b are infinite."""
    res = run(mex_check, several_grundy(), set_values(a=1, b=2))
    assert named(res, COUNT)[0].data["solutions"] == "several"
    w = assert_refuted_at(res, JUDGE, "a")
    assert w["solutions"] == [1, 2]


def test_grundy_infinite_where_no_cycle_is_reachable_is_refuted() -> None:
    """Every solver says x = inf(0) (x reaches no cycle: x = 1)."""

    def corrupt(g: GameGraph, r: SolverResult) -> SolverResult:
        x = g.id_of("x")
        out = r.values.copy()
        out[x] = -1
        return replace(r, values=out, loopy={**(r.loopy or {}), x: (0,)})

    assert_refuted_at(run(mex_check, acyclic_below_grundy(), corrupt), JUDGE, "x")


def test_grundy_all_finite_without_a_solution_is_refuted() -> None:
    """Every solver says v = 1: no value is infinite, but the mex equations have no solution;
    v's equation fails (mex{1, 0} = 2)."""
    res = run(mex_check, loop_grundy(), set_values(v=1))
    assert named(res, COUNT)[0].data["solutions"] == "0"
    w = assert_refuted_at(res, JUDGE, "v")
    assert (w["value"], w["mex"]) == (1, 2)


# --------------------------------------------------------------------- random graphs


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.MINIMAX))
def test_right_scores_are_within_the_bounds_on_random_graphs(g: GameGraph) -> None:
    common.forget()
    res = check_uniqueness(CheckContext(Case(g, "judging"), reference_results(g), Options()))
    assert_confirmed(res, BOUNDS)


@settings(max_examples=60, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_right_labels_are_the_proved_ones_on_random_graphs(g: GameGraph) -> None:
    common.forget()
    res = check_uniqueness(CheckContext(Case(g, "judging"), reference_results(g), Options()))
    assert_confirmed(res, BOUNDS)


@settings(max_examples=60, deadline=None)
@given(impartial_graphs())
def test_right_grundy_values_match_the_solutions_on_random_graphs(g: GameGraph) -> None:
    """The generalized function of every solver (cycles, self-loops, draws) is never refuted."""
    assert_confirmed(run(mex_check, g), JUDGE)


def test_corruptions_reach_every_solver() -> None:
    """The helper corrupts the answer of every solver that ran (several on a DAG)."""
    g = graph({"a": ["t"], "t": []}, Semantics.IMPARTIAL)
    results = solve_all(g)
    assert len(results) > 1
    bad = {n: set_values(a=3)(g, r) for n, r in results.items()}
    assert all(int(r.values[g.id_of("a")]) == 3 for r in bad.values())
    assert all(np.array_equal(r.values, next(iter(bad.values())).values) for r in bad.values())
