"""``grundy-loopy-compiled``: Fraenkel and Yesha's labelling compiled, against graphs worked out
by hand and against the pure-Python reference ``loopy_grundy`` (values, K-sets, counters,
classes, moves), and ``grundy-loopy-classes`` on its answer beyond the reference sizes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sg_graphs import LOOPY_VALUES, impartial_graphs, loopy_graph

from verifier.checks.loopy_classes import loopy_classes_check
from verifier.engine.compiled import grundy_compiled, loopy_grundy_compiled
from verifier.games.random_graphs import random_case
from verifier.model import Case, GameGraph, Semantics, Verdict
from verifier.model.columns import LOOPY, VALUE
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import CheckContext, Options
from verifier.solvers.engine_solvers import grundy_loopy_compiled_solver
from verifier.solvers.loopy_grundy import (
    GValue,
    gsg_bad_nodes,
    gsg_violations,
    loopy_grundy,
    loopy_grundy_solver,
    outcome_classes,
    render,
)

pytest.importorskip("numba")

COMPILED = Options(engine="compiled")


def _rendered(g: GameGraph) -> dict[str, str]:
    """Each node's value as ``render`` writes it, from the compiled labelling."""
    r = loopy_grundy_compiled(g)
    k = r.kset()
    return {
        g.name(x): render(GValue(int(v)) if v >= 0 else GValue(None, frozenset(k[x])))
        for x, v in enumerate(r.value.tolist())
    }


def test_a_pure_cycle_and_an_exit_by_hand() -> None:
    """u <-> v: neither can ever reach a position without moves (inf, inf); w -> u, t: w moves
    to the P-position t, so inf(0), a win; t has no move: 0."""
    g = GameGraph.from_successors(
        {"u": ["v"], "v": ["u"], "w": ["u", "t"], "t": []}, semantics=Semantics.IMPARTIAL
    )
    assert _rendered(g) == {"u": "inf", "v": "inf", "w": "inf(0)", "t": "0"}


def test_self_loop_with_exit_by_hand() -> None:
    """a -> a, b; b has no move: b = 0, a = inf(0) (a move to b wins, the loop never ends)."""
    g = GameGraph.from_successors({"a": ["a", "b"], "b": []}, semantics=Semantics.IMPARTIAL)
    assert _rendered(g) == {"a": "inf(0)", "b": "0"}


def test_the_hand_worked_loopy_graph() -> None:
    assert _rendered(loopy_graph()) == LOOPY_VALUES


def _same_as_reference(g: GameGraph) -> None:
    """Values, K-sets, counters, rounds and edges scanned equal the reference's."""
    got, ref = loopy_grundy_compiled(g), loopy_grundy(g)
    assert np.array_equal(got.value, ref.values)
    assert got.kset() == ref.kset
    assert np.array_equal(got.counter, ref.counter)
    assert (got.rounds, got.edges_scanned) == (ref.rounds, ref.edges_scanned)


@settings(max_examples=200, deadline=None)
@given(impartial_graphs(max_nodes=12))
def test_matches_the_reference(g: GameGraph) -> None:
    _same_as_reference(g)


@settings(max_examples=100, deadline=None)
@given(impartial_graphs(max_nodes=10))
def test_the_solver_publishes_what_grundy_loopy_publishes(g: GameGraph) -> None:
    """Same values, K-sets, classes and moves as the registered reference solver."""
    case = Case(graph=g, id="g")
    got, ref = grundy_loopy_compiled_solver(case, COMPILED), loopy_grundy_solver(case, Options())
    assert np.array_equal(got.values, ref.values)
    assert dict(got.loopy or {}) == dict(ref.loopy or {})
    assert np.array_equal(got.move, ref.move)
    assert got.extra["draws"] == ref.extra["draws"]
    assert np.array_equal(got.extra["counter"], ref.extra["counter"])
    for name in (VALUE, LOOPY):
        a, b = got.columns.get(name), ref.columns.get(name)
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert np.array_equal(a.given, b.given)


@pytest.mark.parametrize("seed", range(3))
def test_random_cyclic_graphs_match_the_reference(seed: int) -> None:
    _same_as_reference(random_case("impartial", 20_000, 2.5 + seed, seed=seed).graph)


@settings(max_examples=100, deadline=None)
@given(impartial_graphs(max_nodes=12, acyclic=True))
def test_acyclic_values_are_grundy_compiled_values(g: GameGraph) -> None:
    r = loopy_grundy_compiled(g)
    assert np.array_equal(r.value, grundy_compiled(g).value)
    assert r.kset() == {}


def test_classes_of_the_compiled_answer() -> None:
    g = loopy_graph()
    res = grundy_loopy_compiled_solver(Case(graph=g, id="loopy"), COMPILED)
    ref = loopy_grundy(g)
    assert res.extra["draws"] == int(np.sum(outcome_classes(ref.values, ref.kset) == 0))


@settings(max_examples=150, deadline=None)
@given(impartial_graphs(max_nodes=10), st.data())
def test_vectorized_conditions_find_the_reference_violations(
    g: GameGraph, data: st.DataObject
) -> None:
    """``gsg_bad_nodes`` flags exactly the nodes ``gsg_violations`` reports, on the right
    labelling (none) and on corrupted values, K-sets and counters."""
    r = loopy_grundy(g)
    values, kset, counter = r.values.copy(), dict(r.kset), r.counter.copy()
    x = data.draw(st.integers(0, g.n - 1))
    what = data.draw(st.sampled_from(["none", "value", "counter", "k", "inf"]))
    if what == "value":
        values[x] = data.draw(st.integers(-1, 4))
        if values[x] < 0:
            kset.setdefault(x, ())
    elif what == "counter":
        counter[x] = data.draw(st.integers(-1, g.n))
    elif what == "k":
        kset[x] = tuple(sorted(data.draw(st.sets(st.integers(0, 3), max_size=3))))
    elif what == "inf":
        values[x], kset[x] = (
            -1,
            tuple(sorted({int(values[y]) for y in g.successors(x) if values[y] >= 0})),
        )
    ref = [d["node"] for d in gsg_violations(g, values, kset, counter)]
    assert [g.name(u) for u in gsg_bad_nodes(g, values, kset, counter)] == ref


def _big_answer(case: Case) -> tuple[CheckContext, Options]:
    """A context beyond the reference sizes (engine compiled) holding the compiled answer."""
    res = grundy_loopy_compiled_solver(case, COMPILED)
    return CheckContext(case=case, results={res.solver: res}, options=COMPILED), COMPILED


def test_classes_check_reads_the_compiled_answer_beyond_the_reference() -> None:
    case = Case(graph=random_case("impartial", 3000, 3.0, seed=4).graph, id="r")
    ctx, _ = _big_answer(case)
    checks = loopy_classes_check(ctx)
    assert [c.verdict for c in checks] == [Verdict.CONFIRMED, Verdict.CONFIRMED]
    reference = loopy_classes_check(CheckContext(case=case, results={}))
    assert [c.name for c in checks] == [c.name for c in reference]


def test_classes_check_refutes_a_corrupted_compiled_answer() -> None:
    case = Case(graph=loopy_graph(), id="loopy")
    ctx, options = _big_answer(case)
    good = ctx.results["grundy-loopy-compiled"]
    x = case.graph.id_of("x")  # x = 1 (reverses through s); claim 2: condition A fails
    values = good.values.copy()
    values[x] = 2
    bad = replace(good, values=values)
    checks = loopy_classes_check(
        CheckContext(case=case, results={"grundy-loopy-compiled": bad}, options=options)
    )
    assert checks[1].verdict is Verdict.REFUTED
    assert checks[1].witness == {"node": "x", "condition": "A", "value": 2, "mex": 1}


def test_small_loopy_case_verifies_in_both_engines() -> None:
    case = Case(graph=loopy_graph(), id="loopy")
    for options in (Options(), COMPILED):
        report = run_case(case, options)
        assert report.verdict is CaseVerdict.VERIFIED, [
            (c.name, c.verdict) for c in report.checks if c.verdict is not Verdict.CONFIRMED
        ]
        ran = {r.name for r in report.solvers if r.result is not None}
        # auto: the reference labelling (the compiled one only above COMPILED_LIMIT nodes)
        assert ("grundy-loopy-compiled" if options is COMPILED else "grundy-loopy") in ran


BIG = 100_000
"""A random cyclic impartial graph of this many nodes (mean out-degree 4) for the pipeline."""


def _big_report() -> tuple[Case, list[tuple[str, Verdict]]]:
    case = random_case("impartial", BIG, 4.0, seed=0)
    report = run_case(case, COMPILED)
    return case, [(c.name, c.verdict) for c in report.checks]


@pytest.mark.slow
def test_pipeline_on_a_large_cyclic_graph_certifies_the_compiled_answer() -> None:
    """10^5 nodes, ``--engine compiled``: the compiled solver answers, the classes, conditions
    A-C, the infinite values and the moves are confirmed, nothing is refuted."""
    _, checks = _big_report()
    verdicts = dict(checks)
    assert Verdict.REFUTED not in verdicts.values()
    for name in (
        "grundy P/N/D = retrograde lost/won/unknown",
        "generalized Sprague-Grundy conditions A-C (Fraenkel)",
        "grundy-infinite (grundy-loopy-compiled)",
        "moves (grundy-loopy-compiled)",
    ):
        assert verdicts[name] is Verdict.CONFIRMED, name
    assert all("Z3" in name for name, v in checks if v is Verdict.UNKNOWN)


def test_pipeline_on_a_large_cyclic_graph_ends_verified() -> None:
    """10^5 nodes: the mex constraints split by component (plain evaluation outside the
    cycles, Z3 on the cyclic components), the counter asked inside the components only."""
    case = random_case("impartial", BIG, 4.0, seed=0)
    rep = run_case(case, COMPILED)
    assert rep.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.detail) for c in rep.checks if c.verdict is not Verdict.CONFIRMED
    ]
    split = [c for c in rep.checks if c.name.startswith("grundy mex constraints")]
    assert split and all("by plain evaluation" in c.detail for c in split)
