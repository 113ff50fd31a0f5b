"""Checks are known by their registered name and by the columns they prove (issue 30 item 3):
the pipeline stamps ``check`` and ``proves`` on every result, and what vouches for a column is
read from them, never from a display name (``moves (kars-levels)``, ``grundy mex equations``)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from verifier.claims import CLAIMS, run_with_claims
from verifier.io import load_any
from verifier.io.answers import load_answers, save_answers
from verifier.model import CheckResult, Semantics, Verdict
from verifier.model.columns import COLUMNS, LOOPY, MOVE, REMOTENESS, VALUE
from verifier.model.results import OWN_CHECKS
from verifier.pipeline import run_case
from verifier.registry import Options, checks_for, load_plugins

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
OWN = OWN_CHECKS | {CLAIMS}
"""The pipeline's own results: comparisons, the answer file's verdict, a missing answer, a
crashed solver."""


def _registered() -> dict[str, frozenset[str]]:
    load_plugins()
    return {c.name: c.proves for s in Semantics for c in checks_for(s)}


CORPUS = [
    "dag-paul-carole.json",
    "knuth-won-lost-unknown.json",
    "ico-reachability.json",
    "impartial-loopy-smith.json",
    "impartial-nim-heaps-sums.json",
]


@pytest.mark.parametrize("name", CORPUS)
def test_every_result_carries_its_registered_check(name: str, tmp_path: Path) -> None:
    case = load_any(CASES / name)
    rep = run_case(case)
    assert rep.solution is not None
    answers = save_answers(rep.solution, case, tmp_path / "a.json")
    judged = run_with_claims(case, Options(), load_answers(answers, case))
    known = set(_registered()) | OWN
    for c in (*rep.checks, *judged.checks):
        assert c.check in known, (c.name, c.check)
        assert c.proves is not None and c.proves <= set(COLUMNS), (c.name, c.proves)


def test_every_published_column_is_proved_by_a_registered_check() -> None:
    proved = set().union(*_registered().values())
    assert {VALUE, LOOPY, REMOTENESS, MOVE} <= proved


def test_what_vouches_for_a_column_is_what_the_results_say() -> None:
    # the same display names with other `proves`: the Solution follows `proves`, not the name
    case = load_any(CASES / "dag-paul-carole.json")
    rep = run_case(case)
    assert rep.solution is not None
    moves = rep.solution.confirmed[MOVE]
    assert moves and all(n.startswith(("moves", "smt-strategy")) for n in moves)
    from verifier.model.solution import Solution

    moved = [
        dataclasses.replace(c, proves=frozenset({VALUE}))
        if c.check == "moves"
        else dataclasses.replace(c, proves=frozenset())
        for c in rep.checks
    ]
    sol = Solution.from_results(case, rep.results, moved)
    assert sol is not None
    assert sol.confirmed[MOVE] == ()
    assert sol.confirmed[VALUE] == tuple(sorted(c.name for c in moved if c.check == "moves"))
    refuted = [dataclasses.replace(c, verdict=Verdict.REFUTED) for c in rep.checks]
    sol = Solution.from_results(case, rep.results, refuted)
    assert sol is not None and all(v == () for v in sol.confirmed.values())


def test_a_result_vouches_only_when_confirmed() -> None:
    c = CheckResult("x", Verdict.UNKNOWN, proves=frozenset({VALUE}))
    assert not c.proving(VALUE)
    assert dataclasses.replace(c, verdict=Verdict.CONFIRMED).proving(VALUE)
    assert not dataclasses.replace(c, verdict=Verdict.CONFIRMED).proving(MOVE)


def test_no_module_selects_checks_by_their_display_name() -> None:
    # `<x>.name.startswith(...)` and `<x>.name == "<literal>"` on results are what item 3
    # removed; select by `.check` or `.proves` instead
    bad = []
    for path in sorted((ROOT / "verifier").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "startswith"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "name"
            ):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == "name"
                and any(
                    isinstance(c, ast.Constant) and isinstance(c.value, str)
                    for c in node.comparators
                )
            ):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bad == []


def test_by_check_and_checks_proving_select_by_registration() -> None:
    from verifier.model.results import by_check, checks_proving

    case = load_any(CASES / "dag-paul-carole.json")
    rep = run_case(case)
    moves = by_check(rep.checks, "moves")
    assert moves and all(c.check == "moves" and MOVE in (c.proves or ()) for c in moves)
    assert {c.check for c in by_check(rep.checks, "agree")} == {"agree"}
    proving = checks_proving(rep.checks, MOVE)
    assert proving and {c.check for c in proving} <= {"moves", "smt-strategy"}
    assert all(c.verdict is Verdict.CONFIRMED for c in proving)
    assert rep.solution is not None
    assert rep.solution.confirmed[MOVE] == tuple(sorted({c.name for c in proving}))
