"""`verifier grundy` at scale and `generate nim --piles --below` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app
from verifier.games.octal import octal_sequence
from verifier.io import load_any

runner = CliRunner()


def test_grundy_of_many_heaps_uses_the_certified_period() -> None:
    r = runner.invoke(app, ["grundy", "octal:.137", "--upto", "100000", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert len(doc["values"]) == 100001
    assert (doc["preperiod"], doc["period"], doc["certified"]) == (52, 34, True)
    assert doc["computed"] == 4096
    assert doc["values"][:3001] == octal_sequence(".137", 3000)
    assert doc["values"][99999] == doc["values"][99999 - 34 * 1000]


def test_the_table_shows_the_first_values_and_says_how_the_rest_were_found() -> None:
    r = runner.invoke(app, ["grundy", ".77", "--upto", "10000"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert text.startswith("octal:.77: g(0..10000) = 0 1 2 3 1 4 3 2 1 4 2 6 4")
    assert "(10001 values: --format csv or --json gives them all)" in text
    assert "pre-period 71, period 12 (proved by the periodicity theorem" in text
    assert "heaps 0..4095 computed by the mex; the period gives the rest" in text


def test_grundys_game_has_no_theorem_and_is_computed_to_the_end() -> None:
    r = runner.invoke(app, ["grundy", "grundy", "--upto", "20000", "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = r.stdout.splitlines()
    assert rows[0] == "heap,value" and len(rows) == 20002
    assert rows[1:8] == ["0,0", "1,0", "2,0", "3,1", "4,0", "5,2", "6,1"]


def test_a_negative_upto_is_a_usage_error() -> None:
    r = runner.invoke(app, ["grundy", ".77", "--upto", "-1"])
    assert r.exit_code == 2


def test_generate_nim_piles_below(tmp_path: Path) -> None:
    out = tmp_path / "nim.json"
    r = runner.invoke(app, ["generate", "nim", "--piles", "3", "--below", "16", "-o", str(out)])
    assert r.exit_code == 0, r.output
    case = load_any(out)
    assert (case.graph.n, case.graph.m) == (4096, 92160)
    assert case.root is not None and case.graph.name(case.root) == "15,15,15"
    assert case.expect is not None and case.expect.grundy is not None
    assert case.expect.grundy[case.graph.id_of("5,9,12")] == 5 ^ 9 ^ 12
    assert sorted(
        case.graph.name(int(y)) for y in case.graph.successors(case.graph.id_of("0,1,1"))
    )[:2] == ["0,0,1", "0,1,0"]


def test_generate_nim_needs_both_options(tmp_path: Path) -> None:
    out = tmp_path / "nim.json"
    r = runner.invoke(app, ["generate", "nim", "--piles", "3", "-o", str(out)])
    assert r.exit_code == 2 and not out.exists()
    r = runner.invoke(app, ["generate", "nim", "--piles", "0", "--below", "3", "-o", str(out)])
    assert r.exit_code == 2 and not out.exists()
