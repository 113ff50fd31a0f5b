"""The registered Z3 checks on hand-made cases and random graphs with correct answers."""

from __future__ import annotations

import contextlib
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import given, settings
from smt_reference import as_semantics, case_of, figure1, graphs, reference_results

from verifier.errors import NotApplicable
from verifier.model import GameGraph, Semantics, SolverResult, Verdict
from verifier.model.case import Expect
from verifier.model.results import CheckResult, View
from verifier.registry import CheckContext, Options, all_registered, checks_for
from verifier.smt import cnf as cnf_mod
from verifier.smt import ranks, wonlost
from verifier.smt.cnf import SatOutcome, SatStatus
from verifier.smt.uniqueness import uniqueness

SMT_CHECKS = {
    "smt-equations",
    "smt-uniqueness",
    "smt-kars-least",
    "smt-won-lost",
    "smt-attractor",
    "smt-strategy",
}


def run_all(g: GameGraph, **case_kw: object) -> list[CheckResult]:
    ctx = CheckContext(case_of(g, **case_kw), reference_results(g), Options())
    out: list[CheckResult] = []
    for spec in checks_for(g.semantics):
        if spec.name in SMT_CHECKS:
            with contextlib.suppress(NotApplicable):
                out.extend(spec.fn(ctx))
    return out


def by_name(results: list[CheckResult]) -> dict[str, CheckResult]:
    return {r.name: r for r in results}


def test_checks_are_registered() -> None:
    assert set(all_registered()["checks"]) >= SMT_CHECKS


def test_figure1_b_lt_d_is_not_unique_with_interval_b_to_d() -> None:
    res = by_name(run_all(figure1(-1, 2)))
    assert all(r.verdict is Verdict.CONFIRMED for r in res.values()), res
    u = res["smt-uniqueness"]
    assert u.data["unique"] is False
    assert u.data["intervals"]["a"] == [-1.0, 2.0]
    assert u.data["intervals"]["c"] == [-1.0, 2.0]
    assert u.data["intervals"]["b"] == [-1.0, -1.0]
    assert u.witness is not None
    assert set(u.witness["cycle"]) == {"a", "c"}
    sol = u.witness["solution"]
    assert sol["a"] == sol["c"] != 0.0  # a second solution, a = c, differs from Kars' 0
    assert res["smt-kars-least"].data["least_solutions"] == 1
    # a = c anywhere in [b, d]: one Z3-confirmed solution per value
    assert u.data["solutions_by_level"] == {
        "-1": {"a": -1.0, "c": -1.0},
        "0": {"a": 0.0, "c": 0.0},
        "2": {"a": 2.0, "c": 2.0},
    }


def test_figure1_b_ge_d_is_unique() -> None:
    res = by_name(run_all(figure1(3, 2)))
    assert res["smt-uniqueness"].verdict is Verdict.CONFIRMED
    assert res["smt-uniqueness"].data["unique"] is True
    assert res["smt-uniqueness"].data["intervals"]["a"] == [3.0, 3.0]


def test_expect_block_contradicted_is_refuted() -> None:
    g = figure1(-1, 2)
    r = uniqueness(case_of(g, expect=Expect(unique=True)))
    assert r.verdict is Verdict.REFUTED
    iv = MappingProxyType({0: (-1.0, 0.0)})
    r = uniqueness(case_of(g, expect=Expect(unique=False, intervals=iv)))
    assert r.verdict is Verdict.REFUTED and r.witness is not None
    assert r.witness["node"] == "a"
    ok = MappingProxyType({0: (-1.0, 2.0), 1: (-1.0, 2.0)})
    assert uniqueness(case_of(g, expect=Expect(unique=False, intervals=ok))).verdict is (
        Verdict.CONFIRMED
    )


def test_normal_pure_cycle_has_circular_labelling() -> None:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a"], "c": ["a", "d"]}, semantics=Semantics.NORMAL
    )
    res = by_name(run_all(g))
    assert all(r.verdict is Verdict.CONFIRMED for r in res.values()), res
    assert res["smt-uniqueness"].data["unique"] is False
    extra = res["smt-won-lost"].data["circular_solution_without_ranks"]
    assert extra is not None and set(extra) >= {"a", "b"}
    assert res["smt-won-lost"].data["integer_ranks"] is True


def test_normal_self_loop_alone_is_unique() -> None:
    g = GameGraph.from_successors({"a": ["a"]}, semantics=Semantics.NORMAL)
    res = by_name(run_all(g))
    assert res["smt-uniqueness"].data["unique"] is True


def test_won_lost_above_rank_limit_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wonlost, "RANK_LIMIT", 2)
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    res = by_name(run_all(g))
    r = res["smt-won-lost"]
    assert r.verdict is Verdict.CONFIRMED
    assert "do not scale" in r.detail and r.data["integer_ranks"] is False


def test_reachability_by_hand() -> None:
    g = GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["y", "z"], "z": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "z": 0, "t": 0},
        target=["t"],
    )
    res = by_name(run_all(g))
    assert {r.verdict for r in res.values()} == {Verdict.CONFIRMED}
    assert set(res) == {"smt-equations", "smt-attractor", "smt-strategy"}


def test_unknown_is_never_confirmed(monkeypatch: pytest.MonkeyPatch) -> None:
    def gives_up(*args: object, **kwargs: object) -> SatOutcome:
        return SatOutcome(SatStatus.UNKNOWN, "max. resource limit exceeded")

    for mod in ("cnf", "equations", "uniqueness", "kars"):  # submit calls cnf.solve
        monkeypatch.setattr(f"verifier.smt.{mod}.solve", gives_up)
    monkeypatch.setattr(ranks, "_run", lambda c, o: (gives_up(), None))
    for g in (
        figure1(-1, 2),
        GameGraph.from_successors({"a": ["b"], "b": ["a", "c"]}, semantics=Semantics.NORMAL),
        GameGraph.from_successors(
            {"x": ["t"]}, semantics=Semantics.REACHABILITY, owner={"x": 0}, target=["t"]
        ),
    ):
        from verifier.smt import common

        common.forget()
        res = run_all(g)
        assert res and all(r.verdict is Verdict.UNKNOWN for r in res), res
    common.forget()


def test_partial_answer_is_extended() -> None:
    g = figure1(-1, 2)
    cov = np.array([True, False, True, True])
    r = SolverResult("root-only", View.SCORE, np.array([0.0, np.nan, -1.0, 2.0]), covered=cov)
    ctx = CheckContext(case_of(g), {"root-only": r}, Options())
    (res,) = next(c for c in checks_for(g.semantics) if c.name == "smt-equations").fn(ctx)
    assert res.verdict is Verdict.CONFIRMED


def test_python_api_backend_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cnf_mod, "USE_BINARY", False)
    from verifier.smt import common

    common.forget()
    res = by_name(run_all(figure1(-1, 2)))
    assert all(r.verdict is Verdict.CONFIRMED for r in res.values())
    assert res["smt-uniqueness"].data["unique"] is False
    common.forget()


@pytest.mark.parametrize("sem", [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY])
@settings(max_examples=15, deadline=None)
@given(data=graphs(Semantics.MINIMAX))
def test_correct_answers_are_confirmed_on_random_graphs(sem: Semantics, data: GameGraph) -> None:
    g = data if sem is Semantics.MINIMAX else as_semantics(sem, data)
    res = run_all(g)
    assert res and all(r.verdict is Verdict.CONFIRMED for r in res), [
        (r.name, r.verdict, r.detail, r.witness) for r in res if r.verdict is not Verdict.CONFIRMED
    ]


def test_long_checks_report_progress() -> None:
    seen: list[tuple[str, int, int]] = []
    g = figure1(-1, 2)
    ctx = CheckContext(
        case_of(g), reference_results(g), Options(progress=lambda t, d, n: seen.append((t, d, n)))
    )
    from verifier.smt import common

    common.forget()
    for spec in checks_for(g.semantics):
        if spec.name in SMT_CHECKS:
            spec.fn(ctx)
    assert seen and all(0 <= d <= n for _, d, n in seen)
    assert any(t.startswith("smt-uniqueness") for t, _, _ in seen)
