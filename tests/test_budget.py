"""`--budget SECONDS`: checks not started in time end unknown (never confirmed), Z3 queries
get at most the time left, and the solvers' answer is still given."""

from __future__ import annotations

from pathlib import Path

import z3
from typer.testing import CliRunner

from verifier.cli import verify_app
from verifier.io import load_any
from verifier.model import Verdict
from verifier.pipeline import CaseVerdict, run_case, z3_timeout
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
