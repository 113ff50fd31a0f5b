"""Command-line interface (Typer): ``verify CASE|DIR`` and ``verifier <command>``.

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from itertools import pairwise
from typing import Any

# the command line uses no pydantic plugins: without this, building the first case model scans
# every installed package's entry points for them (10-30 ms of a 0.38 s run); a user who wants
# plugins sets the variable to an empty string
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from verifier.cli import generate, misc, query, solve, uniqueness, verify
from verifier.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INCONCLUSIVE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REFUTED,
    collect,
    exit_code,
    load,
    pick_format,
)
from verifier.cli.help import _Command, _GenerateCommand, _GrundyCommand, group
from verifier.cli.options import VersionOpt
from verifier.cli.verify import run_verify, verify_app
from verifier.io.pipes import closed_pipe_tolerated

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REFUTED",
    "Interrupted",
    "app",
    "collect",
    "exit_code",
    "interrupted_line",
    "load",
    "main",
    "pick_format",
    "run_verify",
    "verify_app",
    "verify_main",
]


app = group(
    "verifier", "Solve finite two-player game graphs several ways and prove the answers with Z3."
)


@app.callback()
def _group(version: VersionOpt = False) -> None:
    """Solve finite two-player game graphs several ways and prove the answers with Z3."""
    from verifier.progress import quiet

    quiet(False)  # a command's -q says otherwise (one process may run several: tests)


# the commands in the order ``verifier --help`` lists them (each module's functions read the
# options and call the API)
app.command("verify", cls=_Command)(verify.verify_cmd)
app.command("solve", cls=_Command)(solve.solve_cmd)
app.command("generate", cls=_GenerateCommand)(generate.generate_cmd)
app.command("render", cls=_Command)(query.render_cmd)
app.command(
    "query",
    cls=_Command,
    short_help="Everything known of some positions: value, remoteness, moves, line of play, "
    "interval, checks.",
)(query.query_cmd)
app.command(
    "uniqueness",
    cls=_Command,
    short_help="All solutions of the case's equations: how many, which positions change, "
    "their ranges.",
)(uniqueness.uniqueness_cmd)
app.add_typer(uniqueness.study_app, name="study")
app.command("grundy", cls=_GrundyCommand)(misc.grundy_cmd)
app.command("check-certificate", cls=_Command)(misc.check_certificate_cmd)
app.command("prove", cls=_Command)(misc.prove_cmd)
app.command("schema", cls=_Command)(misc.schema_cmd)
app.command("diff", cls=_Command)(misc.diff_cmd)


class Interrupted(BaseException):
    """Ctrl-C, raised by our own SIGINT handler: not a ``KeyboardInterrupt``, which click turns
    into a silent exit, so it reaches the entry point through every ``with`` block (a Dask
    cluster is closed on the way) and is said there in one line."""


def _interrupt(signum: int, frame: Any) -> None:
    raise Interrupted


def interrupted_line(argv: list[str]) -> str:
    """What a Ctrl-C stopped and how to go on, from the command line that was stopped."""
    words = [a for a in argv if not a.startswith("-")]
    command = words[0] if words else "the command"
    pairs = [f"{a}={b}" for a, b in pairwise(argv)]
    dask = "--engine=dask" in [*argv, *pairs]
    line = f"interrupted (Ctrl-C): {command} stopped; no file was left half-written"
    if dask and command in ("generate", "solve"):
        line += "; the dataset keeps every finished tier: the same command with --resume goes on"
    return line


def _run(entry: Callable[[], Any], argv: list[str]) -> None:
    import signal

    signal.signal(signal.SIGINT, _interrupt)
    try:
        with closed_pipe_tolerated():
            entry()
    except Interrupted:
        print(interrupted_line(argv), file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)


def main() -> None:
    """Entry point of ``verifier``."""
    _run(app, sys.argv[1:])


def verify_main() -> None:
    """Entry point of ``verify`` (the same as ``verifier verify``)."""
    _run(verify_app, ["verify", *sys.argv[1:]])
