"""Help and text (issue 29 item 5): help fits 80 columns with every option name whole, -h is
--help, 'wrote ...' lines are never wrapped, whole numbers print as integers, and --engine
dask answers with the same lines as the other engines."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"
runner = CliRunner()


def _deep(tmp_path: Path) -> Path:
    """A folder whose path is well over 80 characters."""
    folder = tmp_path / ("a-rather-long-folder-name-" * 4) / "and-another-level"
    folder.mkdir(parents=True)
    return folder


def test_wrote_lines_are_never_wrapped(tmp_path: Path) -> None:
    folder = _deep(tmp_path)
    case = folder / "nim-case-with-a-long-name.json"
    r = runner.invoke(app, ["generate", "nim", "--piles", "2", "--below", "3", "-o", str(case)])
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(str(case)) > 80
    assert lines == [f"wrote {case}: {lines[0].split(': ', 1)[1]}"]
    assert lines[0].endswith("moves")
    dot = folder / "drawing-with-a-long-name.dot"
    r = runner.invoke(app, ["render", str(case), "-o", str(dot), "--no-smt"])
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [f"wrote {dot}"]
