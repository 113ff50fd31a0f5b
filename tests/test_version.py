"""`--version` on both entry points."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

from verifier.cli import app, verify_app

runner = CliRunner()


def test_version_on_both_entry_points() -> None:
    want = f"gamegraph-verifier {version('gamegraph-verifier')}"
    for target, args in ((app, ["--version"]), (verify_app, ["--version"])):
        r = runner.invoke(target, args)
        assert r.exit_code == 0, r.output
        assert r.stdout.strip() == want


def test_version_wins_over_a_missing_case() -> None:
    r = runner.invoke(verify_app, ["--version", "no-such-case.json"])
    assert r.exit_code == 0 and r.stdout.startswith("gamegraph-verifier ")
