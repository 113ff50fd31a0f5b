"""Issue 44 (2): Ctrl-C on an ``--engine dask`` command says in one line what stopped and how
to go on, exits 130, and leaves no process and no traceback (the worker processes used to print
two or three tracebacks, and an interrupted cluster start an ``atexit`` one).

The command runs as a real process in its own process group, and the test sends SIGINT to the
whole group, as a terminal does on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from verifier.cli import interrupted_line

pytestmark = pytest.mark.dask


def _command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from verifier.cli import main; main()", *args]


def _interrupt_when(args: list[str], seen: str, cwd: Path) -> tuple[int, list[str], list[int]]:
    """Run ``args``, send Ctrl-C to its process group once a stderr line holds ``seen``; its
    exit code, stderr lines and the pids of the processes it had started."""
    p = subprocess.Popen(
        args,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "VERIFIER_PROGRESS_EVERY": "5"},  # the stages' lines, piped
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's
    )
    assert p.stderr is not None
    lines: list[str] = []
    for line in p.stderr:
        lines.append(line.rstrip("\n"))
        if seen in line:
            break
    children = [c.pid for c in psutil.Process(p.pid).children(recursive=True)]
    assert children, "the Dask cluster's processes"
    os.killpg(p.pid, signal.SIGINT)
    _, rest = p.communicate(timeout=120)
    lines += rest.splitlines()
    return p.returncode, lines, children


def test_ctrl_c_while_generating_one_line_130_nothing_left_then_resume(tmp_path: Path) -> None:
    ds = tmp_path / "c44"
    gen = _command("generate", "connect4", "--width", "4", "--height", "4", "-o", str(ds),
                   "--engine", "dask")  # fmt: skip
    code, lines, children = _interrupt_when(gen, "tier 6:", tmp_path)
    said = [x for x in lines if not x.startswith(("progress:", "violation:"))]
    assert code == 130, lines
    assert said == [interrupted_line(gen[3:])], lines
    assert "--resume" in said[0] and "Traceback" not in "\n".join(lines)
    deadline = time.monotonic() + 30
    while any(psutil.pid_exists(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [c for c in children if psutil.pid_exists(c) and psutil.Process(c).status() != "zombie"]
    assert not left, f"processes left behind: {left}"
    done = subprocess.run([*gen, "--resume"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "161,029 positions in 17 tiers" in done.stdout + done.stderr


def test_the_line_names_the_command_and_resume_only_where_it_exists() -> None:
    assert interrupted_line(["solve", "ds", "--engine", "dask"]).endswith("--resume goes on")
    assert interrupted_line(["generate", "x", "--engine=dask"]).endswith("--resume goes on")
    line = interrupted_line(["verify", "ds", "--engine", "dask"])
    assert line == "interrupted (Ctrl-C): verify stopped; no file was left half-written"
    assert "--resume" not in interrupted_line(["generate", "tictactoe", "-o", "t.json"])
