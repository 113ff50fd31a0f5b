"""Issue 44 (3): the seconds a report gives are the wall time of every stage, each named:
reading the files, solving, comparing, the checks, writing the certificate and the standalone
checker's self-check (which used to be left out: "VERIFIED (8.59 s)" after 100 s)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier import api
from verifier.cli import verify_app

CASES = Path(__file__).resolve().parents[1] / "cases"
STAGES = ["read", "solve", "compare", "checks", "summary", "certificate", "self-check"]


def test_the_report_seconds_are_the_sum_of_named_stages_self_check_included() -> None:
    t0 = time.perf_counter()
    rep = api.verify(CASES / "knuth-won-lost-unknown.json")
    wall = time.perf_counter() - t0
    assert rep.verdict.value == "verified"
    assert list(rep.stages) == STAGES
    assert rep.seconds == pytest.approx(sum(rep.stages.values()))
    assert rep.seconds <= wall
    cert = next(c for c in rep.checks if c.check == "certificate")
    assert rep.stages["self-check"] == pytest.approx(cert.seconds)  # the checker's run


def test_without_self_check_no_certificate_stage() -> None:
    rep = api.verify(CASES / "knuth-won-lost-unknown.json", self_check=False)
    assert list(rep.stages) == ["read", "solve", "compare", "checks", "summary"]


def test_verify_prints_the_wall_time_by_stage_and_json_gives_them() -> None:
    runner = CliRunner()
    r = runner.invoke(verify_app, [str(CASES / "dag-paul-carole.json")])
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.strip().startswith("wall time"))
    for stage in STAGES:
        assert f" {stage} " in row
    j = runner.invoke(verify_app, [str(CASES / "dag-paul-carole.json"), "--json"])
    doc = json.loads(j.stdout)
    assert list(doc["stages"]) == STAGES
    assert doc["seconds"] == pytest.approx(sum(doc["stages"].values()), abs=1e-4)
