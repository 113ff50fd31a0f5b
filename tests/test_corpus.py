"""The regression corpus: every case under cases/ must be verified (like running perft files).

A case of every format ``verify`` reads as text: JSON cases carry an ``expect`` block; GraphML and
GML cannot (their reader keeps no ``expect``), so each of those must be verified with the
certificate of its answer accepted by the standalone checker, which reads the file itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case

FORMATS = (".json", ".graphml", ".gml")
CASES = sorted(
    p for p in (Path(__file__).resolve().parent.parent / "cases").rglob("*") if p.suffix in FORMATS
)


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 10


def test_corpus_holds_a_case_of_every_text_format() -> None:
    assert {p.suffix for p in CASES} == set(FORMATS)


@pytest.mark.parametrize(
    "path", CASES, ids=[p.name if p.suffix != ".json" else p.stem for p in CASES]
)
def test_corpus_case_verified(path: Path) -> None:
    from verifier import api
    from verifier.io import load_any

    case = load_any(path)
    assert case.source, f"{path.name}: every corpus case names its source"
    if path.suffix == ".json":
        assert case.expect is not None, f"{path.name}: every corpus case has an expect block"
        rep = run_case(case)
    else:  # no expect block in the format: the answer proved by the checker's own reading
        rep = api.verify(path)
        cert = [c.verdict.value for c in rep.checks if c.check == "certificate"]
        assert cert == ["confirmed"], rep.findings
    bad = [
        f"{c.name}: {c.verdict.value}: {c.detail}"
        for c in rep.checks
        if c.verdict.value != "confirmed"
    ]
    assert rep.verdict is CaseVerdict.VERIFIED, "\n".join(bad)
    assert any(r.result is not None for r in rep.solvers), "no solver ran"
