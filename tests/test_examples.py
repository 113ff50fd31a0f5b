"""examples/external-solver: the stranger's wrong solver is refuted at the right position, the
right one verifies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import verify_app

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "external-solver"
GAME = EXAMPLE / "game.json"


def _answers(solver: str, tmp_path: Path) -> Path:
    """Run a stranger's solver script (its own process: it imports nothing of ours)."""
    out = tmp_path / f"{solver}.csv"
    subprocess.run([sys.executable, str(EXAMPLE / f"{solver}.py"), str(GAME), str(out)], check=True)
    return out


def test_the_right_solver_verifies(tmp_path: Path) -> None:
    out = _answers("solver_right", tmp_path)
    assert out.read_text().splitlines()[1:3] == ["a,draw,", "b,draw,"]
    r = runner.invoke(verify_app, [str(GAME), "--answers", str(out)])
    assert r.exit_code == 0, r.output


def test_the_wrong_solver_is_refuted_at_the_cycle(tmp_path: Path) -> None:
    out = _answers("solver_wrong", tmp_path)
    r = runner.invoke(verify_app, [str(GAME), "--answers", str(out), "--json"])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    (judged,) = [c for c in doc["checks"] if c["name"] == f"answers {out}"]
    assert judged["verdict"] == "refuted"
    assert judged["witness"]["node"] == "a" and judged["witness"]["claimed"] == "lost"
    assert judged["witness"]["successors"] == {"b": "won", "c": "won"}
    assert "another solution of the won/lost equations" in judged["detail"]
