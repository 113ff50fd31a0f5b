"""Plain progress lines on standard error when it is not a terminal; standard output untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
