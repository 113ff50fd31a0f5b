"""The checks that judge an answer file's claims are picked by what each check says it judged
(``CheckResult.judged``), never by the words of its name or detail (issue 45 item 6)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from verifier.claims import CLAIMS, _about, claimed, judge_claims
from verifier.games.random_graphs import random_case
from verifier.io.answers import load_answers, save_answers
from verifier.model import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.pipeline import run_case
from verifier.registry import Options


def test_display_words_naming_the_claims_do_not_count() -> None:
    words = CheckResult(
        f"agree score: ours = {CLAIMS}", Verdict.REFUTED, f"{CLAIMS}: wrong at 'a' (of {CLAIMS})"
    )
    assert not _about(words, CLAIMS)
    assert _about(replace(words, judged=frozenset({"ours", CLAIMS})), CLAIMS)
    assert not _about(replace(words, judged=frozenset({"ours"})), CLAIMS)


def test_the_checks_of_a_run_say_they_judged_the_claims(tmp_path: Path) -> None:
    case = random_case(Semantics.NORMAL, 12, 2.0, seed=3)
    opts = Options()
    sol = run_case(case, opts).solution
    assert sol is not None
    answers = load_answers(save_answers(sol, case, tmp_path / "a.json"), case)
    rep = run_case(case, opts, extra_results=claimed(answers))
    judged = [c for c in rep.checks if CLAIMS in c.judged]
    assert {c.check for c in judged} >= {"agree", "rules"}
    # a check that only mentions the claims in its words, refuted, leaves the verdict alone
    noise = CheckResult(f"rules ({CLAIMS})", Verdict.REFUTED, f"{CLAIMS}: a remark", check="x")
    right = judge_claims(rep, answers, opts).checks[0]
    noisy = judge_claims(replace(rep, checks=(*rep.checks, noise)), answers, opts).checks[0]
    assert right.verdict is Verdict.CONFIRMED
    assert (noisy.verdict, noisy.detail) == (right.verdict, right.detail)
