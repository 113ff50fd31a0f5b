"""Answer files: written with ``solve -o`` and read back with ``verify --answers`` they verify;
every single-entry corruption is refuted naming that node (or reported as another solution of
the equations); bad files are one-line errors with exit 2."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from answer_corruptions import corruptions
from typer.testing import CliRunner

from verifier.claims import claimed, judge_claims
from verifier.errors import CaseError
from verifier.games.random_graphs import random_case
from verifier.io import save_any
from verifier.io.answers import Answers, load_answers, save_answers
from verifier.model import Case, Verdict
from verifier.model.report import CaseReport
from verifier.model.semantics import Semantics
from verifier.pipeline import run_case
from verifier.registry import Options

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
runner = CliRunner()
SEMANTICS = list(Semantics)
SEEDS = (1, 2, 3)
SUFFIXES = [".json", ".csv", ".npz"] + ([".parquet"] if find_spec("pyarrow") else [])


def _case(sem: Semantics, seed: int) -> Case:
    values = (-2, -1, 0, 1, 2) if sem is Semantics.MINIMAX else (-1, 0, 1)
    return random_case(sem, nodes=9, degree=1.8, seed=seed, values=values)


def _judged(case: Case, answers: Answers) -> CaseReport:
    opts = Options()
    rep = run_case(case, opts, extra_results=claimed(answers))
    return judge_claims(rep, answers, opts)


def _verdict_of_claims(rep: CaseReport) -> Any:
    return next(c for c in rep.checks if c.name.startswith("answers "))


@pytest.mark.parametrize("sem", SEMANTICS)
@pytest.mark.parametrize(
    "suffix", [".json", ".csv", ".npz", *([".parquet"] * bool(find_spec("pyarrow")))]
)
def test_round_trip_verifies(sem: Semantics, suffix: str, tmp_path: Path) -> None:
    for seed in SEEDS[:2]:
        case = _case(sem, seed)
        ours = run_case(case, Options(), smt=False)
        assert ours.solution is not None
        path = save_answers(ours.solution, case, tmp_path / f"a{suffix}")
        answers = load_answers(path, case)
        rep = _judged(case, answers)
        check = _verdict_of_claims(rep)
        assert check.verdict is not Verdict.REFUTED, check.detail
        plain = run_case(case, Options())
        assert rep.verdict == plain.verdict, check.detail


@pytest.mark.parametrize("sem", SEMANTICS)
def test_every_single_corruption_is_refuted_at_its_node(sem: Semantics, tmp_path: Path) -> None:
    tried = 0
    for seed in (7, 8, 9):
        case = _case(sem, seed)
        ours = run_case(case, Options(), smt=False)
        assert ours.solution is not None
        answers = load_answers(save_answers(ours.solution, case, tmp_path / "a.json"), case)
        for what, x, bad in corruptions(case, answers)[:8]:
            check = _verdict_of_claims(_judged(case, bad))
            name = case.graph.name(x)
            if what == "move" and check.verdict is not Verdict.REFUTED:
                continue  # another optimal move (ties): a valid answer too
            tried += 1
            assert check.verdict is Verdict.REFUTED, (what, name, check.detail)
            w = check.witness or {}
            assert w.get("node") == name or "another solution" in w.get("rule", ""), (
                what,
                name,
                check.detail,
            )
    assert tried > 3


def test_another_minimax_solution_is_reported_as_such(tmp_path: Path) -> None:
    case = _load(CASES / "kars-figure1-b-lt-d.json")
    path = tmp_path / "alt.csv"
    path.write_text("node,value\na,2\nb,-1\nc,2\nd,2\n")
    rep = _judged(case, load_answers(path, case))
    check = _verdict_of_claims(rep)
    assert check.verdict is Verdict.REFUTED
    assert "another solution of (T+MM), not Kars' score" in check.detail
    assert "[-1, 2]" in check.detail and "is 0" in check.detail


def test_partial_answer_checks_what_is_given(tmp_path: Path) -> None:
    case = _load(CASES / "knuth-won-lost-unknown.json")
    path = tmp_path / "root.json"
    path.write_text(json.dumps({"nodes": {"d": {"value": "won", "remoteness": 3, "move": "a"}}}))
    assert _judged(case, load_answers(path, case)).verdict.value == "verified"
    path.write_text(json.dumps({"nodes": {"d": "lost"}}))
    check = _verdict_of_claims(_judged(case, load_answers(path, case)))
    assert check.verdict is Verdict.REFUTED and check.witness and check.witness["node"] == "d"
    assert "successors" in check.witness and "rule" in check.witness


def _load(p: Path) -> Case:
    from verifier.io import load_any

    return load_any(p)


BAD_FILES = [
    ("wrong.csv", "node,value\nzz,won\n", "no position named"),
    ("type.csv", "node,value\na,3\n", "not 'won', 'lost', 'draw' or 'unknown'"),
    ("cols.csv", "node,remoteness\na,2\n", "missing column 'value'"),
    ("extra.csv", "node,value,colour\na,won,red\n", "unknown column"),
    ("dup.csv", "node,value\na,lost\na,lost\n", "duplicate entry"),
    ("rem.csv", "node,value,remoteness\na,lost,-2\n", "not a remoteness"),
    ("move.csv", "node,value,move\na,lost,nowhere\n", "no position named"),
    ("empty.csv", "", "header is missing"),
    ("other.json", '{"graph": {"positions": 99}, "nodes": {"a": "lost"}}', "another graph"),
    ("sem.json", '{"semantics": "minimax", "nodes": {"a": "lost"}}', "the case is normal"),
    ("dupkey.json", '{"nodes": {"a": "lost", "a": "won"}}', "duplicate key"),
    ("badjson.json", '{"nodes": ', "invalid JSON"),
    ("val.json", '{"nodes": {"a": {"remoteness": 2}}}', "required field is missing"),
    ("kind.txt", "a,lost", "unknown answer file type"),
]


@pytest.mark.parametrize(("name", "text", "problem"), BAD_FILES)
def test_bad_answer_files_are_one_line_errors(
    name: str, text: str, problem: str, tmp_path: Path
) -> None:
    from verifier.cli import verify_app

    path = tmp_path / name
    path.write_text(text)
    case = _load(CASES / "knuth-won-lost-unknown.json")
    with pytest.raises(CaseError) as e:
        load_answers(path, case)
    assert problem in str(e.value)
    r = runner.invoke(
        verify_app, [str(CASES / "knuth-won-lost-unknown.json"), "--answers", str(path)]
    )
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert "\n" not in line and line.startswith(f"{path}: ") and problem in line


def test_npz_table_for_another_graph(tmp_path: Path) -> None:
    small = _load(CASES / "knuth-won-lost-unknown.json")
    big = _case(Semantics.NORMAL, 1)
    ours = run_case(big, Options(), smt=False)
    assert ours.solution is not None
    path = save_answers(ours.solution, big, tmp_path / "big.npz")
    with pytest.raises(CaseError, match="another graph"):
        load_answers(path, small)


def test_cli_solve_verify_and_diff(tmp_path: Path) -> None:
    from verifier.cli import app

    case = str(CASES / "knuth-won-lost-unknown.json")
    out = tmp_path / "mine.csv"
    assert runner.invoke(app, ["solve", case, "-o", str(out)]).exit_code == 0
    assert out.read_text().startswith("node,value,remoteness,move\n")
    r = runner.invoke(app, ["verify", case, "--answers", str(out)])
    assert r.exit_code == 0, r.stdout
    assert runner.invoke(app, ["diff", case, str(out)]).exit_code == 0
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(out.read_text().replace("d,won,3,a", "d,lost,3,a"))
    r = runner.invoke(app, ["verify", case, "--answers", str(wrong)])
    assert r.exit_code == 1 and "wrong at 'd'" in r.stdout
    r = runner.invoke(app, ["diff", str(out), str(wrong), "--case", case])
    assert r.exit_code == 1 and "d: value: won != lost" in r.stdout
    assert r.stdout.splitlines()[-1] == (f"{out} vs {wrong}: 1 of 12 positions differ (1 entry)")
    assert runner.invoke(app, ["diff", str(out), str(wrong)]).exit_code == 2
    # the same difference for a program, for a spreadsheet, and as one line
    r = runner.invoke(app, ["diff", str(out), str(wrong), "--case", case, "--json"])
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and doc["identical"] is False and doc["positions_differing"] == 1
    assert doc["entries"] == [{"position": "d", "column": "value", "left": "won", "right": "lost"}]
    r = runner.invoke(app, ["diff", str(out), str(wrong), "--case", case, "--format", "csv"])
    assert r.exit_code == 1 and r.stdout == "position,column,left,right\nd,value,won,lost\n"
    r = runner.invoke(app, ["diff", str(out), str(wrong), "--case", case, "-q"])
    assert r.exit_code == 1 and len(r.stdout.splitlines()) == 1


def test_verify_format_csv_output_reads_back(tmp_path: Path) -> None:
    from verifier.cli import verify_app

    case = str(CASES / "ico-reachability.json")
    r = runner.invoke(verify_app, [case, "--format", "csv"])
    path = tmp_path / "report.csv"
    path.write_text(r.stdout)
    r = runner.invoke(verify_app, [case, "--answers", str(path)])
    assert r.exit_code == 0, r.stdout


def test_saved_case_path_is_not_overwritten(tmp_path: Path) -> None:
    case = _case(Semantics.IMPARTIAL, 1)
    p = save_any(case, tmp_path / "c.json")
    assert np.asarray(_load(p).graph.succ_idx).tolist() == case.graph.succ_idx.tolist()
