"""``verifier solve``: solve a case (or a tiered dataset) and write its answer file."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from verifier import api, progress
from verifier.errors import VerifierError
from verifier.io.discover import is_parquet_graph
from verifier.model.report import CaseReport
from verifier.progress import PlainProgress
from verifier.writers import Format, Settings, make_writer
from verifier.writers.base import Brief

if TYPE_CHECKING:
    from verifier.distributed.tiers.commands import DaskOptions

from verifier.cli.common import (
    EXIT_OK,
    _case_bar,
    _check_output,
    _err,
    _fail,
    _load_or_exit,
    _needs,
    _progress_fn,
    _refuse_overwrite,
    _renamed,
    _said,
    _save_answers,
    _say_compiling,
    _tier_errors,
    _working,
    exit_code,
    pick_format,
)
from verifier.cli.options import (
    ForceOpt,
    FormatOpt,
    JsonOpt,
    MaxPositionsOpt,
    OldOutOpt,
    QuietOpt,
    SolveEngine,
    TablesSemanticsOpt,
    ValuesOpt,
    _scheduler_option,
    _worker_memory_option,
    _workers_option,
)


def solve_cmd(
    path: Annotated[
        Path,
        typer.Argument(
            help="Case file (.json, .npz, .graphml, .gml), a folder of Parquet graph tables "
            "(nodes.parquet, edges.parquet), or a tiered dataset's directory (--engine dask; "
            "generate ... --engine dask writes one)."
        ),
    ],
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    values: ValuesOpt = True,
    engine: Annotated[
        SolveEngine,
        typer.Option(
            help="auto / reference / numpy / compiled in memory, or dask (on a Dask "
            "cluster: the case stored as a dataset and solved in rounds)."
        ),
    ] = SolveEngine.auto,
    scheduler: Annotated[str | None, _scheduler_option(None, engine="")] = None,
    workers: Annotated[int, _workers_option(None)] = 2,
    partitions: Annotated[
        int | None,
        typer.Option(min=1, help="Shards of a case stored by --engine dask (default: 1 a worker)."),
    ] = None,
    worker_memory: Annotated[str | None, _worker_memory_option(None)] = None,
    resume: Annotated[
        bool | None,
        typer.Option(
            "--resume/--restart",
            help="A tiered dataset (--engine dask): keep the tiers already solved and "
            "continue below them, or solve every tier again. Default: resume a solve that "
            "stopped part way, else solve every tier.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="answers.json / .csv / .npz / .parquet: write the answer file "
            "(docs/answers.md), any engine; a directory with --engine dask: the case stored "
            "and solved there as a dataset of one tier.",
        ),
    ] = None,
    old_out: OldOutOpt = None,
    max_positions: MaxPositionsOpt = None,
    semantics: TablesSemanticsOpt = None,
    force: ForceOpt = False,
    quiet: QuietOpt = False,
    certificate: Annotated[
        Path | None,
        typer.Option(
            "--certificate",
            help="Also write the answer's certificate (.json or .npz; docs/certificates.md) "
            "and have the standalone checker judge it (and the answer file) before exit 0.",
        ),
    ] = None,
) -> None:
    """Solve a case with every applicable solver (no Z3): values, remoteness, moves, agreement."""
    out = _renamed("--out", old_out, "--output", out)
    from verifier.io.answers import ANSWER_SUFFIXES

    brief: Brief = "lines" if quiet else "full"
    progress.quiet(quiet)  # -q: no progress either
    form = pick_format(fmt, as_json)
    writer = make_writer(form, Settings(values=values, brief=brief))
    answer_file = out if out is not None and out.suffix.lower() in ANSWER_SUFFIXES else None
    _refuse_overwrite(answer_file, force)
    _refuse_overwrite(certificate, force)
    if certificate is not None:
        _check_output(certificate)
    if answer_file is not None:
        _check_output(answer_file)
        if answer_file.suffix.lower() == ".parquet":
            _needs(answer_file, "writing Parquet", "parquet", "pyarrow")
    elif out is not None and engine is SolveEngine.dask:
        _check_output(out, folder=True)
    if engine is SolveEngine.dask:
        _needs(path, "--engine dask", "dask", "dask", "distributed", "pyarrow")
        try:
            from verifier.distributed.api import SOLVERS, distributed_report, solve_distributed
        except ImportError as e:
            raise _fail(
                f"{path}: --engine dask needs the extra: pip install '.[dask]' ({e})"
            ) from None
        if path.is_dir() and not is_parquet_graph(path):  # a tiered dataset
            if out is not None and answer_file is None:
                raise _fail(f"-o {out}: answer files are .json, .csv, .npz or .parquet (a "
                            f"tiered dataset keeps its own answers in {path}/answers)")  # fmt: skip
            from verifier.distributed.tiers.commands import DaskOptions

            cluster = DaskOptions(scheduler, workers, worker_memory)
            _solve_tiers(
                path,
                pick_format(fmt, as_json, (Format.table, Format.json)),
                cluster,
                resume,
                answer_file,
                quiet,
            )
    if resume is not None:
        said = "--resume continues" if resume else "--restart solves again"
        raise _fail(f"{path}: {said} a tiered dataset's solve (--engine dask on a DIR)")
    if path.is_dir() and (path / "manifest.json").is_file():
        raise _fail(f"{path}: a tiered dataset: solve it with --engine dask")
    case = _load_or_exit(path, max_positions, "solve", semantics)
    if engine is SolveEngine.dask:
        if case.semantics not in SOLVERS:
            raise _fail(
                f"{path}: --engine dask solves {', '.join(s.value for s in SOLVERS)} graphs, "
                f"not {case.semantics.value!r}: use another engine"
            )
        try:
            res = solve_distributed(
                case,
                scheduler=scheduler,
                out=None if answer_file else out,
                workers=workers,
                partitions=partitions,
            )
        except VerifierError as e:
            raise _fail(str(e)) from None
        _save_answers(res.solution, case, answer_file)
        dask_report = distributed_report(case, res)
        writer.write_case(dask_report)
        writer.finish([dask_report], [])
        raise typer.Exit(exit_code([dask_report], 0))
    if out is not None and answer_file is None:
        raise _fail(
            f"-o {out}: answer files are .json, .csv, .npz or .parquet (a directory: "
            "--engine dask's dataset)"
        )
    _say_compiling(case, engine.value)
    shown = sys.stderr.isatty() and progress.progress_wanted()
    bar = _case_bar(Console(emoji=False, stderr=True)) if shown else None
    solve_progress = PlainProgress(sys.stderr) if bar is None else _progress_fn(bar)
    with bar if bar is not None else nullcontext():  # a bar on a terminal, as verify's
        rep = api.solve_report(
            case, engine=engine.value, progress=solve_progress, max_positions=max_positions
        )
    if answer_file is not None:
        with _working(f"writing {answer_file}: {case.graph.n:,} positions"):
            _save_answers(rep.solution, case, answer_file)
    if certificate is not None:
        with _working(f"certifying {case.graph.n:,} positions: {certificate} and its check"):
            rep = _certified(rep, certificate, answer_file, csv=form is Format.csv)
    writer.write_case(rep)
    writer.finish([rep], [])
    raise typer.Exit(exit_code([rep], 0))


def _certified(
    rep: CaseReport, certificate: Path, answers: Path | None, *, csv: bool = False
) -> CaseReport:
    """The solve report with the standalone checker's verdict on the certificate written to
    ``certificate`` (and on the answer file beside it; ``csv``: on the CSV printed too)."""
    from verifier.certify.outside import self_checked

    if answers is not None and answers.suffix.lower() == ".parquet":
        answers = None  # the checker reads .json, .csv and .npz answer files
    try:
        out = self_checked(rep, keep=certificate, answers=answers, csv=csv)
    except VerifierError as e:
        raise _fail(str(e)) from None
    if out.summary.get("certificate") != "written":
        why = out.summary.get("certificate") or f"the case is {rep.verdict.value}"
        _err(Console(emoji=False, stderr=True), f"{certificate}: no certificate written ({why})")
    return out


def _solve_tiers(
    path: Path,
    fmt: Format,
    cluster: DaskOptions,
    resume: bool | None,
    out: Path | None = None,
    quiet: bool = False,
) -> None:
    """``solve DIR --engine dask`` on a tiered dataset: solve it on the cluster, print the
    start position's value and the counts per tier (``quiet``: the value alone), exit 0
    (``tiers.commands.solve_tiers``); ``out``: an answer file to write the answers to
    (``dataset.answers``)."""
    import json

    from verifier.distributed.tiers.commands import solve_tiers
    from verifier.writers.dataset import solved_document, solved_lines

    res = _tier_errors(lambda: solve_tiers(path, cluster, resume, _said(path), out))
    if fmt is Format.json:
        print(json.dumps(solved_document(res), indent=2))
    else:
        print("\n".join(solved_lines(res)[: 1 if quiet else None]))
    raise typer.Exit(EXIT_OK)
