"""Certificates of the whole corpus, written once per test session by ``verify --certificate``."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier import api
from verifier.model.report import CaseVerdict

CASES = Path(__file__).resolve().parents[2] / "cases"


@pytest.fixture(scope="session")
def corpus_certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """Case file -> its certificate (``.json``), for every case of ``cases/`` (GraphML and GML
    too: the checker reads them itself)."""
    root = tmp_path_factory.mktemp("corpus-certificates")
    out = {}
    for case in sorted(p for p in CASES.iterdir() if p.suffix in (".json", ".graphml", ".gml")):
        cert = root / f"{case.stem}.cert.json"
        rep = api.verify(case, certificate=cert)
        assert rep.verdict is CaseVerdict.VERIFIED, (case.name, rep.findings)
        out[case] = cert
    return out
