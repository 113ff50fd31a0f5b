"""`verify --junit FILE`: one testcase per case, refuted = failure with the witness in words,
bad input = error."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import verify_app

runner = CliRunner()
CASES = Path(__file__).resolve().parent.parent / "cases"


def test_junit_report(tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    shutil.copy(CASES / "dag-paul-carole.json", folder / "good.json")
    bad = json.loads((CASES / "kars-figure1-b-ge-d.json").read_text())
    bad["id"] = "wrong-root"
    bad["expect"]["root_value"] = 7
    (folder / "wrong.json").write_text(json.dumps(bad))
    (folder / "broken.json").write_text("{")
    report = tmp_path / "report.xml"
    r = runner.invoke(verify_app, ["-q", str(folder), "--junit", str(report)])
    assert r.exit_code == 2  # a bad input is the worst outcome here
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"dag-paul-carole", "wrong-root", "broken.json"}
    assert cases["dag-paul-carole"].find("failure") is None
    assert cases["dag-paul-carole"].get("classname") == str(folder)
    failure = cases["wrong-root"].find("failure")
    assert failure is not None and failure.get("type") == "refuted"
    assert (failure.get("message") or "").startswith("expect root_value: ")
    assert "witness: " in (failure.text or "")
    error = cases["broken.json"].find("error")
    assert error is not None and error.get("type") == "bad-input"
    assert (error.get("message") or "").startswith(f"{folder / 'broken.json'}: $")


def test_junit_of_a_verified_run(tmp_path: Path) -> None:
    report = tmp_path / "r.xml"
    r = runner.invoke(verify_app, [str(CASES / "knuth-pure-cycle.json"), "--junit", str(report)])
    assert r.exit_code == 0
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("1", "0")
    (case,) = list(suite.iter("testcase"))
    assert list(case) == [] and float(case.get("time") or -1) >= 0


def test_an_inconclusive_case_is_an_error_naming_the_undecided_check() -> None:
    from dataclasses import replace

    from verifier.io import load_any
    from verifier.model import CheckResult, Verdict
    from verifier.model.report import CaseVerdict
    from verifier.pipeline import run_case
    from verifier.writers.junit import junit_tree

    rep = run_case(load_any(CASES / "dag-paul-carole.json"))
    undecided = CheckResult("smt-equations", Verdict.UNKNOWN, "Z3: canceled")
    rep = replace(rep, verdict=CaseVerdict.INCONCLUSIVE, checks=(*rep.checks, undecided))
    suite = junit_tree([rep], []).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == "1"
    error = next(suite.iter("testcase")).find("error")
    assert error is not None and error.get("type") == "inconclusive"
    assert error.get("message") == "smt-equations: Z3: canceled"
