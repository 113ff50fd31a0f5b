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
    with_values = json.loads(runner.invoke(verify_app, [CASE, "--json"]).stdout)
    without = json.loads(runner.invoke(verify_app, [CASE, "--json", "--no-values"]).stdout)
    assert with_values["solvers"]["kars-iteration"]["values"]["s"] == 4  # Paul-Carole root
    assert without["solvers"].keys() == with_values["solvers"].keys()
    assert all("values" not in s for s in without["solvers"].values())


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


def test_every_count_and_size_refuses_a_negative(tmp_path: Path) -> None:
    out = str(tmp_path / "x.json")
    bad = [
        (verify_app, [CASE, "--rlimit", "-1"]),
        (app, ["solve", CASE, "--engine", "dask", "--workers", "0"]),
        (app, ["solve", CASE, "--engine", "dask", "--partitions", "0"]),
        (app, ["generate", "connect4", "--width", "0", "-o", out]),
        (app, ["generate", "kqk", "--size", "-2", "-o", out]),
        (app, ["generate", "ladder", "--n", "0", "-o", out]),
        (app, ["generate", "random", "--nodes", "0", "-o", out]),
        (app, ["generate", "random", "--degree", "-1", "-o", out]),
        (app, ["generate", "random", "--terminal-fraction", "1.5", "-o", out]),
        (app, ["generate", "nim", "--upto", "-1", "-o", out]),
        (app, ["grundy", ".77", "--upto", "-3"]),
        (app, ["prove", "bouton", "--piles", "0"]),
        (app, ["prove", "bouton", "--bits", "0"]),
        (app, ["diff", CASE, CASE, "--limit", "-1"]),
    ]
    for target, args in bad:
        r = runner.invoke(target, args)
        assert r.exit_code == 2, (args, r.output)
    assert not Path(out).exists()
