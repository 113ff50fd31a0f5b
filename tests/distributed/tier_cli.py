"""The command line as the sharded route's tests drive it: one call, and its one-line error."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from verifier.cli import app


def run_cli(*args: Any) -> Any:
    """``verifier ARGS...`` in this process (paths and numbers given as they are)."""
    return CliRunner().invoke(app, [str(a) for a in args])


def stdout(r: Any) -> str:
    """The output without the progress and violation lines (stderr)."""
    said = ("progress:", "violation:")
    return "\n".join(x for x in r.output.splitlines() if not x.startswith(said))


def one_line_error(r: Any, code: int, *words: str) -> str:
    """The run ended with exit ``code`` and said one line (progress aside) holding ``words``,
    no traceback; that line."""
    lines = stdout(r).splitlines()
    assert r.exit_code == code, r.output
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    for w in words:
        assert w in lines[0], lines[0]
    return str(lines[0])
