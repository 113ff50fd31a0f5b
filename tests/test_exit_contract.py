"""The exit-code contract of ``solve``: it never says VERIFIED (it runs no proofs), and says why
when it cannot answer."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app

CASES = Path(__file__).resolve().parent.parent / "cases"
runner = CliRunner()


def test_solve_says_solved_not_verified() -> None:
    r = runner.invoke(app, ["solve", str(CASES / "kars-figure1-b-lt-d.json")], terminal_width=300)
    assert r.exit_code == 0
    head = r.stdout.splitlines()[0]
    assert "SOLVED" in head and "VERIFIED" not in head and "no proofs" in head
    doc = json.loads(
        runner.invoke(app, ["solve", str(CASES / "kars-figure1-b-lt-d.json"), "--json"]).stdout
    )
    assert doc["verdict"] == "solved"


def test_solve_without_an_answer_says_why() -> None:
    # the numpy engine has no solver for a cyclic impartial graph (the loopy ones are the
    # reference and the compiled engine's)
    r = runner.invoke(
        app, ["solve", str(CASES / "impartial-loopy-smith.json"), "--engine", "numpy", "--json"]
    )
    assert r.exit_code == 3
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "inconclusive"
    [answer] = [c for c in doc["checks"] if c["name"] == "answer"]
    assert answer["verdict"] == "unknown" and "no solver answered" in answer["detail"]
    assert "grundy-numpy" in answer["detail"]
