"""The pipeline's own comparisons: agreement between solvers, expect blocks, verdicts."""

from __future__ import annotations

import numpy as np

from verifier import Case, Expect, GameGraph, Semantics
from verifier.checks.agreement import agreement_checks
from verifier.checks.expect import expect_checks
from verifier.model import MAX, MIN, CheckResult, SolverResult, Verdict
from verifier.model.report import CaseVerdict
from verifier.model.results import View
from verifier.pipeline import decide, summarize


def fig1_case(expect: Expect | None = None) -> Case:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2},
    )
    return Case(graph=g, id="fig1", root=g.id_of("a"), expect=expect)


def score(name: str, values: list[float], **kw: object) -> SolverResult:
    return SolverResult(name, View.SCORE, np.array(values, dtype=float), **kw)  # type: ignore[arg-type]


# node order of fig1_case: a, c, b, d
RIGHT = [0.0, 0.0, -1.0, 2.0]


def test_agreement_confirmed_when_equal() -> None:
    case = fig1_case()
    [c] = agreement_checks(case, {"x": score("x", RIGHT), "y": score("y", RIGHT)})
    assert c.verdict is Verdict.CONFIRMED


def test_agreement_refuted_names_node_and_successors() -> None:
    case = fig1_case()
    wrong = [2.0, 0.0, -1.0, 2.0]  # a corrupted
    [c] = agreement_checks(case, {"x": score("x", RIGHT), "y": score("y", wrong)})
    assert c.verdict is Verdict.REFUTED
    assert c.witness is not None
    assert c.witness["node"] == "a"
    assert c.witness["values"] == {"x": 0, "y": 2}
    assert set(c.witness["successors"]) == {"b", "c"}


def test_agreement_only_on_covered_nodes() -> None:
    case = fig1_case()
    partial = score("y", [0.0, 9.0, 9.0, 9.0], covered=np.array([True, False, False, False]))
    [c] = agreement_checks(case, {"x": score("x", RIGHT), "y": partial})
    assert c.verdict is Verdict.CONFIRMED


def test_agreement_compares_remoteness() -> None:
    case = fig1_case()
    r1 = score("x", RIGHT, remoteness=np.array([1, 2, 0, 0]))
    r2 = score("y", RIGHT, remoteness=np.array([1, 3, 0, 0]))
    [c] = agreement_checks(case, {"x": r1, "y": r2})
    assert c.verdict is Verdict.REFUTED and c.witness is not None
    assert c.witness["node"] == "c"


def test_expect_values_confirmed_and_refuted() -> None:
    a, c = 0, 1
    good = fig1_case(Expect(values={a: 0, c: 0}, root_value=0))
    res = {"x": score("x", RIGHT)}
    checks = expect_checks(good, res)
    assert [k.verdict for k in checks] == [Verdict.CONFIRMED, Verdict.CONFIRMED]
    bad = fig1_case(Expect(values={a: 0, c: -1}))
    [k] = expect_checks(bad, res)
    assert k.verdict is Verdict.REFUTED and k.witness is not None
    assert k.witness["node"] == "c" and k.witness["expected"] == -1 and k.witness["got"] == 0


def test_expect_without_solver_is_unknown() -> None:
    case = fig1_case(Expect(labels={0: "won"}))
    [k] = expect_checks(case, {"x": score("x", RIGHT)})
    assert k.verdict is Verdict.UNKNOWN


def test_label_view_words() -> None:
    g = GameGraph.from_successors({"x": ["y"], "y": ["x", "z"]}, semantics=Semantics.NORMAL)
    case = Case(graph=g, id="n", root=0, expect=Expect(labels={0: "lost", 1: "won", 2: "lost"}))
    lab = SolverResult(
        "r", View.LABEL, np.array([-1, 1, -1], dtype=np.int8), remoteness=np.array([2, 1, 0])
    )
    assert [k.verdict for k in expect_checks(case, {"r": lab})] == [Verdict.CONFIRMED]
    s = summarize(case, {"r": lab})
    assert (s["won"], s["lost"], s["drawn"], s["max_remoteness"], s["root_value"]) == (
        1,
        2,
        0,
        2,
        "lost",
    )


def test_decide() -> None:
    ok = CheckResult("a", Verdict.CONFIRMED)
    unk = CheckResult("b", Verdict.UNKNOWN)
    bad = CheckResult("c", Verdict.REFUTED)
    assert decide([ok]) is CaseVerdict.VERIFIED
    assert decide([ok, unk]) is CaseVerdict.INCONCLUSIVE
    assert decide([ok, unk, bad]) is CaseVerdict.REFUTED
    assert decide([]) is CaseVerdict.INCONCLUSIVE


def test_progress_is_reported_for_solvers_and_checks() -> None:
    from verifier.pipeline import run_case
    from verifier.registry import Options

    seen: list[tuple[str, int, int]] = []
    run_case(fig1_case(), Options(progress=lambda t, d, n: seen.append((t, d, n))))
    tasks = {t for t, _, _ in seen}
    assert {"fig1: solvers", "fig1: checks"} <= tasks
    for task in ("fig1: solvers", "fig1: checks"):
        done = [(d, n) for t, d, n in seen if t == task]
        assert done[-1][0] == done[-1][1] > 0  # ends complete
