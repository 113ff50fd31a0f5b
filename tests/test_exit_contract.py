"""The exit-code contract: 0 verified/solved, 1 refuted, 2 bad input, 3 inconclusive, whatever
happens around the run (a closed pipe, a missing extra, a file already there)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"


def _piped_to_head(args: list[str]) -> tuple[int, str, str]:
    """Run the CLI with stdout into a pipe whose reader leaves after one line."""
    code = (
        "import sys; from verifier.cli import main; sys.argv = ['verifier', *sys.argv[1:]]; main()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline().decode()
    proc.stdout.close()  # the reader goes away, like `| head -1`
    err = proc.stderr.read().decode()
    return proc.wait(timeout=600), first, err


def test_a_closed_pipe_is_not_refuted() -> None:
    many = [str(CASES / f"{c}.json") for c in ("dag-paul-carole", "kars-figure1-b-lt-d")] * 40
    for args in (
        ["verify", "-q", *many],
        ["solve", str(CASES / "game-tictactoe.json"), "--format", "csv"],  # 220 kB of CSV
    ):
        code, first, err = _piped_to_head(args)
        assert first.startswith(("dag-paul-carole", "position,value")), first
        assert code == 0, err
        assert "Traceback" not in err and "Exception ignored" not in err
        assert "BrokenPipe" not in err


def test_a_closed_pipe_keeps_the_refuted_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    text = (
        (CASES / "kars-figure1-b-ge-d.json")
        .read_text()
        .replace('"root_value": 2', '"root_value": 7')
    )
    assert '"root_value": 7' in text
    bad.write_text(text)
    args = ["verify", "-q", str(bad), *[str(CASES / "dag-paul-carole.json")] * 30]
    code, _, err = _piped_to_head(args)
    assert code == 1 and "Traceback" not in err


def test_generated_files_have_normal_permissions_and_are_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    old = os.umask(0o022)
    try:
        r = runner.invoke(app, ["generate", "ladder", "--n", "2", "-o", str(out)])
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    before = out.read_bytes()
    r = runner.invoke(app, ["generate", "ladder", "--n", "3", "-o", str(out)])
    assert r.exit_code == 2 and "the file exists: --force replaces it" in r.output
    assert out.read_bytes() == before
    r = runner.invoke(app, ["generate", "ladder", "--n", "3", "-o", str(out), "--force"])
    assert r.exit_code == 0 and out.read_bytes() != before


def test_solve_answer_file_is_not_replaced_without_force(tmp_path: Path) -> None:
    out = tmp_path / "a.csv"
    out.write_text("keep me")
    case = str(CASES / "dag-paul-carole.json")
    r = runner.invoke(app, ["solve", case, "-o", str(out)])
    assert r.exit_code == 2 and out.read_text() == "keep me"
    r = runner.invoke(app, ["solve", case, "-o", str(out), "--force"])
    assert r.exit_code == 0 and out.read_text().startswith("node,")


@pytest.mark.dask
def test_dask_on_a_loopy_impartial_case_is_one_line() -> None:
    pytest.importorskip("distributed")
    case = CASES / "impartial-loopy-smith.json"
    r = runner.invoke(app, ["solve", str(case), "--engine", "dask"])
    assert r.exit_code == 2
    assert f"{case}: the graph has a cycle" in r.output
    assert "impartial graphs are solved here when acyclic" in r.output
    assert "dask-case-" not in r.output  # the scratch dataset is not named


def test_dask_missing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "verifier.distributed.api", None)  # import fails
    r = runner.invoke(app, ["solve", str(CASES / "dag-paul-carole.json"), "--engine", "dask"])
    assert r.exit_code == 2
    assert "--engine dask needs the extra: pip install '.[dask]'" in r.output
