"""Property tests of answer tables over random graphs of every semantics, cyclic and acyclic:
the answers any engine writes read back and verify (in the full run and with ``--linear``),
and every single-entry corruption is refuted naming its node, or reported as another solution
of the equations."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from answer_corruptions import corruptions
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from verifier.claims import run_with_claims
from verifier.games.random_graphs import random_case
from verifier.io import save_any
from verifier.io.answers import load_answers, save_answers
from verifier.model import Case, Verdict
from verifier.model.report import CaseReport
from verifier.model.semantics import Semantics
from verifier.pipeline import run_case
from verifier.registry import Options

SUFFIXES = (".json", ".csv", ".npz") + ((".parquet",) if find_spec("pyarrow") else ())
ENGINES = ("reference", "numpy", "compiled")


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


@st.composite
def cases(draw: st.DrawFn) -> Case:
    sem = draw(st.sampled_from(list(Semantics)))
    values = (-2, -1, 0, 1, 2) if sem is Semantics.MINIMAX else (-1, 0, 1)
    return random_case(
        sem,
        nodes=draw(st.integers(2, 24)),
        degree=draw(st.sampled_from([1.0, 1.6, 2.4])),
        seed=draw(st.integers(0, 10**6)),
        values=values,
        acyclic=draw(st.booleans()),
    )


def _claims_check(rep: CaseReport) -> Any:
    return next(c for c in rep.checks if c.name.startswith("answers "))


def _round_trip(case: Case, engine: str, suffix: str, tmp: Path, linear: bool) -> CaseReport:
    ours = run_case(case, Options(engine=engine), smt=False)
    # the numpy engine has no loopy Grundy solver: a cyclic impartial game is not its to solve
    numpy_loopy = (engine, case.semantics) == ("numpy", Semantics.IMPARTIAL)
    assume(ours.solution is not None or not numpy_loopy)
    assert ours.solution is not None
    path = save_answers(ours.solution, case, tmp / f"a{suffix}")
    return run_with_claims(case, Options(linear=linear), load_answers(path, case))


@_settings(60)
@given(case=cases(), engine=st.sampled_from(ENGINES), suffix=st.sampled_from(SUFFIXES))
def test_every_engines_answers_verify_linear(
    case: Case, engine: str, suffix: str, tmp_path: Path
) -> None:
    rep = _round_trip(case, engine, suffix, tmp_path, linear=True)
    check = _claims_check(rep)
    assert check.verdict is Verdict.CONFIRMED, check.detail
    assert "no Z3 (--linear)" in check.detail
    assert not any(c.name.startswith("smt-") for c in rep.checks)


@_settings(12)
@given(case=cases(), engine=st.sampled_from(ENGINES), suffix=st.sampled_from(SUFFIXES))
def test_every_engines_answers_verify_in_the_full_run(
    case: Case, engine: str, suffix: str, tmp_path: Path
) -> None:
    rep = _round_trip(case, engine, suffix, tmp_path, linear=False)
    check = _claims_check(rep)
    assert check.verdict is not Verdict.REFUTED, check.detail
    assert rep.verdict == run_case(case, Options()).verdict


def _refuted_at(rep: CaseReport, case: Case, x: int, what: str) -> None:
    check = _claims_check(rep)
    assert check.verdict is Verdict.REFUTED, (what, case.graph.name(x), check.detail)
    w = check.witness or {}
    name = case.graph.name(x)
    assert w.get("node") == name or "another solution" in w.get("rule", ""), (
        what,
        name,
        check.detail,
    )


@pytest.mark.parametrize("linear", [True, False], ids=["linear", "full"])
@_settings(40)
@given(case=cases(), pick=st.integers(0, 10**6))
def test_every_single_corruption_is_refuted_at_its_node(
    linear: bool, case: Case, pick: int, tmp_path: Path
) -> None:
    ours = run_case(case, Options(), smt=False)
    assert ours.solution is not None
    answers = load_answers(save_answers(ours.solution, case, tmp_path / "a.npz"), case)
    options = [c for c in corruptions(case, answers)]
    if not options:
        return
    what, x, bad = options[pick % len(options)]
    rep = run_with_claims(case, Options(linear=linear), bad)
    if what == "move" and _claims_check(rep).verdict is not Verdict.REFUTED:
        return  # another optimal move (a tie): a valid answer too
    _refuted_at(rep, case, x, what)


def test_another_minimax_solution_linear(tmp_path: Path) -> None:
    from verifier.io import load_any

    case = load_any(Path(__file__).resolve().parents[2] / "cases" / "kars-figure1-b-lt-d.json")
    path = tmp_path / "alt.csv"
    path.write_text("node,value\na,2\nb,-1\nc,2\nd,2\n")
    rep = run_with_claims(case, Options(linear=True), load_answers(path, case))
    check = _claims_check(rep)
    assert check.verdict is Verdict.REFUTED
    assert "another solution of (T+MM), not Kars' score" in check.detail
    assert "is 0" in check.detail and "without --linear" in check.detail


def test_cli_linear_needs_answers_and_judges_them(tmp_path: Path) -> None:
    from verifier.cli import app, verify_app

    case = random_case(Semantics.NORMAL, nodes=200, degree=2.5, seed=4)
    case_file = save_any(case, tmp_path / "c.npz")
    r = CliRunner().invoke(verify_app, [str(case_file), "--linear"])
    assert r.exit_code == 2 and "give --answers FILE" in r.stderr
    out = tmp_path / "a.parquet"
    assert CliRunner().invoke(app, ["solve", str(case_file), "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(verify_app, [str(case_file), "--answers", str(out), "--linear"])
    assert r.exit_code == 0, r.output
    assert "smt-" not in r.output and "rules" in r.output
