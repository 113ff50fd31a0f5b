"""``grundy``, ``check-certificate``, ``prove``, ``schema`` and ``diff``."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import nullcontext
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from verifier.cli.common import (
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_REFUTED,
    _fail,
    _load_answers,
    _load_or_exit,
    _write,
    pick_format,
)
from verifier.cli.options import LIMITS, OUTPUT, JsonOpt, ReportFormatOpt, _format_option
from verifier.errors import VerifierError
from verifier.model import Case
from verifier.model.columns import Column
from verifier.model.words import count
from verifier.pipeline import run_case
from verifier.progress import progress_wanted
from verifier.registry import Options
from verifier.writers import Document, Format, make_writer


def grundy_cmd(
    game: Annotated[str, typer.Argument()],  # help: the catalog's families (help._GrundyCommand)
    upto: Annotated[int, typer.Option(min=0, help="Compute heaps 0..upto.")] = 100,
    fmt: Annotated[Format | None, _format_option("csv (heap,value rows)")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the Grundy value sequence of a game family and its (pre-period, period)."""
    from rich.progress import BarColumn, Progress, TextColumn

    from verifier.games.catalog import analyse_sequence
    from verifier.writers.documents import sequence_document

    writer = make_writer(pick_format(fmt, as_json))
    err = Console(emoji=False, stderr=True)
    bar = Progress(TextColumn("{task.description}"), BarColumn(), console=err, transient=True)
    with bar if err.is_terminal and progress_wanted() else nullcontext():
        task = bar.add_task(f"{game}: heaps", total=upto + 1)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            rep = analyse_sequence(game, upto, progress=advance)
        except ValueError as e:
            raise _fail(f"{game}: {e}") from None
    _write(writer.write_document, sequence_document(rep, upto))


class Theorem(StrEnum):
    bouton = "bouton"
    xor_rule = "xor-rule"


def check_certificate_cmd(
    case: Annotated[
        Path, typer.Argument(help="The case file (or tiered dataset DIR) the certificate is for.")
    ],
    certificate: Annotated[Path, typer.Argument(help="The certificate (.json or .npz).")],
    answers: Annotated[
        Path | None,
        typer.Option(help="An answer file (.json, .csv, .npz) that must say what it says."),
    ] = None,
) -> None:
    """Check a certificate with the standalone checker (checker/check_certificate.py).

    Prints ACCEPTED, or the first violation naming the position (docs/certificates.md).
    Exit code: 0 accepted, 1 rejected, 2 a file it cannot read.
    """
    from checker import stages
    from verifier.certify.outside import run_checker

    for given in (None if case.is_dir() else case, certificate, answers):
        if given is not None and not given.is_file():
            why = (
                "cannot read the file: a folder" if given.is_dir() else "no such file or directory"
            )
            raise _fail(f"{given}: $: {why}")
    if case.is_dir():  # a tiered dataset: judged shard by shard (checker/judge.py)
        from checker.judge import check

        out = stages.watched(check, str(case), str(certificate))
    else:
        out = stages.watched(run_checker, case, certificate, answers)  # a line per stage
    if out.status == "BAD":
        raise _fail(out.message)
    typer.echo(out.message if out.status == "ACCEPTED" else f"REJECTED: {out.message}")
    raise typer.Exit(EXIT_OK if out.status == "ACCEPTED" else EXIT_REFUTED)


def prove_cmd(
    theorem: Annotated[Theorem, typer.Argument(help="bouton (nim) or xor-rule (sums).")],
    piles: Annotated[int, typer.Option(min=1, help="bouton: number of piles.")] = 3,
    bits: Annotated[int, typer.Option(min=1, help="Bits per pile / per Grundy value.")] = 8,
    rlimit: Annotated[
        int,
        typer.Option(
            min=0,
            help="Z3's resource limit per query (deterministic); 0: no limit.",
            rich_help_panel=LIMITS,
        ),
    ] = 0,
    fmt: ReportFormatOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ask Z3 to prove a theorem symbolically (the negation must be unsat).

    Exit code 0 proved, 1 refuted (with a counterexample), 3 unknown.
    """
    from verifier.model import Verdict
    from verifier.smt.theorems import prove_bouton, prove_xor_rule
    from verifier.writers.documents import proof_document

    writer = make_writer(pick_format(fmt, as_json, (Format.table, Format.json)))
    if piles < 1 or bits < 1:
        raise _fail("--piles and --bits must be at least 1")
    opts = Options(rlimit=rlimit)
    res = (
        prove_bouton(piles, bits, opts) if theorem is Theorem.bouton else prove_xor_rule(bits, opts)
    )
    _write(writer.write_document, proof_document(res))
    raise typer.Exit(
        {Verdict.CONFIRMED: EXIT_OK, Verdict.REFUTED: EXIT_REFUTED}.get(
            res.verdict, EXIT_INCONCLUSIVE
        )
    )


def schema_cmd() -> None:
    """Print the JSON Schema of case files (docs/case.schema.json is this output)."""
    from verifier.io.schema import schema_text

    sys.stdout.write(schema_text())


def _is_answer_file(path: Path) -> bool:
    """Is ``path`` an answer file (rather than a case file)? The classification folder
    discovery uses too (``verifier.io.discover.kind_of``)."""
    from verifier.io.answers import is_answer_file

    return is_answer_file(path)


def _table(path: Path, case: Case) -> tuple[str, Mapping[str, Column]]:
    """The columns of an answer file, or of our answer for a case file."""
    if _is_answer_file(path):
        try:
            return str(path), _load_answers(path, case, command="solve").result().columns
        except VerifierError as e:
            raise _fail(str(e)) from None
    other = _load_or_exit(path, None, "solve")
    rep = run_case(other, Options(), smt=False)
    if rep.solution is None:
        raise _fail(f"{path}: $: no solver answered the case")
    if other.graph.n != case.graph.n or other.graph.m != case.graph.m:
        raise _fail(f"{path}: $: another graph than the case's ({other.graph.n} positions)")
    return f"{path} (solved)", rep.solution.columns


def diff_cmd(
    left: Annotated[Path, typer.Argument(help="An answer file, or a case file (solved).")],
    right: Annotated[Path, typer.Argument(help="An answer file, or a case file (solved).")],
    case_path: Annotated[
        Path | None,
        typer.Option("--case", help="The case both answer files are for (if neither is one)."),
    ] = None,
    limit: Annotated[
        int,
        typer.Option(
            min=0, help="Print at most this many differing entries.", rich_help_panel=OUTPUT
        ),
    ] = 50,
    fmt: Annotated[
        Format | None,
        _format_option("csv (position,column,left,right rows: the differing entries)"),
    ] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="The summary line alone.", rich_help_panel=OUTPUT),
    ] = False,
) -> None:
    """Compare two answer tables (or a case and an answer file) node by node.

    Exit code: 0 identical, 1 they differ, 2 bad input. --format json: the whole difference;
    csv: one row per differing entry (position, column, left, right).
    """
    from verifier.claims import diff_tables
    from verifier.writers.base import Records

    f = pick_format(fmt, as_json)
    base = case_path or next((p for p in (left, right) if not _is_answer_file(p)), None)
    if base is None:
        raise _fail(f"{left} {right}: two answer files: name their case with --case CASE")
    case = _load_or_exit(base, None, "solve")
    (lname, a), (rname, b) = _table(left, case), _table(right, case)
    rows, one_sided = diff_tables(case, a, b)
    nodes = len({r.node for r in rows})
    alone = f"; {count(one_sided, 'position')} answered by one table only" if one_sided else ""
    summary = (
        f"{lname} vs {rname}: {nodes} of {count(case.graph.n, 'position')} differ "
        f"({count(len(rows), 'entry')}){alone}"
        if rows
        else f"{lname} vs {rname}: identical where both answer{alone}"
    )
    lines = [] if quiet else [f"{r.node}: {r.column}: {r.left} != {r.right}" for r in rows[:limit]]
    if len(rows) > limit and not quiet:
        lines.append(f"... {len(rows) - limit} more")
    entries = [
        {"position": r.node, "column": r.column, "left": r.left, "right": r.right} for r in rows
    ]
    doc = Document(
        {
            "case": case.id,
            "left": lname,
            "right": rname,
            "identical": not rows,
            "positions": case.graph.n,
            "positions_differing": nodes,
            "one_sided": one_sided,
            "entries": entries,
        },
        lines=(*lines, summary),
        records=Records(("position", "column", "left", "right"), entries),
    )
    _write(make_writer(f).write_document, doc)
    raise typer.Exit(EXIT_REFUTED if rows else EXIT_OK)
