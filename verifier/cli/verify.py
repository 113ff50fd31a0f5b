"""``verify CASE|DIR``: solve each case, cross-check with Z3, judge answer files."""

from __future__ import annotations

import dataclasses
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from verifier import api
from verifier.errors import VerifierError
from verifier.io.files import check_writable
from verifier.model.report import CaseReport
from verifier.model.semantics import Semantics
from verifier.progress import PlainProgress, progress_wanted
from verifier.progress import quiet as quiet_progress
from verifier.registry import ProgressFn
from verifier.writers import Format, Settings, make_writer
from verifier.writers.base import Brief

if TYPE_CHECKING:
    from verifier.distributed.tiers.commands import DaskOptions

from verifier.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_REFUTED,
    _answers_mistake,
    _case_bar,
    _err,
    _fail,
    _load_answers,
    _progress_fn,
    _said,
    _say_compiling,
    _tier_errors,
    exit_code,
    load,
    pick_format,
)
from verifier.cli.help import HELP_OPTIONS, _Command
from verifier.cli.options import (
    CHECKS,
    OUTPUT,
    AnswersOpt,
    BudgetOpt,
    CheckResumeOpt,
    Engine,
    FormatOpt,
    JsonOpt,
    JunitOpt,
    LinearOpt,
    MaxPositionsOpt,
    PathsArg,
    QuietOpt,
    RlimitOpt,
    SeedOpt,
    TablesSemanticsOpt,
    ValuesOpt,
    VerboseOpt,
    VerifyCertificateOpt,
    VerifyEngine,
    VersionOpt,
    _scheduler_option,
    _worker_memory_option,
    _workers_option,
)


def run_verify(
    paths: list[Path],
    *,
    fmt: Format,
    values: bool,
    engine: Engine,
    rlimit: int,
    seed: int,
    verbose: bool,
    max_positions: int | None = None,
    answers: Path | None = None,
    quiet: bool = False,
    junit: Path | None = None,
    budget: float | None = None,
    linear: bool = False,
    certificate: Path | None = None,
    self_check: bool | None = None,
    force: bool = False,
    semantics: Semantics | None = None,
) -> int:
    """Verify every case under ``paths`` and write them in format ``fmt``; the exit code.

    ``answers``: an answer file for the one case given, judged alongside our solvers. The
    table: one case in full; several, one line each and the table of each case not verified
    (``verbose``: every table in full; ``quiet``: one line each, nothing more)."""
    out = Console(emoji=False, soft_wrap=False, width=None if sys.stdout.isatty() else 140)
    from verifier.io.discover import discover

    err = Console(emoji=False, stderr=True)
    found = discover(paths)
    files = [f.path for f in found.cases]
    note = found.note()
    if not files:
        why = f" ({note})" if note else ""
        _err(err, f"{' '.join(map(str, paths))}: $: no case files found{why}")
        return EXIT_BAD_INPUT
    if quiet and verbose:
        _err(err, "--quiet and --verbose: give one of them")
        return EXIT_BAD_INPUT
    quiet_progress(quiet)  # -q: no progress either
    brief: Brief = "lines" if quiet else "full" if verbose or len(files) == 1 else "failures"
    settings = Settings(console=out, values=values, verbose=verbose, brief=brief)
    writer = make_writer(fmt, settings)
    if answers is not None and len(files) != 1:
        _err(err, f"--answers {answers}: give exactly one case (got {len(files)} case files)")
        return EXIT_BAD_INPUT
    if answers is not None and _answers_mistake(answers) is not None:
        _err(err, str(_answers_mistake(answers)))
        return EXIT_BAD_INPUT
    if linear and answers is None and not all(f.answers for f in found.cases):
        _err(err, "--linear judges an answer table: give --answers FILE")
        return EXIT_BAD_INPUT
    for written in (junit, certificate if certificate is not None and len(files) == 1 else None):
        if written is not None and not written.is_dir():
            try:
                check_writable(written)
            except VerifierError as e:
                _err(err, str(e))
                return EXIT_BAD_INPUT
    if certificate is not None and not force:  # as solve -o: an existing file stays
        folder = len(files) > 1 or certificate.is_dir() or not certificate.suffix
        targets = [certificate / f"{f.stem}.cert.json" for f in files] if folder else [certificate]
        there = next((t for t in targets if t.exists() or t.is_symlink()), None)
        if there is not None:
            _err(err, f"{there}: the file exists: --force replaces it")
            return EXIT_BAD_INPUT
    if certificate is not None and len(files) > 1:
        try:
            certificate.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            _err(err, f"{certificate}: $: cannot make the folder: {e.strerror or e}")
            return EXIT_BAD_INPUT
    if note is not None:
        _err(err, note)
    reports: list[CaseReport] = []
    errors: list[str] = []
    show_bar = sys.stderr.isatty() and progress_wanted()  # plain lines elsewhere
    for item in found.cases:
        f = item.path
        if item.error is not None:
            errors.append(item.error)
            _err(err, item.error)
            continue
        t_read = time.perf_counter()
        try:
            case = load(
                f, max_positions, command="linear" if linear else "verify", semantics=semantics
            )
        except VerifierError as e:
            errors.append(str(e))
            _err(err, str(e))
            continue
        except OSError as e:
            msg = f"{f}: $: cannot read the file: {e.strerror or e}"
            errors.append(msg)
            _err(err, msg)
            continue
        progress = _case_bar(err) if show_bar else None
        claims = None
        judged = answers or item.answers
        if judged is not None:
            try:
                claims = _load_answers(
                    judged, case, max_positions, command="linear" if linear else "verify"
                )
            except VerifierError as e:
                errors.append(str(e))
                _err(err, str(e))
                continue
        read = time.perf_counter() - t_read
        _say_compiling(case, engine.value)
        on_progress: ProgressFn = (
            _progress_fn(progress) if progress is not None else PlainProgress(sys.stderr)
        )
        with progress if progress is not None else nullcontext():
            rep = api.verify(
                case,
                engine=engine.value,
                rlimit=rlimit,
                seed=seed,
                answers=claims,
                budget=budget,
                linear=linear,
                progress=on_progress,
                self_check=False,
                max_positions=max_positions,
            )
        rep = rep.timed("read", read, first=True)
        rep = _outside_check(rep, certificate, len(files), self_check, fmt, err)
        reports.append(rep)
        writer.write_case(rep)
    writer.finish(reports, errors)
    if junit is not None:
        from verifier.writers.junit import write_junit

        try:
            write_junit(junit, reports, errors)
        except VerifierError as e:
            _err(err, str(e))
            return EXIT_BAD_INPUT
    return exit_code(reports, len(errors))


def _outside_check(
    rep: CaseReport,
    certificate: Path | None,
    cases: int,
    self_check: bool | None,
    fmt: Format,
    err: Console,
) -> CaseReport:
    """The report with the standalone checker's verdict on its certificate (written to
    ``certificate``: a file for one case, a folder for several; docs/certificates.md)."""
    from verifier.certify.outside import self_checked

    keep = None
    if certificate is not None:
        folder = cases > 1 or certificate.is_dir() or not certificate.suffix
        keep = (
            certificate / f"{Path(rep.case.path or rep.case.id).stem}.cert.json"
            if folder
            else certificate
        )
        if folder:
            certificate.mkdir(parents=True, exist_ok=True)
    if self_check is False and keep is None:
        return rep
    try:
        out = self_checked(rep, keep=keep, csv=fmt is Format.csv, force=bool(self_check))
    except VerifierError as e:
        _err(err, str(e))
        return rep
    if keep is not None and out.summary.get("certificate") != "written":
        why = out.summary.get("certificate") or f"the case is {rep.verdict.value}"
        _err(err, f"{keep}: no certificate written ({why})")
    if cases > 1 and out.printed_csv is not None:  # several: one table with a case column
        out = dataclasses.replace(out, printed_csv=None)  # (each case's rows judged alone)
    return out


def verify_cmd(
    paths: PathsArg,
    answers: AnswersOpt = None,
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    values: ValuesOpt = True,
    engine: Annotated[
        VerifyEngine,
        typer.Option(
            help="auto, reference, numpy or compiled (auto: numpy always, the reference "
            "solvers up to 50,000 nodes, compiled (numba) above 200,000, compared node by "
            "node); dask: a tiered dataset (DIR), judged shard by shard on a Dask cluster "
            "(docs/distributed.md).",
            rich_help_panel=CHECKS,
        ),
    ] = VerifyEngine.auto,
    rlimit: RlimitOpt = 800_000_000,
    seed: SeedOpt = 0,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    max_positions: MaxPositionsOpt = None,
    semantics: TablesSemanticsOpt = None,
    scheduler: Annotated[str | None, _scheduler_option(CHECKS)] = None,
    workers: Annotated[int, _workers_option(CHECKS)] = 2,
    worker_memory: Annotated[str | None, _worker_memory_option(CHECKS)] = None,
    junit: JunitOpt = None,
    budget: BudgetOpt = None,
    linear: LinearOpt = False,
    certificate: VerifyCertificateOpt = None,
    self_check: Annotated[
        bool | None,
        typer.Option(
            "--self-check/--no-self-check",
            help="The standalone checker (checker/) judges our answer's certificate before it "
            "is called verified: by default up to 1,000,000 positions, above that through a "
            "temporary dataset as far as the memory allows (--self-check: at any size).",
            show_default=False,
            rich_help_panel=CHECKS,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace an existing --certificate file (else exit 2).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    resume: CheckResumeOpt = None,
    version: VersionOpt = False,
) -> None:
    """Solve each case with every applicable solver, cross-check with Z3, compare with expect.

    With --answers FILE, also judge a stranger's answers for the case (docs/answers.md).
    A tiered dataset (DIR, --engine dask): its answers, or the Parquet table --answers, judged
    shard by shard on a Dask cluster (the linear checks).
    Exit code: 0 verified, 1 refuted, 2 bad input, 3 inconclusive.
    """
    tiered = [p for p in paths if p.is_dir() and (p / "manifest.json").is_file()]
    if engine is VerifyEngine.dask or tiered:
        if engine is not VerifyEngine.dask:
            raise _fail(f"{tiered[0]}: a tiered dataset: verify it with --engine dask")
        if len(paths) != 1:
            raise _fail("--engine dask judges one tiered dataset at a time: give one DIR")
        if quiet and verbose:
            raise _fail("--quiet and --verbose: give one of them")
        from verifier.distributed.tiers.commands import DaskOptions

        cluster = DaskOptions(scheduler, workers, worker_memory)
        form = pick_format(fmt, as_json)
        _verify_tiers(paths[0], answers, form, cluster, quiet, verbose, junit, resume,
                      (certificate, self_check, force))  # fmt: skip
    if resume is not None:
        raise _fail(f"{paths[0]}: --resume/--restart: for a tiered dataset's check (a DIR, "
                    "--engine dask), not a case file")  # fmt: skip
    raise typer.Exit(
        run_verify(
            paths,
            fmt=pick_format(fmt, as_json),
            values=values,
            engine=Engine(engine.value),
            rlimit=rlimit,
            seed=seed,
            verbose=verbose,
            max_positions=max_positions,
            answers=answers,
            quiet=quiet,
            junit=junit,
            budget=budget,
            linear=linear,
            certificate=certificate,
            self_check=self_check,
            force=force,
            semantics=semantics,
        )
    )


def _verify_tiers(
    path: Path, answers: Path | None, fmt: Format, cluster: DaskOptions, quiet: bool = False,
    verbose: bool = False, junit: Path | None = None, resume: bool | None = None,
    cert: tuple[Path | None, bool | None, bool] = (None, None, False),
) -> None:  # fmt: skip
    """``verify DIR --engine dask``: judge a tiered dataset's answers (or the Parquet table
    ``answers``, or another dataset's answers) shard by shard on the cluster; exit 0 verified,
    1 refuted (``tiers.commands.verify_tiers``); ``quiet``: the verdict's line alone;
    ``verbose``: each check's violations shard by shard; ``junit``: its JUnit XML too;
    ``resume``: a stopped check's records reused or not (``--resume/--restart``); ``cert``:
    --certificate, --self-check/--no-self-check, --force (``SelfCheck``)."""
    import json

    from verifier.distributed.tiers.commands import verify_tiers
    from verifier.writers import dataset as report

    rows = fmt is Format.csv
    said = _said(path)
    res = _tier_errors(
        lambda: verify_tiers(path, answers, cluster, said, rows, junit, resume, cert)
    )
    if rows:  # the dataset's answers, as verify CASE --format csv prints a case's
        from verifier.writers.csv import write_records

        write_records(_tier_errors(res.records), sys.stdout)
        line = res.not_verified()
        if line is not None:
            print(line, file=sys.stderr)
    elif fmt is Format.json:
        print(json.dumps(report.checked_document(res), indent=2))
    else:
        print(report.checked_line(res) if quiet else "\n".join(report.checked_lines(res, verbose)))
    if junit is not None:
        _tier_errors(lambda: report.write_checked_junit(res, junit))
    exits = {"refuted": EXIT_REFUTED, "inconclusive": EXIT_INCONCLUSIVE, "verified": EXIT_OK}
    raise typer.Exit(exits[res.verdict])


verify_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    help=verify_cmd.__doc__,
    context_settings=HELP_OPTIONS,
)
verify_app.command(cls=_Command, context_settings=HELP_OPTIONS)(verify_cmd)
