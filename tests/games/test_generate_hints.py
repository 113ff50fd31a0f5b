"""``verifier generate`` without the size a family needs: exit 2 with the command that works."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()


@pytest.mark.parametrize("game", ["ladder", "octal:.07", "nim", "grundy", "subtraction:1,2,3"])
def test_a_missing_size_names_the_command_that_works(game: str, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    r = runner.invoke(app, ["generate", game, "-o", str(out)])
    assert r.exit_code == 2 and not out.exists()
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"generator {game!r} needs --")
    hint = line.split("e.g. ")[1]
    words = shlex.split(hint)
    assert words[:3] == ["verifier", "generate", game] and words[-2:] == ["-o", "case.json"]
    works = runner.invoke(app, [*words[1:-1], str(out)])
    assert works.exit_code == 0, works.output
    assert out.exists()
