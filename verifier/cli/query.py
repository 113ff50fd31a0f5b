"""``verifier render`` and ``verifier query``: a small case drawn, some positions asked about."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from verifier.cli.common import (
    _check_output,
    _err,
    _fail,
    _load_or_exit,
    _refuse_overwrite,
    _tier_errors,
    _write,
    pick_format,
)
from verifier.cli.options import (
    BudgetOpt,
    CaseArg,
    CaseOrDatasetArg,
    Engine,
    EngineOpt,
    ForceOpt,
    JsonOpt,
    MaxPositionsOpt,
    ReportFormatOpt,
    RlimitOpt,
)
from verifier.errors import VerifierError
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.writers import Format, make_writer


def render_cmd(
    path: CaseArg,
    output: Annotated[Path, typer.Option("--output", "-o", help=".dot or .svg file to write.")],
    smt: Annotated[
        bool,
        typer.Option(
            "--smt/--no-smt", help="Run the Z3 checks to show verdicts and the uniqueness witness."
        ),
    ] = True,
    max_positions: MaxPositionsOpt = None,
    force: ForceOpt = False,
) -> None:
    """Draw a small case: each node's value, owner and verdict, the uniqueness witness."""
    from verifier.render import render

    _refuse_overwrite(output, force)
    _check_output(output)
    case = _load_or_exit(path, max_positions, "verify" if smt else "solve")
    if case.graph.n > 2000:
        raise _fail(f"{path}: $: {case.graph.n} nodes are too many to draw (at most 2000)")
    rep = run_case(case, Options(), smt=smt)
    try:
        written = render(case, rep, output)
    except VerifierError as e:
        raise _fail(str(e)) from None
    _err(Console(emoji=False, stderr=True), f"wrote {written}")


_FEN_FIELDS = (r"[wb]", r"-|[KQkqA-Ha-h]{1,4}", r"-|[a-h][36]", r"\d+", r"\d+")
"""A FEN's fields after the board: side to move, castling, en passant, the two clocks."""


def _split_fen(positions: list[str] | None, i: int) -> str:
    """A hint when ``positions[i]`` is a FEN's board and the words after it its other fields:
    the shell split an unquoted FEN (nothing otherwise)."""
    words = list(positions or ())[i:]
    if words[0].count("/") != 7 or len(words) < 2:
        return ""
    fields = 0
    for word, pattern in zip(words[1:], _FEN_FIELDS, strict=False):
        if not re.fullmatch(pattern, word):
            break
        fields += 1
    if not fields:
        return ""
    fen = " ".join(words[: 1 + fields])
    return f": a FEN holds spaces, so quote it: '{fen}'"


def query_cmd(
    path: CaseOrDatasetArg,
    positions: Annotated[
        list[str] | None,
        typer.Argument(help="Positions to ask about, by name (default: the case's root)."),
    ] = None,
    engine: EngineOpt = Engine.auto,
    smt: Annotated[
        bool,
        typer.Option("--smt/--no-smt", help="Run the Z3 checks (intervals, vouching checks)."),
    ] = True,
    plies: Annotated[
        int, typer.Option(min=1, help="Moves of the line of play to show (longer: '...').")
    ] = 40,
    budget: BudgetOpt = None,
    rlimit: RlimitOpt = 800_000_000,
    fmt: ReportFormatOpt = None,
    as_json: JsonOpt = False,
    max_positions: MaxPositionsOpt = None,
) -> None:
    """Everything known of some positions: value, who wins, remoteness, every move with what it
    leads to (best first), the line of play, the interval over all solutions, the checks that
    vouch for it."""
    from verifier.writers.query import query_document

    f = pick_format(fmt, as_json, (Format.table, Format.json))
    if path.is_dir() and (path / "manifest.json").is_file():  # a tiered dataset's answers
        from verifier.distributed.tiers.commands import query_dataset

        got, asked = _tier_errors(lambda: query_dataset(path, positions or ()))
        _write(make_writer(f).write_document, query_document(got, asked, plies))
        return
    case = _load_or_exit(path, max_positions, "verify" if smt else "solve")
    ids = []
    if not positions:
        if case.root is None:
            raise _fail(f"{path}: $.root: the case names no root: give the positions to ask about")
        ids.append(case.root)
    for i, name in enumerate(positions or ()):
        if not case.graph.has_node(name):
            raise _fail(f"{path}: $.nodes: no position named {name!r}{_split_fen(positions, i)}")
        ids.append(case.graph.id_of(name))
        if case.graph.name(ids[-1]) != name:  # a game that parses names (chess: any FEN)
            typer.echo(f"{name}: known in {path} as {case.graph.name(ids[-1])}", err=True)
    opts = Options(engine=engine.value, budget=budget, rlimit=rlimit)
    rep = run_case(case, opts, smt=smt)
    _write(make_writer(f).write_document, query_document(rep, ids, plies))
