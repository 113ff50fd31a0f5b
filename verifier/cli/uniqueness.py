"""``verifier uniqueness`` and ``verifier study uniqueness``: the set of all solutions."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from verifier.cli.common import (
    EXIT_INCONCLUSIVE,
    _case_bar,
    _check_output,
    _err,
    _fail,
    _load_or_exit,
    _renamed,
    _write,
    pick_format,
)
from verifier.cli.help import _Command, group
from verifier.cli.options import (
    LIMITS,
    BudgetOpt,
    CaseArg,
    FormatOpt,
    JsonOpt,
    MaxPositionsOpt,
    OldOutOpt,
    RlimitOpt,
)
from verifier.errors import VerifierError
from verifier.progress import PlainProgress, progress_wanted
from verifier.registry import Options
from verifier.writers import make_writer


def uniqueness_cmd(
    path: CaseArg,
    max_count: Annotated[
        int, typer.Option(min=1, help="Enumerate at most this many solutions.")
    ] = 10_000,
    max_enumerated: Annotated[
        int,
        typer.Option(min=0, help="Enumerate solutions only over at most this many free positions."),
    ] = 400,
    certify: Annotated[
        bool, typer.Option("--certify/--no-certify", help="Z3 certifies the bounds.")
    ] = True,
    counter: Annotated[
        bool | None,
        typer.Option(
            "--counter/--no-counter",
            help="Count with Ganak, decide each position's values by SAT (the 'counting' "
            "extra; default: where installed).",
        ),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--sample",
            min=1,
            help="Draw N solutions uniformly instead, each an answer file in --output DIR.",
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for the --sample files.")
    ] = None,
    budget: BudgetOpt = None,
    rlimit: RlimitOpt = 800_000_000,
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    max_positions: MaxPositionsOpt = None,
) -> None:
    """The structure of all solutions of the case's equations: how many there are (exact, an
    estimate, or bounds, and which), which positions may change, each position's range, the
    free components and how they depend on each other, and where Kars' score sits; or, with
    --sample, solutions drawn uniformly as answer files (docs/uniqueness.md)."""
    from verifier.deadline import TimeUp, stop_after
    from verifier.pipeline import z3_timeout
    from verifier.research.counting import EXTRA, INSTALL, available
    from verifier.research.uniqueness import solution_set
    from verifier.writers.uniqueness import uniqueness_document

    if counter and not available():
        raise _fail(f"uniqueness --counter: needs the '{EXTRA}' extra: {INSTALL}")
    if samples is not None and output is None:
        raise _fail("uniqueness --sample: give the folder to write: --output DIR (or -o DIR)")
    if output is not None:
        _check_output(output, folder=True)
    case = _load_or_exit(path, max_positions, "verify")
    if samples is not None and output is not None:
        from verifier.research.sampling import sample_to_folder

        try:
            typer.echo(sample_to_folder(case, samples, output, budget))
        except LookupError as e:
            raise _fail(f"uniqueness --sample: {e}") from None
        return
    t0 = time.perf_counter()
    try:
        with stop_after(budget), z3_timeout(budget):
            s = solution_set(
                case,
                Options(rlimit=rlimit),
                max_count=max_count,
                max_enumerated=max_enumerated,
                certify=certify,
                counter=counter,
                budget=budget,
            )
    except TimeUp:
        _err(
            Console(emoji=False, stderr=True),
            f"{path}: stopped after {time.perf_counter() - t0:.1f} s: the budget of "
            f"{budget:g} s was spent (--budget lifts it)",
        )
        raise typer.Exit(EXIT_INCONCLUSIVE) from None
    _write(make_writer(pick_format(fmt, as_json)).write_document, uniqueness_document(s))


study_app = group("study", "Research sweeps over families of games (CSV and figures).")


def _numbers(option: str, text: str, kind: type[int] | type[float]) -> list[Any]:
    """A comma-separated list of positive numbers (exit 2 with one line otherwise)."""
    try:
        out = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise _fail(f"{option}: not a comma-separated list of numbers: {text!r}") from None
    if not out or any(not v > 0 for v in out):
        raise _fail(f"{option}: give positive numbers, e.g. {option} 10,30: got {text!r}")
    return out


@study_app.command("uniqueness", cls=_Command)
def study_uniqueness_cmd(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Folder for uniqueness.csv and figures/ (resumed). Required.",
            show_default=False,
        ),
    ] = None,
    old_out: OldOutOpt = None,
    sizes: Annotated[str, typer.Option(help="Random graphs' node counts.")] = "10,30,100",
    degrees: Annotated[str, typer.Option(help="Random graphs' mean out-degrees.")] = "1.2,1.6,2.4",
    semantics: Annotated[
        str,
        typer.Option(
            help="Random graphs' semantics (default: minimax, normal, reachability, impartial).",
            show_default=False,
        ),
    ] = "minimax,normal,reachability,impartial",
    values: Annotated[
        str, typer.Option(help="minimax: dead ends draw from -k..k, for each k given.")
    ] = "1,3",
    seeds: Annotated[int, typer.Option(help="Random graphs per grid point.")] = 10,
    seed: Annotated[int, typer.Option(help="The sweep's seed (each graph's derives from it).")] = 0,
    games: Annotated[
        bool, typer.Option("--games/--no-games", help="Also the real games (small sizes).")
    ] = True,
    workers: Annotated[int, typer.Option(help="Processes measuring cases.")] = 2,
    certify: Annotated[
        bool, typer.Option("--certify/--no-certify", help="Z3 certifies the bounds (slower).")
    ] = False,
    max_enumerated: Annotated[
        int, typer.Option(help="Enumerate solutions only over at most this many free nodes.")
    ] = 60,
    max_count: Annotated[int, typer.Option(help="Enumerate at most this many solutions.")] = 200,
    budget: Annotated[
        float | None,
        typer.Option(
            help="Seconds a case may take (default 60; 0: no limit); a row says so.",
            rich_help_panel=LIMITS,
        ),
    ] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", hidden=True)] = None,
) -> None:
    """Sweep random graphs (sizes x degrees x semantics x value domains x seeds) and small real
    games, measuring the structure of each case's solution set: DIR/uniqueness.csv (one row per
    case, appended as they finish; a rerun skips the cases already there) and DIR/figures/."""
    from verifier.research import study

    out = _renamed("--out", old_out, "--output", output)
    if out is None:
        raise _fail("study uniqueness: give the folder to write: --output DIR (or -o DIR)")
    seconds = _renamed("--timeout", timeout, "--budget", budget)
    budget = 60.0 if seconds is None else seconds
    size_list = _numbers("--sizes", sizes, int)
    degree_list = _numbers("--degrees", degrees, float)
    k_list = _numbers("--values", values, int)
    sems = [v.strip() for v in semantics.split(",") if v.strip()]
    bad = [v for v in sems if v not in study.SEMANTICS]
    if bad or not sems:
        raise _fail(f"--semantics: give some of {', '.join(study.SEMANTICS)}: got {semantics!r}")
    for option, number, least in (
        ("--workers", workers, 1),
        ("--seeds", seeds, 0),
        ("--seed", seed, 0),
        ("--max-count", max_count, 1),
        ("--max-enumerated", max_enumerated, 0),
    ):
        if number < least:
            raise _fail(f"{option}: give at least {least}: got {number}")
    if budget < 0:
        raise _fail(f"--budget: give 0 (no limit) or more seconds: got {budget:g}")
    _check_output(out, folder=True)
    specs = study.plan(size_list, degree_list, sems, seeds, seed, k_list, games)
    settings = study.Settings(max_count, max_enumerated, certify, budget)
    err = Console(emoji=False, stderr=True)
    bar = _case_bar(err) if err.is_terminal and progress_wanted() else None
    plain = PlainProgress(sys.stderr) if bar is None else None
    task = bar.add_task("study uniqueness", total=len(specs)) if bar is not None else None

    def on_row(row: Mapping[str, Any], done: int, total: int) -> None:
        if bar is not None and task is not None:
            bar.update(task, completed=done, total=total)
        elif plain is not None:
            plain("study uniqueness", done, total)

    try:
        with bar if bar is not None else nullcontext():
            result = study.run_sweep(specs, out, settings, workers=workers, on_row=on_row)
    except (VerifierError, OSError) as e:
        raise _fail(str(e)) from None
    drawn = ""
    try:
        study.figures(result.csv_path, out / "figures")
        drawn = f", figures in {out / 'figures'}"
    except VerifierError as e:
        _err(err, f"no figures: {e}")
    planned = {s.key for s in specs}
    rows = [r for r in result.rows if r["key"] in planned]
    _err(
        err,
        f"{study.summary(rows)}; {result.ran} measured in {result.seconds:.1f} s with "
        f"{workers} worker(s), {result.skipped} already in {result.csv_path}{drawn}",
    )
