"""Plain progress lines on standard error when it is not a terminal; standard output untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.terminal import on_a_terminal
from verifier.progress import PlainProgress

ROOT = Path(__file__).resolve().parent.parent


def test_progress_lines_go_to_stderr_only() -> None:
    env = {**os.environ, "VERIFIER_PROGRESS_EVERY": "0", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "verify", "cases/dag-paul-carole.json", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "verified"  # stdout: the report alone
    lines = proc.stderr.splitlines()
    assert "progress: dag-paul-carole: solvers 0/7 after 0 s" in lines
    assert any(line.startswith("progress: dag-paul-carole: checks ") for line in lines)


def test_lines_are_spaced_by_every(tmp_path: Path) -> None:
    out = tmp_path / "log"
    with out.open("w") as f:
        p = PlainProgress(f, every=3600)
        for i in range(100):
            p("case: checks", i, 100)
    assert out.read_text() == ""  # nothing before an hour has passed


def test_generation_and_solving_report_progress_when_piped(tmp_path: Path) -> None:
    env = {**os.environ, "VERIFIER_PROGRESS_EVERY": "0.05", "PYTHONPATH": str(ROOT)}
    out = tmp_path / "t.npz"
    gen = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "generate", "lgame", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert gen.returncode == 0, gen.stderr
    assert any(
        line.startswith("progress: generating lgame after ") for line in gen.stderr.splitlines()
    )
    env["VERIFIER_PROGRESS_EVERY"] = "0"
    solve = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "solve", str(out), "--format", "csv"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert solve.returncode == 0, solve.stderr
    assert solve.stdout.startswith("position,value")
    assert any(
        line.startswith("progress: ") and "solvers" in line for line in solve.stderr.splitlines()
    )


def test_heartbeat_beats_while_the_block_runs(tmp_path: Path) -> None:
    import time

    from verifier.progress import heartbeat

    log = tmp_path / "log"
    with log.open("w") as f, heartbeat(f, "building", every=0.05):
        time.sleep(0.3)
    lines = log.read_text().splitlines()
    assert len(lines) >= 2 and all(line.startswith("progress: building after ") for line in lines)


def test_solve_names_the_answer_file_it_writes(tmp_path: Path) -> None:
    """``solve kqk.npz -o kqk.csv`` spent 20 s writing the file in silence: the stage is
    named, with its count of positions."""
    env = {**os.environ, "VERIFIER_PROGRESS_EVERY": "0", "PYTHONPATH": str(ROOT)}
    case = tmp_path / "t.npz"
    run = [sys.executable, "-m", "verifier.cli"]
    gen = subprocess.run([*run, "generate", "lgame", "-o", str(case)], capture_output=True, env=env)
    assert gen.returncode == 0, gen.stderr
    out = tmp_path / "t.csv"
    solve = subprocess.run(
        [*run, "solve", str(case), "-o", str(out), "-q"], capture_output=True, text=True, env=env
    )
    assert solve.returncode == 0, solve.stderr
    assert f"progress: writing {out}: " in solve.stderr
    assert any(x.startswith(f"progress: writing {out}: ") and x.endswith(" positions after 0 s")
               for x in solve.stderr.splitlines())  # fmt: skip


def test_a_chess_generation_reports_its_positions() -> None:
    """``generate chess:KQK``'s lines said only ``generating chess:KQK after N s``: the
    generator reports the positions done, which the lines carry with a rate."""
    from verifier.games import chess
    from verifier.progress import Counts, reporting

    seen: list[tuple[str, int, int]] = []
    counts = Counts()

    def both(task: str, done: int, total: int) -> None:
        seen.append((task, done, total))
        counts(task, done, total)

    with reporting(both):
        n = chess.generate("KQK", symmetry=True).graph.n
    assert ("positions whose moves are counted", n, n) in seen
    assert seen[-1] == ("positions whose moves are written", n, n)
    assert str(counts).startswith(f": positions whose moves are written {n:,}/{n:,}")


def test_solve_shows_a_bar_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal ``solve`` showed nothing while it solved: now the bar that ``verify``
    shows (standard error a pseudo-terminal here; standard output the report)."""
    env = {k: v for k, v in os.environ.items() if k != "VERIFIER_PROGRESS_EVERY"}
    code, out, seen = on_a_terminal(
        [sys.executable, "-m", "verifier.cli", "solve", "cases/dag-paul-carole.json"],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
    )
    assert code == 0 and "SOLVED" in out
    assert b"dag-paul-carole: solvers" in seen


def test_no_progress_with_q_or_when_piped_unless_asked_for(tmp_path: Path) -> None:
    """Issue 44: progress is off with -q (no bar on a terminal) and when standard error is
    piped, unless VERIFIER_PROGRESS_EVERY asks for lines (a log, a CI job)."""
    env = {k: v for k, v in os.environ.items() if k != "VERIFIER_PROGRESS_EVERY"}
    env["PYTHONPATH"] = str(ROOT)
    run = [sys.executable, "-m", "verifier.cli"]
    code, out, seen = on_a_terminal(
        [*run, "solve", "cases/dag-paul-carole.json", "-q"], cwd=ROOT, env=env
    )
    assert code == 0 and "SOLVED" in out
    assert b"dag-paul-carole: solvers" not in seen
    case = tmp_path / "t.npz"
    gen = subprocess.run([*run, "generate", "lgame", "-o", str(case)], capture_output=True,
                         text=True, env=env)  # fmt: skip
    assert gen.returncode == 0 and "progress:" not in gen.stderr, gen.stderr
    out_csv = tmp_path / "t.csv"
    solve = subprocess.run([*run, "solve", str(case), "-o", str(out_csv)], capture_output=True,
                           text=True, env={**env, "VERIFIER_PROGRESS_EVERY": "0"})  # fmt: skip
    assert solve.returncode == 0 and f"progress: writing {out_csv}: " in solve.stderr
