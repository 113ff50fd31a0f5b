"""One option name, one meaning: Z3's seed is --z3-seed (generate's --seed is the graph's),
generate's terminal values are --terminal-values (verify's --values is per-node JSON);
numeric options refuse values out of range with a usage error."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app, verify_app

runner = CliRunner()
CASE = str(Path(__file__).resolve().parent.parent / "cases" / "dag-paul-carole.json")


def test_seeds_and_values_mean_one_thing(tmp_path: Path) -> None:
    assert runner.invoke(verify_app, [CASE, "--z3-seed", "7", "-q"]).exit_code == 0
    assert runner.invoke(verify_app, [CASE, "--seed", "7"]).exit_code == 2
    out = tmp_path / "r.json"
    args = ["generate", "random", "--semantics", "minimax", "--nodes", "12", "--seed", "4"]
    r = runner.invoke(app, [*args, "--terminal-values", "-2,5", "-o", str(out)])
    assert r.exit_code == 0, r.output
    values = {n.get("value") for n in json.loads(out.read_text())["nodes"].values()}
    assert values - {None} <= {-2, 5}
    assert (
        runner.invoke(app, [*args, "--values", "1", "-o", str(tmp_path / "x.json")]).exit_code == 2
    )
    doc = json.loads(runner.invoke(verify_app, [CASE, "--json", "--no-values"]).stdout)
    assert "values" not in json.dumps(doc.get("solvers", {}))


def test_numbers_out_of_range_are_usage_errors(tmp_path: Path) -> None:
    for args in (
        [CASE, "--z3-seed", "-1"],
        [CASE, "--budget", "-3"],
        [CASE, "--max-positions", "0"],
    ):
        assert runner.invoke(verify_app, args).exit_code == 2, args
    r = runner.invoke(app, ["generate", "nim", "--piles", "0", "--below", "2", "-o", "x.json"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["generate", "random", "--seed", "-5", "-o", str(tmp_path / "y.json")])
    assert r.exit_code == 2
