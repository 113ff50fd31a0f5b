"""Issue 44 item 8 (messages): a tiered dataset given to a command that reads case files says
in one line how to get at it, and generating onto a dataset whose generation stopped names
``--resume`` (not only ``--force``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()


def _dataset(folder: Path, game: str, parameters: dict[str, object], generated: bool) -> Path:
    folder.mkdir()
    doc = {"game": game, "parameters": parameters, "generated": generated}
    (folder / "manifest.json").write_text(json.dumps(doc))
    return folder


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("words", [["uniqueness"], ["render", "-o", "x.svg"]])
def test_a_command_reading_cases_says_how_to_get_at_a_dataset(
    tmp_path: Path, words: list[str]
) -> None:
    c44 = _dataset(tmp_path / "c44", "connect4", {"width": 4, "height": 4}, True)
    r = runner.invoke(app, [words[0], str(c44), *words[1:]])
    assert r.exit_code == 2
    (line,) = _lines(r.stderr)
    assert "unknown file type" not in line
    assert line.startswith(f"{c44}: a tiered dataset, not a case file: ")
    assert "--engine dask" in line
    assert line.endswith("verifier generate connect4 --width 4 --height 4 -o c44.npz")


def test_a_chess_dataset_names_its_material(tmp_path: Path) -> None:
    kqk = _dataset(tmp_path / "kqk", "chess", {"material": "KQK", "symmetric": 1}, True)
    r = runner.invoke(app, ["uniqueness", str(kqk)])  # query reads a dataset: test_answer_files
    assert _lines(r.stderr)[0].endswith("verifier generate chess:KQK --symmetry -o kqk.npz")


def test_generating_onto_a_stopped_dataset_names_resume(tmp_path: Path) -> None:
    c54 = _dataset(tmp_path / "c54", "connect4", {"width": 5, "height": 4}, False)
    args = ["generate", "connect4", "--width", "5", "--height", "4", "--engine", "dask"]
    r = runner.invoke(app, [*args, "-o", str(c54)])
    assert r.exit_code == 2
    assert _lines(r.stderr) == [
        f"{c54}: a tiered dataset whose generation stopped: --resume continues it, "
        "--force starts again"
    ]
    (c54 / "manifest.json").write_text(json.dumps({"game": "connect4", "generated": True}))
    r = runner.invoke(app, [*args, "-o", str(c54)])
    assert _lines(r.stderr) == [f"{c54}: a tiered dataset exists there: --force replaces it"]
