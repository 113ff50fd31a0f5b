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


def dataset_verdict(r: Any) -> tuple[str, str]:
    """A dataset report's verdict and its start's claimed value: its first line ends
    ``->  VERDICT  (s)`` as a case's does, its second is ``  from VALUE``."""
    lines = stdout(r).splitlines()
    head, _, tail = lines[0].partition("  ->  ")
    assert tail and "  " in head, lines[0]
    start = lines[1].strip()
    assert start.startswith("from "), lines[1]
    return tail.split()[0], start.removeprefix("from ")


EMPTY_DRAW = "the empty board: draw (neither player can force four in a row)"
"""A drawn Connect Four dataset's start, as its report words it."""
