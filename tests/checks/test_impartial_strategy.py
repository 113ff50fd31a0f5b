"""Issue 28, item 1: the move at an impartial draw goes to a draw (D), and the impartial moves
are a strategy: following them the N player wins and the draw is kept (``grundy-strategy``),
in the full run and with ``--linear``, for claimed tables and for our own solvers."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.claims import run_with_claims
from verifier.io import load_any
from verifier.io.answers import load_answers
from verifier.model import Case, GameGraph, Semantics, Verdict
from verifier.model.columns import MOVE
from verifier.model.report import CaseReport, CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options, all_registered

CASES = Path(__file__).resolve().parents[2] / "cases"
MODES = [pytest.param(True, id="linear"), pytest.param(False, id="full")]


def _claims(case: Case, text: str, tmp_path: Path, linear: bool) -> CaseReport:
    path = tmp_path / "claims.csv"
    path.write_text(text)
    return run_with_claims(case, Options(linear=linear), load_answers(path, case))


def _judged(rep: CaseReport) -> Verdict:
    """The verdict on the claims (the ``answers FILE`` check)."""
    return next(c.verdict for c in rep.checks if c.name.startswith("answers "))


def _verdicts(rep: CaseReport, prefix: str) -> dict[str, Verdict]:
    return {c.name: c.verdict for c in rep.checks if c.name.startswith(prefix)}


@pytest.mark.parametrize("linear", MODES)
def test_a_draw_move_to_a_won_option_is_refuted(linear: bool, tmp_path: Path) -> None:
    """The issue's graph: at the draw d, d -> n hands the opponent n = inf(0), a win."""
    case = load_any(CASES / "impartial-draw-move.json")
    right = "node,value,move\nd,inf,e\ne,inf,d\nn,inf(0),p\np,0,\n"
    rep = _claims(case, right.replace("d,inf,e", "d,inf,n"), tmp_path, linear)
    assert rep.verdict is CaseVerdict.REFUTED
    moves = next(c for c in rep.checks if c.name == "moves (answers)")
    strategy = next(c for c in rep.checks if c.name == "grundy-strategy (answers)")
    assert moves.verdict is Verdict.REFUTED and (moves.witness or {})["node"] == "d"
    assert strategy.verdict is Verdict.REFUTED and (strategy.witness or {})["node"] == "d"
    assert "does not go to a draw" in strategy.detail
    judged = next(c for c in rep.checks if c.name.startswith("answers "))
    assert judged.verdict is Verdict.REFUTED and (judged.witness or {})["node"] == "d"
    rep = _claims(case, right, tmp_path, linear)
    assert _judged(rep) is Verdict.CONFIRMED
    assert _verdicts(rep, "grundy-strategy (answers)") == {
        "grundy-strategy (answers)": Verdict.CONFIRMED
    }


@pytest.mark.parametrize("linear", MODES)
def test_n_to_p_moves_that_go_round_a_cycle_are_refuted(linear: bool, tmp_path: Path) -> None:
    """``b -> {a, t}``, ``a -> b``: b -> a keeps the win move by move (a is P) but following
    it play goes round b -> a -> b for ever, a draw; b -> t wins."""
    case = load_any(CASES / "impartial-cycle-with-exit.json")
    right = "node,value,move\na,0,\nb,1,t\nt,0,\n"
    rep = _claims(case, right.replace("b,1,t", "b,1,a"), tmp_path, linear)
    assert rep.verdict is CaseVerdict.REFUTED
    strategy = next(c for c in rep.checks if c.name == "grundy-strategy (answers)")
    assert strategy.verdict is Verdict.REFUTED
    assert (strategy.witness or {})["node"] == "b"
    assert "does not win (they go round)" in strategy.detail
    assert _judged(_claims(case, right, tmp_path, linear)) is Verdict.CONFIRMED


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_the_loopy_solvers_move_to_the_p_option_of_least_counter(engine: str) -> None:
    """Our solvers' N moves win: on the cycle with an exit they take b -> t, not b -> a."""
    case = load_any(CASES / "impartial-cycle-with-exit.json")
    rep = run_case(case, Options(engine=engine))
    g = case.graph
    r = rep.results["grundy-loopy" if engine == "reference" else "grundy-loopy-compiled"]
    assert r.columns[MOVE].at(g.id_of("b")) == g.id_of("t")
    assert rep.verdict is CaseVerdict.VERIFIED
    assert any(c.name.startswith("grundy-strategy") for c in rep.checks)


def test_the_strategy_check_is_linear_and_impartial() -> None:
    spec = all_registered()["checks"]["grundy-strategy"]
    assert spec.linear and spec.semantics == frozenset({Semantics.IMPARTIAL})


def test_a_partial_value_table_is_not_a_strategy() -> None:
    """Without a value at every node there are no classes to certify: unknown, not confirmed."""
    from verifier.checks.impartial_strategy import _judge
    from verifier.model import SolverResult
    from verifier.model.results import View

    g = GameGraph.from_successors({"a": ["b"], "b": []}, semantics=Semantics.IMPARTIAL)
    import numpy as np

    r = SolverResult(
        solver="x",
        view=View.GRUNDY,
        values=np.array([1, 0]),
        seconds=0.0,
        move=np.array([1, -1]),
        covered=np.array([True, False]),
    )
    assert _judge(g, r).verdict is Verdict.UNKNOWN
