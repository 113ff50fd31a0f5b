"""The CLI: exit codes, one-line errors, the --json report, folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app, verify_app

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
runner = CliRunner()


def run_verify(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(verify_app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_verify_one_case_table() -> None:
    code, out, _ = run_verify(str(CASES / "kars-figure1-b-lt-d.json"))
    assert code == 0, out
    assert "kars-figure1-b-lt-d" in out and "VERIFIED" in out
    assert "[lfp, gfp]" in out  # details are printed as text, not read as rich markup


def test_verify_json_report_keys() -> None:
    code, out, _ = run_verify(str(CASES / "kars-figure1-b-lt-d.json"), "--json")
    assert code == 0
    rep = json.loads(out)
    for key in ("case", "semantics", "nodes", "edges", "verdict", "solvers", "checks", "summary"):
        assert key in rep
    assert rep["verdict"] == "verified" and rep["nodes"] == 4 and rep["edges"] == 4
    assert rep["solvers"], "no solver ran"
    for s in rep["solvers"].values():
        assert "values" in s and "seconds" in s
    for c in rep["checks"]:
        assert set(c) >= {"name", "verdict", "detail"}
        assert c["verdict"] in ("confirmed", "refuted", "unknown")
    some = next(iter(rep["solvers"].values()))
    assert some["values"]["a"] == 0 and some["values"]["d"] == 2


def test_verifier_verify_subcommand_same_as_verify() -> None:
    r = runner.invoke(app, ["verify", str(CASES / "knuth-cycle-with-exit.json"), "--json"])
    assert r.exit_code == 0
    assert json.loads(r.stdout)["summary"]["root_value"] == "lost"


def test_verify_folder(tmp_path: Path) -> None:
    for name in ("kars-figure1-b-ge-d.json", "knuth-pure-cycle.json"):
        shutil.copy(CASES / name, tmp_path / name)
    code, out, _ = run_verify(str(tmp_path), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["verdict"] == "verified" and len(doc["cases"]) == 2


def test_wrong_expectation_is_refuted(tmp_path: Path) -> None:
    case = json.loads((CASES / "kars-figure1-b-lt-d.json").read_text())
    case["expect"]["values"]["a"] = 1  # Kars' score of a is 0
    f = tmp_path / "wrong.json"
    f.write_text(json.dumps(case))
    code, out, _ = run_verify(str(f), "--json")
    assert code == 1
    rep = json.loads(out)
    assert rep["verdict"] == "refuted"
    bad = [c for c in rep["checks"] if c["verdict"] == "refuted"]
    assert bad and bad[0]["witness"]["node"] == "a"


@pytest.mark.parametrize(
    ("text", "path_fragment"),
    [
        ("{not json", "$"),
        ('{"semantics": "chess", "nodes": {"a": {}}}', "$.semantics"),
        (
            '{"semantics": "minimax", "nodes": {"a": {"owner": "max", "moves": ["zz"]}}}',
            "$.nodes.a.moves[0]",
        ),
    ],
)
def test_bad_input_exit_2_one_line(tmp_path: Path, text: str, path_fragment: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(text)
    before = f.read_bytes()
    code, out, err = run_verify(str(f))
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "bad.json" in lines[0] and path_fragment in lines[0]
    assert "Traceback" not in err + out
    assert f.read_bytes() == before


def test_missing_file_exit_2(tmp_path: Path) -> None:
    code, out, err = run_verify(str(tmp_path / "nope.json"))
    assert code == 2
    assert "nope.json" in err and "Traceback" not in err + out


def test_bad_file_in_folder_still_runs_the_others(tmp_path: Path) -> None:
    shutil.copy(CASES / "kars-figure1-b-ge-d.json", tmp_path / "good.json")
    (tmp_path / "bad.json").write_text('{"semantics": "minimax", "nodes": []}')
    code, out, _err = run_verify(str(tmp_path), "--json")
    assert code == 2
    doc = json.loads(out)
    assert len(doc["cases"]) == 1 and doc["cases"][0]["verdict"] == "verified"
    assert len(doc["errors"]) == 1 and "bad.json" in doc["errors"][0]


def test_tiny_resource_limit_is_inconclusive_never_verified() -> None:
    code, out, _ = run_verify(str(CASES / "kars-figure1-b-lt-d.json"), "--json", "--rlimit", "1")
    rep = json.loads(out)
    assert code == 3 and rep["verdict"] == "inconclusive"
    assert any(c["verdict"] == "unknown" for c in rep["checks"])


def test_help_lists_commands() -> None:
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0
    for cmd in ("verify",):
        assert cmd in r.stdout


def test_generate_then_verify(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    r = runner.invoke(app, ["generate", "ladder", "--n", "2", "-o", str(out)])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["semantics"] == "minimax"
    code, rep_text, _ = run_verify(str(out), "--json")
    assert code == 0
    assert json.loads(rep_text)["nodes"] == 10  # 4n + 2


def test_generate_bad_usage_exit_2(tmp_path: Path) -> None:
    r = runner.invoke(app, ["generate", "chess", "-o", str(tmp_path / "x.json")])
    assert r.exit_code == 2 and "unknown game 'chess'" in r.stderr
    r = runner.invoke(app, ["generate", "tictactoe", "--size", "3", "-o", str(tmp_path / "x.json")])
    assert r.exit_code == 2 and "--size" in r.stderr
    assert not (tmp_path / "x.json").exists()


def test_solve_runs_solvers_without_smt() -> None:
    r = runner.invoke(app, ["solve", str(CASES / "knuth-won-lost-unknown.json"), "--json"])
    assert r.exit_code == 0, r.stdout
    rep = json.loads(r.stdout)
    assert rep["solvers"]["retrograde"]["values"]["e"] == "lost"
    assert rep["solvers"]["retrograde"]["remoteness"]["e"] == 4
    assert not any(c["name"].startswith("smt") for c in rep["checks"])


def test_grundy_sequence_and_period() -> None:
    r = runner.invoke(app, ["grundy", "subtraction:1,2,3", "--upto", "40", "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["values"] == [n % 4 for n in range(41)]
    assert (doc["preperiod"], doc["period"], doc["certified"]) == (0, 4, True)


def test_prove_bouton_small() -> None:
    r = runner.invoke(app, ["prove", "bouton", "--piles", "2", "--bits", "3", "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "confirmed"
    assert all(p["status"] == "unsat" for p in doc["parts"])


def test_schema_command_matches_docs() -> None:
    r = runner.invoke(app, ["schema"])
    assert r.exit_code == 0
    assert json.loads(r.stdout) == json.loads((ROOT / "docs" / "case.schema.json").read_text())


def test_render_dot(tmp_path: Path) -> None:
    out = tmp_path / "fig1.dot"
    r = runner.invoke(app, ["render", str(CASES / "kars-figure1-b-lt-d.json"), "-o", str(out)])
    assert r.exit_code == 0, r.stderr
    text = out.read_text()
    assert text.startswith("digraph")
    assert 'label="a\\n0\\n[-1, 2]' in text  # node a: Kars' score 0, interval [b, d]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_generated_names_survive_the_file(tmp_path: Path, suffix: str) -> None:
    from verifier.games.generators import generate
    from verifier.io import load_any

    out = tmp_path / f"kqk{suffix}"
    r = runner.invoke(app, ["generate", "kqk", "--size", "4", "-o", str(out)])
    assert r.exit_code == 0, r.stderr
    case = generate("kqk", size=4)
    back = load_any(out)
    assert back.graph.has_names
    assert list(back.graph.names) == list(case.graph.names)
    assert back.graph.name(0) != "0"


@pytest.mark.dask
def test_solve_with_dask_engine(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    r = runner.invoke(
        app,
        [
            "solve",
            str(CASES / "kars-figure1-b-lt-d.json"),
            "--engine",
            "dask",
            "--json",
            "--output",
            str(tmp_path / "out"),
        ],
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["engine"] == "dask" and doc["summary"]["root_value"] == 0
    assert (tmp_path / "out" / "manifest.json").is_file()  # the case stored as a dataset
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == doc["summary"]
