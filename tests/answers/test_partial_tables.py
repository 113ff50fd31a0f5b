"""Partial answer tables (issue 28 item 6): every subset of a correct table verifies, in the
full run and with ``--linear``, for every semantics (the claimed rows are judged; where the file
is silent the judge reads its own, independently checked answer); the same subset with one
claimed entry corrupted is refuted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from answer_corruptions import corruptions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.claims import run_with_claims
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.io.answers import Answers, load_answers, save_answers
from verifier.model import Case, Verdict
from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.semantics import Semantics
from verifier.pipeline import run_case
from verifier.registry import Options

CASES = Path(__file__).resolve().parents[2] / "cases"


def _paul_carole(linear: bool) -> Case:
    """The case of the issue; with ``--linear`` without its ``expect`` block (``expect unique``
    takes Z3: a linear run leaves it unknown whatever the table)."""
    case = load_any(CASES / "dag-paul-carole.json")
    return replace(case, expect=None) if linear else case


def _claims_check(rep: CaseReport) -> Any:
    return next(c for c in rep.checks if c.name.startswith("answers "))


def _subset(answers: Answers, keep: np.ndarray, blank: np.ndarray) -> Answers:
    """The rows ``keep`` of a table, with the remoteness and move cells of ``blank`` emptied."""
    given = answers.given & keep
    rem = mv = None
    if answers.array("remoteness") is not None:
        rem = np.where(given & ~blank, answers.array("remoteness"), -1)
    if answers.array("move") is not None:
        mv = np.where(given & ~blank, answers.array("move"), -1)
    loopy = {x: k for x, k in answers.loopy.items() if given[x]}
    out = replace(answers, given=given, loopy=loopy)
    for name, arr in (("remoteness", rem), ("move", mv)):
        if arr is not None:
            out = out.with_column(name, arr)
    return out


@st.composite
def cases(draw: st.DrawFn) -> Case:
    sem = draw(st.sampled_from(list(Semantics)))
    values = (-2, -1, 0, 1, 2) if sem is Semantics.MINIMAX else (-1, 0, 1)
    return random_case(
        sem,
        nodes=draw(st.integers(2, 14)),
        degree=draw(st.sampled_from([1.0, 1.6, 2.4])),
        seed=draw(st.integers(0, 10**6)),
        values=values,
        acyclic=draw(st.booleans()),
    )


@pytest.mark.parametrize("linear", [True, False], ids=["linear", "full"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), seed=st.integers(0, 2**32 - 1))
def test_every_subset_of_a_correct_table_verifies_and_a_corrupted_one_is_refuted(
    linear: bool, case: Case, seed: int
) -> None:
    import tempfile

    plain = run_case(case, Options(), smt=False)
    assert plain.solution is not None
    with tempfile.TemporaryDirectory() as tmp:
        full = load_answers(save_answers(plain.solution, case, Path(tmp) / "a.json"), case)
    rng = np.random.default_rng(seed)
    n = case.graph.n
    keep = rng.random(n) < rng.choice([0.15, 0.5, 0.85])
    keep[rng.integers(n)] = True  # at least one row
    blank = rng.random(n) < 0.3
    part = _subset(full, keep, blank)
    rep = run_with_claims(case, Options(linear=linear), part)
    check = _claims_check(rep)
    assert check.verdict is Verdict.CONFIRMED, check.detail
    assert rep.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.detail) for c in rep.checks if c.verdict is not Verdict.CONFIRMED
    ]
    # one claimed entry corrupted: refuted (a move corruption may be another optimal move)
    bad = [
        (what, x, a)
        for what, x, a in corruptions(case, part)
        if part.given[x]
        and (what != "move" or (part.array("move") is not None and part.array("move")[x] >= 0))
    ]
    if not bad:
        return
    what, x, wrong = bad[int(rng.integers(len(bad)))]
    rep = run_with_claims(case, Options(linear=linear), wrong)
    check = _claims_check(rep)
    if what == "move" and check.verdict is not Verdict.REFUTED:
        # another optimal move (a tie): then the whole table with that move verifies too
        assert wrong.array("move") is not None and full.array("move") is not None
        mv = full.array("move").copy()
        mv[x] = wrong.array("move")[x]
        whole = _claims_check(
            run_with_claims(case, Options(linear=linear), full.with_column("move", mv))
        )
        assert whole.verdict is check.verdict is Verdict.CONFIRMED, (whole.detail, check.detail)
        return
    assert check.verdict is Verdict.REFUTED, (what, case.graph.name(x), check.detail)
    assert rep.verdict is CaseVerdict.REFUTED
    assert (check.witness or {}).get("node") in {
        case.graph.name(int(y)) for y in np.flatnonzero(part.given)
    }, check.detail  # a claimed position is named, never one the file does not claim


@pytest.mark.parametrize("linear", [False, True], ids=["full", "linear"])
@pytest.mark.parametrize(
    "text",
    [
        "node,value,remoteness,move\ns,4,3,v\n",  # the tool's own root row
        "node,value,remoteness,move\ns,4,3,\n",  # its move left out
        "node,value\ns,4\n",
    ],
)
def test_the_root_row_alone_verifies(text: str, linear: bool, tmp_path: Path) -> None:
    case = _paul_carole(linear)
    path = tmp_path / "root.csv"
    path.write_text(text)
    rep = run_with_claims(case, Options(linear=linear), load_answers(path, case))
    assert _claims_check(rep).verdict is Verdict.CONFIRMED, _claims_check(rep).detail
    assert rep.verdict is CaseVerdict.VERIFIED


@pytest.mark.parametrize("linear", [False, True], ids=["full", "linear"])
def test_solve_output_minus_any_row_verifies(linear: bool, tmp_path: Path) -> None:
    case = _paul_carole(linear)
    plain = run_case(case, Options(), smt=False)
    assert plain.solution is not None
    full = load_answers(save_answers(plain.solution, case, tmp_path / "a.csv"), case)
    for x in range(case.graph.n):
        keep = np.ones(case.graph.n, dtype=np.bool_)
        keep[x] = False
        rep = run_with_claims(case, Options(linear=linear), _subset(full, keep, ~keep))
        assert rep.verdict is CaseVerdict.VERIFIED, (case.graph.name(x), _claims_check(rep).detail)


def test_claims_that_keep_their_rules_are_named_not_the_unclaimed_reader(tmp_path: Path) -> None:
    """Kars' figure 1 below a Max node p: claiming a = c = 2 keeps a's and c's rules (another
    solution of (T+MM) on the cycle) and breaks p's, which the file does not claim."""
    from verifier.io import parse_case

    case = parse_case(
        '{"semantics": "minimax", "id": "k", "root": "p", "nodes": {'
        '"p": {"owner": "max", "moves": ["a", "l"]}, "l": {"value": 1},'
        '"a": {"owner": "max", "moves": ["b", "c"]}, "b": {"value": -1},'
        '"c": {"owner": "min", "moves": ["d", "a"]}, "d": {"value": 2}}}'
    )
    path = tmp_path / "ac.csv"
    path.write_text("node,value\na,2\nc,2\n")
    for linear in (False, True):
        rep = run_with_claims(case, Options(linear=linear), load_answers(path, case))
        check = _claims_check(rep)
        assert check.verdict is Verdict.REFUTED
        assert check.witness["node"] == "a", check.detail
        assert check.witness["not_claimed"] == ["b"]
        assert "b=-1 (ours), c=2" in check.detail and "'p' (not claimed)" in check.detail


def test_a_wrong_root_row_is_still_refuted_at_the_root(tmp_path: Path) -> None:
    case = load_any(CASES / "dag-paul-carole.json")
    path = tmp_path / "root.csv"
    for text in ("node,value,remoteness,move\ns,3,3,u\n", "node,value,remoteness,move\ns,4,2,v\n"):
        path.write_text(text)
        for linear in (False, True):
            rep = run_with_claims(case, Options(linear=linear), load_answers(path, case))
            check = _claims_check(rep)
            assert check.verdict is Verdict.REFUTED, (text, linear, check.detail)
            assert (check.witness or {}).get("node") == "s", check.detail
