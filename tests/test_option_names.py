"""One option name, one meaning: Z3's seed is --z3-seed (generate's --seed is the graph's),
generate's terminal values are --terminal-values (verify's --values is per-node JSON);
numeric options refuse values out of range with a usage error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.main import get_command
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


def _options() -> list[tuple[str, Any]]:
    """Every option of every command of both apps: (command words, the option)."""
    out: list[tuple[str, Any]] = []

    def walk(words: str, cmd: Any) -> None:
        out.extend((words, p) for p in cmd.params if p.param_type_name == "option")
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(f"{words} {name}", sub)

    walk("verifier", get_command(app))
    walk("verify", get_command(verify_app))
    return out


OLD_NAMES = {"--out": "--output", "--timeout": "--budget"}
"""Old spellings, kept hidden for one release: old -> new."""


def test_one_name_per_idea_in_every_command() -> None:
    options = _options()
    assert len({words for words, _ in options}) >= 12  # every command was walked
    for words, p in options:
        names = [*p.opts, *p.secondary_opts]
        if p.hidden:
            assert names[0] in OLD_NAMES, (words, names)  # only old spellings hide
            continue
        assert not set(names) & set(OLD_NAMES), (words, names)
        if "-o" in names:
            assert names[:2] == ["--output", "-o"], (words, names)
        if "--output" in names:
            assert "-o" in names, (words, names)
        if "-q" in names:
            assert "--quiet" in names, (words, names)
    hidden = {(words, p.opts[0]) for words, p in options if p.hidden}
    assert ("verifier solve", "--out") in hidden
    assert ("verifier study uniqueness", "--timeout") in hidden
    assert ("verifier study uniqueness", "--out") in hidden


def test_old_spellings_still_work(tmp_path: Path) -> None:
    out = tmp_path / "a.csv"
    r = runner.invoke(app, ["solve", CASE, "--out", str(out)])
    assert r.exit_code == 0, r.stderr
    assert out.read_text().startswith("node,value")
    assert "--out is now --output" in r.stderr
    r = runner.invoke(app, ["solve", CASE, "--out", str(out), "-o", str(tmp_path / "b.csv")])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
    sweep = str(tmp_path / "sweep")
    # --timeout is --budget: a bad value is refused under the new name, before any work
    r = runner.invoke(app, ["study", "uniqueness", "--out", sweep, "--timeout", "-1"])
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == "--budget: give 0 (no limit) or more seconds: got -1"
    r = runner.invoke(app, ["study", "uniqueness", "-o", sweep, "--budget", "-1"])
    assert r.exit_code == 2 and r.stderr.splitlines() == [
        "--budget: give 0 (no limit) or more seconds: got -1"
    ]
    r = runner.invoke(app, ["study", "uniqueness", "--budget", "5"])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1 and "--output" in r.stderr
