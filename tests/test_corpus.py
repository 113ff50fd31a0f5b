"""The regression corpus: every case under cases/ must be verified (like running perft files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case

CASES = sorted((Path(__file__).resolve().parent.parent / "cases").rglob("*.json"))


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_corpus_case_verified(path: Path) -> None:
    from verifier.io import load_any

    case = load_any(path)
    assert case.source, f"{path.name}: every corpus case names its source"
    assert case.expect is not None, f"{path.name}: every corpus case has an expect block"
    rep = run_case(case)
    bad = [
        f"{c.name}: {c.verdict.value}: {c.detail}"
        for c in rep.checks
        if c.verdict.value != "confirmed"
    ]
    assert rep.verdict is CaseVerdict.VERIFIED, "\n".join(bad)
    assert any(r.result is not None for r in rep.solvers), "no solver ran"
