"""Z3 mex constraints: confirmed on correct values, refuted naming a corrupted node, and the
number of solutions of the mex equations on cyclic graphs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sg_graphs import impartial_graphs, loopy_graph

from verifier.games.nim import nim_position
from verifier.games.octal import octal_game
from verifier.model import Case, Expect, GameGraph, Semantics, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.smt.mex import check_counter, check_values, count_solutions
from verifier.solvers.grundy import grundy_values, mex
from verifier.solvers.loopy_grundy import loopy_grundy

OPTS = Options()


def test_correct_values_confirmed_and_unique() -> None:
    g = nim_position([2, 3, 4]).graph
    values = grundy_values(g)
    assert check_values(g, values, OPTS).verdict is Verdict.CONFIRMED
    res = count_solutions(g, OPTS, values)
    assert res.verdict is Verdict.CONFIRMED and res.data["unique"] is True


@pytest.mark.parametrize("node", ["0,0,0", "1,1,1", "2,3,4", "2,0,1"])
def test_corrupted_value_is_refuted_naming_the_node(node: str) -> None:
    g = nim_position([2, 3, 4]).graph
    values = grundy_values(g).copy()
    values[g.id_of(node)] += 1
    res = check_values(g, values, OPTS)
    assert res.verdict is Verdict.REFUTED
    assert res.witness is not None and res.witness["node"] == node


@settings(max_examples=40, deadline=None)
@given(impartial_graphs(max_nodes=7, acyclic=True), st.data())
def test_any_single_corruption_is_named(g: GameGraph, data: st.DataObject) -> None:
    values = grundy_values(g).copy()
    x = data.draw(st.integers(0, g.n - 1))
    values[x] = data.draw(st.sampled_from([v for v in range(g.n + 2) if v != values[x]]))
    res = check_values(g, values, OPTS)
    assert res.verdict is Verdict.REFUTED
    assert res.witness is not None and res.witness["node"] == g.name(x)


def test_solution_counts_on_cycles() -> None:
    two = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.IMPARTIAL)
    res = count_solutions(two, OPTS)
    assert res.data["solutions"] == "several" and res.witness is not None
    loop = GameGraph.from_successors({"a": ["a"]}, semantics=Semantics.IMPARTIAL)
    assert count_solutions(loop, OPTS).data["solutions"] == "0"
    three = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": ["a"]}, semantics=Semantics.IMPARTIAL
    )
    assert count_solutions(three, OPTS).data["solutions"] == "0"
    # a 2-cycle with an exit: a <-> b, b -> t: only a = 0, b = 1, t = 0
    exit_ = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "t"], "t": []}, semantics=Semantics.IMPARTIAL
    )
    assert count_solutions(exit_, OPTS).data["solutions"] == "1"


def test_expect_unique_is_compared() -> None:
    two = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.IMPARTIAL)
    res = count_solutions(two, OPTS, expect_unique=True)
    assert res.verdict is Verdict.REFUTED


def test_loopy_values_checked_on_finite_nodes() -> None:
    g = loopy_graph()
    r = loopy_grundy(g)
    assert check_values(g, r.values, OPTS).verdict is Verdict.CONFIRMED
    bad = r.values.copy()
    bad[g.id_of("x")] = 0
    res = check_values(g, bad, OPTS)
    assert res.verdict is Verdict.REFUTED and res.witness is not None
    assert res.witness["node"] == "x"


def test_pipeline_on_a_generated_octal_game() -> None:
    report = run_case(octal_game(".07", 12))
    assert report.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.verdict, c.detail) for c in report.checks if c.verdict is not Verdict.CONFIRMED
    ]


def test_pipeline_refutes_a_wrong_expected_grundy_value() -> None:
    case = nim_position([1, 2])
    assert case.expect is not None and case.root is not None
    wrong = dict(case.expect.grundy)
    wrong[case.root] = 0
    bad = Case(graph=case.graph, id="bad", root=case.root, expect=Expect(grundy=wrong))
    assert run_case(bad).verdict is CaseVerdict.REFUTED
    assert not np.any(grundy_values(case.graph) < 0)


def _brute_force_solutions(g: GameGraph) -> list[list[int]]:
    """Every solution of the mex equations, by enumeration (values up to the out-degree)."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    deg = [ptr[x + 1] - ptr[x] for x in range(g.n)]
    found = []
    for values in itertools.product(*(range(d + 1) for d in deg)):
        if all(values[x] == mex(values[y] for y in idx[ptr[x] : ptr[x + 1]]) for x in range(g.n)):
            found.append(list(values))
    return found


@settings(max_examples=80, deadline=None)
@given(impartial_graphs(max_nodes=5, acyclic=False))
def test_solution_count_equals_brute_force(g: GameGraph) -> None:
    brute = _brute_force_solutions(g)
    res = count_solutions(g, OPTS)
    assert res.data["solutions"] == ("0" if not brute else "1" if len(brute) == 1 else "several")
    if res.witness is not None:
        for key in ("solution_1", "solution_2"):
            assert [res.witness[key][g.name(x)] for x in range(g.n)] in brute


def test_counter_check_tells_the_generalized_function_from_a_mex_solution() -> None:
    # a <-> b, each with an exit to an end: the mex equations are solved by a = 1, b = 2, but
    # a's larger option b reverses only through a itself: no counter, condition B fails; the
    # generalized function is inf(0) at a and b (both win by moving to their end)
    g = GameGraph.from_successors(
        {"a": ["b", "t"], "b": ["a", "u"], "t": [], "u": []}, semantics=Semantics.IMPARTIAL
    )
    claimed = np.array([1, 2, 0, 0], dtype=np.int64)
    assert check_values(g, claimed, OPTS).verdict is Verdict.CONFIRMED
    res = check_counter(g, claimed, OPTS)
    assert res.verdict is Verdict.REFUTED and res.witness is not None
    assert res.witness["node"] == "a"
    r = loopy_grundy(g)
    assert r.values.tolist() == [-1, -1, 0, 0]
    assert check_counter(g, r.values, OPTS).verdict is Verdict.CONFIRMED
    assert check_counter(loopy_graph(), loopy_grundy(loopy_graph()).values, OPTS).verdict is (
        Verdict.CONFIRMED
    )


@settings(max_examples=60, deadline=None)
@given(impartial_graphs(max_nodes=8, acyclic=False))
def test_loopy_values_pass_both_z3_checks(g: GameGraph) -> None:
    r = loopy_grundy(g)
    assert check_values(g, r.values, OPTS).verdict is Verdict.CONFIRMED
    assert check_counter(g, r.values, OPTS).verdict is Verdict.CONFIRMED


def test_registered_check_names_the_corrupted_node_of_a_solver_answer() -> None:
    from verifier.model import SolverResult
    from verifier.model.results import View
    from verifier.registry import CheckContext
    from verifier.smt.mex import mex_check

    case = octal_game(".77", 8)
    good = grundy_values(case.graph)
    bad = good.copy()
    node = case.graph.id_of("6+1")
    bad[node] ^= 1
    results = {
        "right": SolverResult("right", View.GRUNDY, good),
        "wrong": SolverResult("wrong", View.GRUNDY, bad),
    }
    checks = mex_check(CheckContext(case=case, results=results, options=OPTS))
    verdicts = {c.name: c.verdict for c in checks}
    assert verdicts["grundy mex constraints of right (Z3)"] is Verdict.CONFIRMED
    wrong = next(c for c in checks if c.name == "grundy mex constraints of wrong (Z3)")
    assert wrong.verdict is Verdict.REFUTED and wrong.witness is not None
    assert wrong.witness["node"] == "6+1"
