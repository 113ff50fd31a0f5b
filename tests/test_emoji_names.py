"""Names are printed as written: rich's emoji codes (``:x:``, ``:smile:``) in a position's name,
or in a game spec's ``FILE:Class``, are not turned into pictures, on stdout or in an error."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from verifier.cli import app, verify_app

runner = CliRunner()


def test_a_position_name_with_an_emoji_code_is_printed_as_written(tmp_path: Path) -> None:
    case = tmp_path / "emo.json"
    case.write_text(
        '{"semantics": "normal", "root": "a:x:", '
        '"nodes": {"a:x:": {"moves": ["b:smile:"]}, "b:smile:": {}}}'
    )
    r = runner.invoke(verify_app, [str(case)])
    assert r.exit_code == 0, r.output
    assert "best move a:x: -> b:smile:" in r.output
    assert "❌" not in r.output and "😄" not in r.output


def test_an_error_naming_a_spec_with_a_colon_is_printed_as_written(tmp_path: Path) -> None:
    r = runner.invoke(app, ["generate", "nowhere:X", "-o", str(tmp_path / "k.json")])
    assert r.exit_code == 2
    assert r.stderr.strip().startswith("nowhere:X:") and "❌" not in r.stderr
