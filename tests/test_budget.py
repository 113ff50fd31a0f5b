"""`--budget SECONDS`: checks not started in time end unknown (never confirmed), Z3 queries
get at most the time left, and the solvers' answer is still given."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import z3
from typer.testing import CliRunner

from verifier.cli import verify_app
from verifier.deadline import TimeUp, stop_after
from verifier.io import load_any
from verifier.model import CheckResult, Semantics, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case, z3_timeout
from verifier.registry import Options

runner = CliRunner()
CASES = Path(__file__).resolve().parent.parent / "cases"


def test_a_spent_budget_leaves_the_checks_unknown_and_the_answer_given() -> None:
    rep = run_case(load_any(CASES / "dag-paul-carole.json"), Options(budget=0))
    assert rep.verdict is CaseVerdict.INCONCLUSIVE
    smt = [c for c in rep.checks if c.name.startswith("smt-")]
    assert smt and all(c.verdict is Verdict.UNKNOWN for c in smt)
    assert all("the budget of 0 s was spent (--budget lifts it)" in c.detail for c in smt)
    assert not any(c.verdict is Verdict.CONFIRMED for c in smt)
    assert rep.solution is not None and rep.solution.value(rep.case.graph.id_of("s")) == 4


def test_the_command_line_budget() -> None:
    case = str(CASES / "dag-paul-carole.json")
    assert runner.invoke(verify_app, [case, "--budget", "0"]).exit_code == 3
    assert runner.invoke(verify_app, [case, "--budget", "600"]).exit_code == 0
    assert runner.invoke(verify_app, [case, "--budget", "-1"]).exit_code == 2


def _pigeons(n: int) -> z3.Solver:
    """n + 1 pigeons in n holes: hard for Z3's SAT core at n = 11."""
    s = z3.Solver()
    x = [[z3.Bool(f"x{i}_{j}") for j in range(n)] for i in range(n + 1)]
    for row in x:
        s.add(z3.Or(row))
    for j in range(n):
        for i in range(n + 1):
            for k in range(i + 1, n + 1):
                s.add(z3.Not(z3.And(x[i][j], x[k][j])))
    return s


def test_z3_queries_stop_at_the_time_left_and_the_limit_is_lifted_after() -> None:
    with z3_timeout(0.05):
        s = _pigeons(11)
        assert s.check() == z3.unknown and s.reason_unknown() == "timeout"
    small = _pigeons(3)
    assert small.check() == z3.unsat  # no timeout left behind
    assert z3.get_param("timeout") == "4294967295"


def test_a_check_still_running_when_the_budget_is_spent_is_stopped_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a check that would loop forever in Python (as a long linear certificate would run on):
    # stopped at the budget, unknown, and the checks after it are not run
    import verifier.pipeline as pipeline
    from verifier.registry import CheckSpec

    def forever(ctx: object) -> list[CheckResult]:
        while True:
            time.sleep(0.01)

    def never(ctx: object) -> list[CheckResult]:
        raise AssertionError("a check after the budget was spent ran")

    specs = [
        CheckSpec("slow", frozenset(Semantics), forever),
        CheckSpec("after", frozenset(Semantics), never),
    ]
    monkeypatch.setattr(pipeline, "checks_for", lambda semantics: specs)
    t0 = time.perf_counter()
    rep = run_case(load_any(CASES / "dag-paul-carole.json"), Options(budget=0.5))
    took = time.perf_counter() - t0
    assert took < 0.5 * 1.1 + 1  # the bound: the budget + 10% + 1 s
    slow, after = (c for c in rep.checks if c.name in ("slow", "after"))
    assert slow.verdict is Verdict.UNKNOWN and "stopped while it ran" in slow.detail
    assert after.verdict is Verdict.UNKNOWN and after.detail.startswith("not run")
    assert rep.verdict is CaseVerdict.INCONCLUSIVE
    assert rep.solution is not None and rep.solution.value(rep.case.graph.id_of("s")) == 4


def test_time_up_is_not_caught_by_except_exception() -> None:
    # a check's own ``except Exception`` (turning failures into verdicts) must not swallow it
    caught = []
    with pytest.raises(TimeUp), stop_after(0.05):
        try:
            while True:
                time.sleep(0.01)
        except Exception:
            caught.append(True)
    assert caught == []


def test_nested_deadlines_keep_the_outer_one() -> None:
    t0 = time.perf_counter()
    # the inner, later deadline does not cancel the outer one
    with pytest.raises(TimeUp), stop_after(0.3), stop_after(10):
        while True:
            time.sleep(0.01)
    assert time.perf_counter() - t0 < 2
    with stop_after(0.2):
        with stop_after(0.05):
            pass
        # the outer timer is put back: it still fires after the inner block ended
        with pytest.raises(TimeUp):
            while True:
                time.sleep(0.01)


def test_query_and_uniqueness_take_the_budget_and_the_rlimit() -> None:
    from verifier.cli import app

    case = str(CASES / "kars-figure1-b-lt-d.json")
    r = runner.invoke(app, ["uniqueness", case, "--budget", "0"])
    assert r.exit_code == 3 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"{case}: stopped after 0.0 s: the budget of 0 s was spent (--budget lifts it)"
    ]
    r = runner.invoke(app, ["uniqueness", case, "--budget", "60", "--rlimit", "50000000"])
    assert r.exit_code == 0 and "have 3 solutions" in r.stdout
    r = runner.invoke(app, ["query", case, "a", "--budget", "0"])
    assert r.exit_code == 0 and "verdict inconclusive" in r.stdout.splitlines()[0]
    r = runner.invoke(app, ["query", case, "a", "--rlimit", "50000000"])
    assert "verdict verified" in r.stdout.splitlines()[0]
