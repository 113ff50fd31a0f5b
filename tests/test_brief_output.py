"""A folder prints one line per case and the table of each case not verified; --quiet prints
one line per case; one case prints its table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import verify_app

runner = CliRunner()
CASES = Path(__file__).resolve().parent.parent / "cases"


def _folder(tmp_path: Path) -> Path:
    """Two good cases and one whose expect is wrong."""
    for name in ("dag-paul-carole", "knuth-pure-cycle"):
        shutil.copy(CASES / f"{name}.json", tmp_path / f"{name}.json")
    bad = json.loads((CASES / "kars-figure1-b-ge-d.json").read_text())
    bad["id"] = "wrong-root"
    bad["expect"]["root_value"] = 7
    (tmp_path / "wrong-root.json").write_text(json.dumps(bad))
    return tmp_path


def test_a_folder_prints_a_line_per_case_and_the_failures_in_full(tmp_path: Path) -> None:
    r = runner.invoke(verify_app, [str(_folder(tmp_path))])
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith("dag-paul-carole  minimax, 8 nodes, 8 moves  ->  VERIFIED")
    assert lines[0].endswith("from s: Max wins, score 4 in 3 plies; best move s -> v")
    assert lines[1].startswith("knuth-pure-cycle  normal, 3 nodes, 3 moves  ->  VERIFIED")
    assert lines[1].endswith("from p: a draw: neither side can force a win; best move p -> q")
    assert lines[2].startswith("wrong-root  minimax, 4 nodes, 4 moves  ->  REFUTED")
    assert any("expect root_value" in line and "refuted" in line for line in lines[3:])
    assert lines[-1] == "3 case(s): 2 verified, 1 refuted"


def test_quiet_prints_one_line_per_case(tmp_path: Path) -> None:
    r = runner.invoke(verify_app, ["--quiet", str(_folder(tmp_path))])
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 4 and lines[-1] == "3 case(s): 2 verified, 1 refuted"
    assert "REFUTED" in lines[2] and "from a: Max wins, score 2 in 1 ply" in lines[2]
    one = runner.invoke(verify_app, ["-q", str(CASES / "ico-reachability.json")])
    assert one.exit_code == 0
    assert len(one.stdout.splitlines()) == 1
    assert one.stdout.rstrip().endswith(  # no root: the counts, per player
        "player 0 reaches the target from 4, player 1 keeps play away from it from 4, "
        "longest forced reach 3 moves"
    )


def test_verbose_prints_every_table_and_one_case_prints_its_table(tmp_path: Path) -> None:
    r = runner.invoke(verify_app, ["-v", str(_folder(tmp_path))])
    assert r.stdout.count("solver / check") == 3
    one = runner.invoke(verify_app, [str(CASES / "dag-paul-carole.json")])
    assert one.stdout.count("solver / check") == 1


def test_quiet_and_verbose_together_are_a_usage_error() -> None:
    r = runner.invoke(verify_app, ["-q", "-v", str(CASES / "dag-paul-carole.json")])
    assert r.exit_code == 2


def test_piped_tables_are_neither_padded_nor_wrapped() -> None:
    # CliRunner's stdout is not a terminal: each row is one line as long as its text
    r = runner.invoke(verify_app, ["-v", str(CASES / "dag-paul-carole.json")])
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert all(line == line.rstrip() for line in lines)
    rows = [line for line in lines if line.startswith("  smt-won-lost") or "Z3 confirms" in line]
    assert rows and all(len(line) > 0 for line in rows)
    # a detail longer than 140 columns stays on its row (no continuation lines of spaces)
    assert max(map(len, lines)) > 140
    assert not any(line.startswith(" " * 20) for line in lines)


def test_counts_are_singular_for_one() -> None:
    # dag-paul-carole's longest win is 3 plies; a one-ply win must not read "1 plies", nor
    # 31 plies "31 ply" (the old string replace of "1 plies")
    from verifier.model.words import count

    assert [count(n, "ply") for n in (1, 21, 31, 0)] == ["1 ply", "21 plies", "31 plies", "0 plies"]
    r = runner.invoke(verify_app, [str(CASES / "dag-paul-carole.json")])
    assert "longest win 3 plies" in r.stdout and "8 nodes, 8 moves" in r.stdout
    assert "(1 queries)" not in r.stdout


def test_solve_quiet_prints_one_line() -> None:
    from verifier.cli import app

    r = runner.invoke(app, ["solve", "-q", str(CASES / "dag-paul-carole.json")])
    assert r.exit_code == 0
    (line,) = r.stdout.splitlines()
    assert line.startswith("dag-paul-carole  minimax, 8 nodes, 8 moves  ->  SOLVED")
    assert line.endswith("from s: Max wins, score 4 in 3 plies; best move s -> v")


def test_a_huge_case_id_prints_in_linear_time(tmp_path: Path) -> None:
    # found by the hostile-input fuzzer: a 200 kB id sent rich's highlighter regexes into a
    # minutes-long backtrack in `verify -q`; lines holding the user's text are never highlighted
    import subprocess
    import sys

    case = json.loads((CASES / "ico-reachability.json").read_text())
    case["id"] = "x" * 200_000
    path = tmp_path / "huge-id.json"
    path.write_text(json.dumps(case))
    for flag in ("-q", "-v"):
        r = subprocess.run(
            [sys.executable, "-m", "verifier.cli", "verify", flag, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr[-500:]
        assert r.stdout.startswith("x" * 200_000 + "  reachability")
