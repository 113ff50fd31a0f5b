"""Command-line interface (Typer): ``verify CASE|DIR`` and ``verifier <command>``.

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from enum import StrEnum
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, TypeVar

# the command line uses no pydantic plugins: without this, building the first case model scans
# every installed package's entry points for them (10-30 ms of a 0.38 s run); a user who wants
# plugins sets the variable to an empty string
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

from verifier import api
from verifier.errors import CaseError, UsageError, VerifierError
from verifier.io.answers import Answers
from verifier.io.files import check_writable
from verifier.io.limits import Command, Limits
from verifier.io.pipes import closed_pipe_tolerated
from verifier.model import Case
from verifier.model.columns import Column
from verifier.model.report import CaseReport
from verifier.model.solution import Solution
from verifier.model.words import count
from verifier.pipeline import run_case
from verifier.progress import Counts, PlainProgress, heartbeat, reporting
from verifier.registry import Options, ProgressFn
from verifier.writers import Document, Format, Settings, make_writer, overall_verdict
from verifier.writers.base import Brief

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "EXIT_OK", "EXIT_REFUTED", "app", "main"]

T = TypeVar("T")

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as shells report it): one line on stderr, nothing half-written."""

CASE_SUFFIXES = (".json", ".npz", ".graphml", ".gml")
"""The case files ``verify`` reads (``verifier.io.discover`` tells which are cases)."""

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
"""``-h`` is ``--help`` in every command (the subcommands inherit it from their group)."""

INPUT, OUTPUT, CHECKS, LIMITS = "Input", "Output", "Checks", "Limits"
GAMES, RANDOM = "Games", "Random graphs (generate random)"
"""The help's panels of options (Typer's ``rich_help_panel``), as ``pytest -h`` groups them."""


def _metavar(param: Any) -> str | None:
    """A short name for an option's value in the help: nothing for a flag (not ``<bool>``),
    the choices when short, else N, NUM, PATH or TEXT (``None``: an argument, as Typer
    shows it)."""
    if param.param_type_name != "option" or param.metavar is not None:
        return param.metavar  # type: ignore[no-any-return]
    if param.is_flag:
        return ""
    desc = param.type_descriptor
    if desc.is_choice:
        choices = "|".join(str(getattr(c, "value", c)) for c in desc.choices or ())
        return choices if len(choices) <= 16 else "NAME"
    if desc.is_path:
        return "PATH"
    kind = desc.annotation
    return {int: "N", float: "NUM"}.get(kind, "TEXT")


_SENTENCE_END = re.compile(r"[.!?:]\)?$")


def _reflow(text: str) -> str:
    """A docstring as the help shows it: a paragraph's lines joined where a sentence runs on
    (Typer keeps a docstring's own line breaks, which left sentences broken mid-line at 80
    columns), a break kept after a sentence that ends a line (``Exit code: ...`` on its own)."""
    paragraphs = []
    for para in inspect.cleandoc(text).split("\n\n"):
        if para.startswith("\b"):  # click's mark for a paragraph printed as it is
            paragraphs.append(para)
            continue
        lines: list[str] = []
        for line in para.splitlines():
            line = line.strip()
            if lines and not (_SENTENCE_END.search(lines[-1]) and not line[:1].islower()):
                lines[-1] = f"{lines[-1]} {line}"
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _usage_name(param: Any) -> str:
    """An argument in the usage line: GAME, PATHS..., [NAME] (not Typer's ``{game}``)."""
    name = str(param.metavar or param.name).upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


class _Fits80:
    """Help that fits 80 columns: short metavars (``_metavar``), the help option without one,
    the docstring's sentences reflowed (``_reflow``), arguments named in capitals and without
    Typer's ``<list[Path]>`` (a choice keeps its values)."""

    params: list[Any]
    help: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = _reflow(self.help)
        for param in self.params:
            param.metavar = _metavar(param)
            if param.param_type_name == "argument" and not param.type_descriptor.is_choice:
                param.display_type_rich = lambda ctx: None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Click's usage errors in our words: no hidden option suggested for a misspelt one
        (``--ouput``: ``--output``, never the old ``--out``), no pydantic ``Value error, ``
        before a bad value's message."""
        from typer._click.exceptions import BadParameter, NoSuchOption

        try:
            return super().parse_args(ctx, args)  # type: ignore[misc,no-any-return]
        except NoSuchOption as e:
            hidden = {n for p in self.params if getattr(p, "hidden", False) for n in p.opts}
            e.possibilities = [n for n in e.possibilities or () if n not in hidden]
            raise
        except BadParameter as e:
            e.message = e.message.removeprefix("Value error, ")
            raise

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces: list[str] = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        typer_names = {
            p.get_usage_pieces(ctx)[0]: _usage_name(p)
            for p in self.params
            if p.param_type_name == "argument"
        }
        return [typer_names.get(piece, piece) for piece in pieces]

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class _Command(_Fits80, TyperCommand):
    """A command whose help fits 80 columns, with ``-h``."""


class _GenerateCommand(_Command):
    """``generate``: the GAME argument's help lists the built-in games their modules declare,
    and a last panel what each is and takes (read when the help is shown, so no other command
    imports the game modules)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from verifier.games.registry import builtin_games, known

        for param in self.params:
            if param.param_type_name == "argument":  # GAME, the one argument
                param.help = (
                    f"{known()}, or your own game class: FILE.py:Class or module:Class, or an "
                    "OpenSpiel game: openspiel:NAME (docs/games.md)."
                )
        super().format_help(ctx, formatter)
        from rich.panel import Panel
        from rich.table import Table
        from typer.rich_utils import MAX_WIDTH

        own = {p.name: p.opts[0] for p in self.params}
        table = Table.grid(padding=(0, 1))
        for game in builtin_games():
            flags = " ".join(own.get(o.name, f"--param {o.name}=...") for o in game.options)
            table.add_row(game.shown, game.summary + (f" [{flags}]" if flags else ""))
        Console(highlight=False, width=MAX_WIDTH).print(
            Panel(table, title="Built-in games", title_align="left", border_style="dim")
        )


class _Group(_Fits80, TyperGroup):
    """A group whose help fits 80 columns (its options as ``_Command``'s)."""


app = typer.Typer(
    name="verifier",
    cls=_Group,
    context_settings=HELP_OPTIONS,
    help="Solve finite two-player game graphs several ways and prove the answers with Z3.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    """``--version``: the installed package's version, then exit 0."""
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("gamegraph-verifier")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown (not installed)"
        typer.echo(f"gamegraph-verifier {number}")
        raise typer.Exit(EXIT_OK)


VersionOpt = Annotated[
    bool,
    typer.Option(
        "--version",
        callback=_print_version,
        is_eager=True,
        expose_value=False,
        help="Print the version and exit.",
    ),
]


@app.callback()
def _group(version: VersionOpt = False) -> None:
    """Solve finite two-player game graphs several ways and prove the answers with Z3."""


class Engine(StrEnum):
    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"


class VerifyEngine(StrEnum):
    """``verify --engine``: the in-memory engines, or ``dask`` for a tiered dataset."""

    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"
    dask = "dask"


def _err(console: Console, msg: str) -> None:
    """Print one line as it is: no markup, no highlighting, never wrapped (a path stays whole
    when piped)."""
    console.print(msg, markup=False, highlight=False, soft_wrap=True)


def load(path: Path, max_positions: int | None = None, *, command: Command = "verify") -> Case:
    """Read a case file of any supported kind (one-line ``CaseError`` on bad input, or on a
    case of more than ``max_positions`` nodes + moves; default: sized to the machine and to
    what ``command`` costs a position, ``verifier.io.limits.COMMAND_BYTES_PER_POSITION``)."""
    from verifier.io import load_any

    return load_any(path, limits=_limits(max_positions, command))


def _limits(max_positions: int | None, command: Command = "verify") -> Limits:
    """The readers' limits for ``--max-positions`` (default: sized to the machine and to
    ``command``)."""
    return Limits.for_command(command, max_positions)


def collect(paths: list[Path]) -> list[Path]:
    """Case files named on the command line; folders are searched as ``verify`` searches them
    (``verifier.io.discover``)."""
    from verifier.io.discover import discover

    return [f.path for f in discover(paths).cases]


EXIT_OF = {
    "verified": EXIT_OK,
    "solved": EXIT_OK,
    "refuted": EXIT_REFUTED,
    "inconclusive": EXIT_INCONCLUSIVE,
    "bad-input": EXIT_BAD_INPUT,
}
"""The overall verdict of a run (``writers.overall_verdict``) -> its exit code."""


def exit_code(reports: list[CaseReport], bad_inputs: int) -> int:
    """The exit code of a run: its worst outcome."""
    return EXIT_OF[overall_verdict(reports, bad_inputs)]


def _progress_fn(progress: Progress) -> ProgressFn:
    """The ``progress`` callback that moves the bar ``progress``, a task per stage."""
    tasks: dict[str, TaskID] = {}

    def report(task: str, done: int, total: int) -> None:
        if task not in tasks:
            tasks[task] = progress.add_task(task, total=total)
        progress.update(tasks[task], completed=done, total=total)

    return report


def _say_compiling(case: Case, engine: str) -> None:
    """One line on stderr before the solver kernels compile (the first run on a machine, a
    minute on 2 cores; ``verifier.kernel_cache``), when the compiled engine will run."""
    from verifier.registry import COMPILED_LIMIT

    if engine == "compiled" or (engine == "auto" and case.graph.n > COMPILED_LIMIT):
        from verifier.kernel_cache import say_if_cold

        say_if_cold(sys.stderr, "verifier.engine._kernels", "the solver kernels")


def _case_bar(console: Console) -> Progress:
    """The progress bar of one case on a terminal (rich.progress imported only then)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
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
    show_bar = sys.stderr.isatty()  # a bar on a terminal; plain lines when piped
    for item in found.cases:
        f = item.path
        if item.error is not None:
            errors.append(item.error)
            _err(err, item.error)
            continue
        t_read = time.perf_counter()
        try:
            case = load(f, max_positions, command="linear" if linear else "verify")
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


def _answers_mistake(path: Path) -> str | None:
    """Why ``path`` given as ``--answers`` is not an answer file (it is a case), or None."""
    from verifier.io.discover import kind_of

    if path.suffix.lower() in (".json", ".npz") and path.is_file() and kind_of(path) == "case":
        return (
            f"{path}: $: a case file, not an answer file: give the case first, "
            f"verify {path} --answers ANSWERS"
        )
    return None


def _load_answers(
    path: Path, case: Case, max_positions: int | None = None, *, command: Command = "verify"
) -> Answers:
    """Read an answer file for ``case`` (one-line ``CaseError`` on a bad file or one too big
    for ``--max-positions``)."""
    from verifier.io.answers import load_answers

    try:
        return load_answers(path, case, _limits(max_positions, command))
    except OSError as e:
        raise CaseError(str(path), "$", f"cannot read the file: {e.strerror or e}") from None


PathsArg = Annotated[
    list[Path], typer.Argument(help="Case files (.json, .npz, .graphml, .gml) or folders of them.")
]


def _format_option(csv: str | None = "csv (one row per node)") -> Any:
    """``--format``: what each format writes, csv's rows as the command writes them (not
    offered where the command writes no csv: ``pick_format`` refuses it there)."""
    kinds = "table (readable; the default), json (the machine report)"
    return typer.Option(
        "--format",
        metavar=None if csv else "table|json",
        help=f"{kinds} or {csv}." if csv else f"{kinds}.",
        show_default=False,
        rich_help_panel=OUTPUT,
    )


FormatOpt = Annotated[Format | None, _format_option()]
ReportFormatOpt = Annotated[Format | None, _format_option(None)]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="The same as --format json.", rich_help_panel=OUTPUT)
]
ValuesOpt = Annotated[
    bool,
    typer.Option(
        "--values/--no-values", help="Include per-node values in --json.", rich_help_panel=OUTPUT
    ),
]
EngineOpt = Annotated[
    Engine,
    typer.Option(
        help="auto, reference, numpy or compiled. auto: numpy always, the reference solvers "
        "up to 50,000 nodes, compiled (numba) above 200,000, compared node by node; "
        "compiled: numba at every size.",
        rich_help_panel=CHECKS,
    ),
]
RlimitOpt = Annotated[
    int,
    typer.Option(
        min=0,
        help="Z3's resource limit per query (deterministic): unknown at 50,000,000, a query "
        "is asked again with 4x the limit up to this one.",
        rich_help_panel=LIMITS,
    ),
]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--z3-seed",
        min=0,
        help="Z3's random seed (generate's --seed is the random graph's: another thing).",
        rich_help_panel=CHECKS,
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Every check and solver on its own row, skipped solvers too; with a folder, "
        "the full table of every case.",
        rich_help_panel=OUTPUT,
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace the output file if it exists (else exit 2).",
        rich_help_panel=OUTPUT,
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="One line per case (its verdict and answer), nothing more.",
        rich_help_panel=OUTPUT,
    ),
]
BudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--budget",
        min=0,
        help="Seconds each case may take: checks not finished by then end unknown "
        "(inconclusive, exit 3) and Z3 queries get at most the time left. Default: none.",
        rich_help_panel=LIMITS,
    ),
]
MaxPositionsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-positions",
        min=1,
        help="Refuse a case of more positions (nodes + moves) before reading it. Default: "
        "60% of the memory at the command's measured bytes a position (see "
        "docs/hostile-input.md).",
        show_default=False,
        rich_help_panel=LIMITS,
    ),
]
AnswersOpt = Annotated[
    Path | None,
    typer.Option(
        "--answers",
        help="An answer file (.json, .csv, .npz, .parquet; docs/answers.md) for the one case "
        "given: its claims are checked against the rules, and the report names any wrong "
        "entry.",
        rich_help_panel=INPUT,
    ),
]


@app.command("verify", cls=_Command)
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
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Dask scheduler address (--engine dask; default: a LocalCluster).",
            rich_help_panel=CHECKS,
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(min=1, help="LocalCluster workers (--engine dask).", rich_help_panel=CHECKS),
    ] = 2,
    worker_memory: Annotated[str | None, _worker_memory_option(CHECKS)] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            help="Also write JUnit XML: a testcase per case, refuted = failure, "
            "inconclusive or bad input = error.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    budget: BudgetOpt = None,
    linear: Annotated[
        bool,
        typer.Option(
            "--linear",
            help="With --answers: the linear checks alone (local rules, agreement with a "
            "compiled solver, remoteness, moves), no Z3: 10^7 positions in seconds.",
            rich_help_panel=CHECKS,
        ),
    ] = False,
    certificate: Annotated[
        Path | None,
        typer.Option(
            "--certificate",
            help="Write the certificate of the answer (docs/certificates.md): FILE.json or "
            "FILE.npz for one case, a folder for several (NAME.cert.json each).",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    self_check: Annotated[
        bool | None,
        typer.Option(
            "--self-check/--no-self-check",
            help="The standalone checker (checker/) judges our answer's certificate before it "
            "is called verified: by default up to 1,000,000 positions.",
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
        for flag, given in (("--junit", junit), ("--certificate", certificate)):
            if given is not None:
                raise _fail(f"{flag}: not written for a tiered dataset (--engine dask)")
        _verify_tiers(
            paths[0],
            answers,
            pick_format(fmt, as_json),
            DaskOptions(scheduler, workers, worker_memory),
        )
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
        )
    )


verify_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    help=verify_cmd.__doc__,
    context_settings=HELP_OPTIONS,
)
verify_app.command(cls=_Command, context_settings=HELP_OPTIONS)(verify_cmd)


OldOutOpt = Annotated[Path | None, typer.Option("--out", hidden=True)]
"""``--out``: the old spelling of ``--output`` (hidden; kept for one release)."""


def _renamed(old: str, old_value: T | None, new: str, new_value: T) -> T:
    """The value of an option given by its new name or its old, hidden one (a note on stderr
    for the old one; both: exit 2)."""
    if old_value is None:
        return new_value
    if new_value is not None and new_value != old_value:
        raise _fail(f"{old} is the old name of {new}: give one of them")
    _err(
        Console(emoji=False, stderr=True),
        f"note: {old} is now {new} (the old name goes in a later release)",
    )
    return old_value


def _fail(msg: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    _err(Console(emoji=False, stderr=True), msg)
    return typer.Exit(code)


def pick_format(
    fmt: Format | None, as_json: bool, allowed: tuple[Format, ...] = tuple(Format)
) -> Format:
    """The output format from ``--format`` and its synonym ``--json`` (exit 2 on a conflict or
    a format the command does not write)."""
    if as_json and fmt not in (None, Format.json):
        raise _fail(f"--json and --format {fmt}: give one of them")
    chosen = Format.json if as_json else fmt or Format.table
    if chosen not in allowed:
        raise _fail(f"--format {chosen}: this command writes {' or '.join(allowed)}")
    return chosen


def _dataset_route(path: Path) -> str:
    """One line for a tiered dataset given where a case file is read: what reads it, and how
    to get the same game as a case file (the command that writes one, from its manifest)."""
    import json

    try:
        m = json.loads((path / "manifest.json").read_text())
        game, params = str(m.get("game")), dict(m.get("parameters") or {})
    except (OSError, ValueError, TypeError, AttributeError):
        game, params = "", {}
    sym = " --symmetry" if params.get("symmetric") else ""
    out = f"{path.name or 'game'}.npz"
    if game == "connect4":
        w, h = params.get("width"), params.get("height")
        how = f"verifier generate connect4 --width {w} --height {h}{sym} -o {out}"
    elif game == "chess" and params.get("material"):
        how = f"verifier generate chess:{params['material']}{sym} -o {out}"
    elif game == "graph" and params.get("source"):
        how = f"its source, {params['source']}"
    else:
        how = "the generate command that made it, without --engine dask"
    return (
        f"{path}: a tiered dataset, not a case file: solve and verify read it with --engine "
        f"dask (docs/distributed.md); for this command, the game as a case file: {how}"
    )


_TIERED_SOURCES = (
    (re.compile(r"verifier\.games\.chess \(material=(\w+)(, symmetry=True)?\)"), "chess:{0}"),
    (
        re.compile(r"verifier\.games\.connect4 \(width=(\d+), height=(\d+)(, symmetry=True)?\)"),
        "connect4 --width {0} --height {1}",
    ),
)
"""The games stored in tiers on the Dask route, as an ``.npz`` case's ``source`` names them."""


def _tiered_route(path: Path, refusal: str) -> str:
    """For a refusal for size of an ``.npz`` case of a game stored in tiers (connect4, chess),
    the sharded route of that game (nothing for any other case, or another error)."""
    if "too big to process" not in refusal or path.suffix.lower() != ".npz":
        return ""
    import json

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:  # the header alone is read
            source = str(json.loads(z["header"].tobytes()).get("source") or "")
    except (OSError, ValueError, KeyError, AttributeError):
        return ""
    for pattern, spec in _TIERED_SOURCES:
        m = pattern.fullmatch(source)
        if m:
            game = spec.format(*m.groups()) + (" --symmetry" if m.groups()[-1] else "")
            return f", or on disk: verifier generate {game} -o DIR --engine dask (tiers)"
    return ""


def _load_or_exit(path: Path, max_positions: int | None, command: Command) -> Case:
    """Read a case for ``command`` (its default ``--max-positions``), or exit 2 with one line
    (for a tiered dataset, how to get at it: ``_dataset_route``)."""
    if path.is_dir() and (path / "manifest.json").is_file():
        raise _fail(_dataset_route(path))
    if not path.exists():  # as verify words it, whatever the file type
        raise _fail(f"{path}: $: no such file or directory")
    try:
        return load(path, max_positions, command=command)
    except VerifierError as e:
        raise _fail(str(e) + _tiered_route(path, str(e))) from None
    except OSError as e:
        raise _fail(f"{path}: $: cannot read the file: {e.strerror or e}") from None


class SolveEngine(StrEnum):
    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"
    dask = "dask"


@app.command("solve", cls=_Command)
def solve_cmd(
    path: Annotated[
        Path,
        typer.Argument(
            help="Case file (.json, .npz, .graphml, .gml), or a tiered dataset's directory "
            "(--engine dask; generate ... --engine dask writes one)."
        ),
    ],
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    values: ValuesOpt = True,
    engine: Annotated[
        SolveEngine,
        typer.Option(
            help="auto / reference / numpy / compiled in memory, or dask (Kars' "
            "synchronous algorithm on a Dask cluster)."
        ),
    ] = SolveEngine.auto,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (default: a LocalCluster).")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="LocalCluster workers (--engine dask).")] = 2,
    partitions: Annotated[
        int | None,
        typer.Option(min=1, help="Node ranges (--engine dask; default: one per worker)."),
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
            "(docs/answers.md), any engine; a directory with --engine dask: the partitioned "
            "Parquet results.",
        ),
    ] = None,
    old_out: OldOutOpt = None,
    max_positions: MaxPositionsOpt = None,
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
            from verifier.distributed.api import distributed_report, solve_distributed
            from verifier.distributed.programs import PROGRAMS
        except ImportError as e:
            raise _fail(
                f"{path}: --engine dask needs the extra: pip install '.[dask]' ({e})"
            ) from None
        if path.is_dir() and not (path / "nodes.parquet").exists():  # a tiered dataset
            if out is not None and answer_file is None:
                raise _fail(f"-o {out}: answer files are .json, .csv, .npz or .parquet (a "
                            f"tiered dataset keeps its own answers in {path}/answers)")  # fmt: skip
            cluster = DaskOptions(scheduler, workers, worker_memory)
            _solve_tiers(
                path,
                pick_format(fmt, as_json, (Format.table, Format.json)),
                cluster,
                resume,
                answer_file,
            )
    if resume is not None:
        said = "--resume continues" if resume else "--restart solves again"
        raise _fail(f"{path}: {said} a tiered dataset's solve (--engine dask on a DIR)")
    if path.is_dir() and (path / "manifest.json").is_file():
        raise _fail(f"{path}: a tiered dataset: solve it with --engine dask")
    case = _load_or_exit(path, max_positions, "solve")
    if engine is SolveEngine.dask:
        if case.semantics not in PROGRAMS:
            raise _fail(
                f"{path}: --engine dask solves {', '.join(s.value for s in PROGRAMS)} graphs, "
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
            "--engine dask's partitioned results)"
        )
    _say_compiling(case, engine.value)
    bar = _case_bar(Console(emoji=False, stderr=True)) if sys.stderr.isatty() else None
    solve_progress = PlainProgress(sys.stderr) if bar is None else _progress_fn(bar)
    with bar if bar is not None else nullcontext():  # a bar on a terminal, as verify's
        rep = api.solve_report(case, engine=engine.value, progress=solve_progress)
    if answer_file is not None:
        with _working(f"writing {answer_file}: {case.graph.n:,} positions"):
            _save_answers(rep.solution, case, answer_file)
    if certificate is not None:
        with _working(f"certifying {case.graph.n:,} positions: {certificate} and its check"):
            rep = _certified(rep, certificate, answer_file, csv=form is Format.csv)
    writer.write_case(rep)
    writer.finish([rep], [])
    raise typer.Exit(exit_code([rep], 0))


def _worker_memory_option(panel: str | None) -> Any:
    """``--worker-memory``, in the help's panel of the command's other Dask options."""
    return typer.Option(
        "--worker-memory",
        help="Each LocalCluster worker's memory limit, e.g. 1.5GB (--engine dask; default: "
        "Dask's share of the machine).",
        rich_help_panel=panel,
    )


class DaskOptions(NamedTuple):
    """Where a tiered run runs: a scheduler's address, or a LocalCluster of ``workers``
    one-thread workers each limited to ``worker_memory``."""

    scheduler: str | None
    workers: int
    worker_memory: str | None


@contextmanager
def _tier_cluster(opts: DaskOptions) -> Iterator[Any]:
    """A Dask client for a tiered run (``--worker-memory`` checked first; the cluster's own
    log lines silenced: a lost worker is reported once, by the run)."""
    import logging

    from verifier.distributed.api import _client

    memory = None
    if opts.worker_memory is not None:
        from dask.utils import parse_bytes

        try:
            memory = parse_bytes(opts.worker_memory)
        except (ValueError, TypeError):
            raise _fail(
                f"--worker-memory {opts.worker_memory!r}: not a size (e.g. 1.5GB)"
            ) from None
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with _client(opts.scheduler, opts.workers, memory) as client:
            yield client
    except OSError as e:
        where = opts.scheduler or "a LocalCluster"
        raise _fail(f"cannot use the Dask cluster ({where}): {e}", EXIT_INCONCLUSIVE) from None
    finally:
        log.setLevel(level)


def _tier_errors(run: Callable[[], T]) -> T:
    """``run()``, its dataset errors exit 2 and its cluster failures exit 3, one line each."""
    from verifier.distributed.tiers.errors import RunFailed

    try:
        return run()
    except RunFailed as e:
        raise _fail(str(e), EXIT_INCONCLUSIVE) from None
    except VerifierError as e:
        raise _fail(str(e)) from None


def _solve_tiers(
    path: Path, fmt: Format, cluster: DaskOptions, resume: bool | None, out: Path | None = None
) -> None:
    """``solve DIR --engine dask`` on a tiered dataset: solve it on the cluster, print the
    start position's value and the counts per tier, exit 0. ``resume`` ``None``: resume where
    a solve stopped part way (some tiers solved, not all), else solve every tier. ``out``: an
    answer file to write the answers to (``tiers.answers``)."""
    import json

    from verifier.distributed.tiers.driver import load_manifest, solve_dataset
    from verifier.distributed.tiers.report import solve_json, solve_text

    err = Console(emoji=False, stderr=True)
    m = _tier_errors(lambda: load_manifest(path))  # bad input before a cluster starts
    if out is not None:
        from verifier.distributed.tiers.answers import readable

        _tier_errors(lambda: readable(path))
    if resume is None:
        kept = sum(t.solved for t in m.tiers)
        resume = 0 < kept < len(m.tiers)
        if resume:
            _err(err, f"progress: {path}: a solve stopped part way: {kept} of {len(m.tiers)} "
                 "tier(s) solved are kept (--restart solves every tier again)")  # fmt: skip

    def run() -> Any:
        with _tier_cluster(cluster) as client:
            res = solve_dataset(
                path, client, resume=resume, say=lambda s: _err(err, f"progress: {path}: {s}")
            )
            wins = None
            if res.manifest.game == "chess":  # per material, the longest wins by FEN
                from verifier.distributed.tiers.chess_tiers import longest_wins

                wins = longest_wins(path, res.manifest, client)
            return res, wins

    res, wins = _tier_errors(run)
    if out is not None:
        from verifier.distributed.tiers.answers import write_answer_file

        n = sum(t.positions for t in res.manifest.tiers)
        with _working(f"writing {out}: {n:,} positions"):
            _tier_errors(lambda: write_answer_file(path, out))
    if fmt is Format.json:
        doc = solve_json(path, res)
        if wins is not None:
            doc["materials"] = wins
        print(json.dumps(doc, indent=2))
    else:
        lines = solve_text(path, res)
        if wins is not None:
            from verifier.distributed.tiers.chess_tiers import wins_text

            lines += wins_text(wins, bool(res.manifest.parameters.get("symmetric")))
        print("\n".join(lines))
    raise typer.Exit(EXIT_OK)


def _verify_tiers(path: Path, answers: Path | None, fmt: Format, cluster: DaskOptions) -> None:
    """``verify DIR --engine dask``: judge a tiered dataset's answers (or the Parquet table
    ``answers``, or another dataset's answers) shard by shard on the cluster; exit 0 verified,
    1 refuted."""
    import json

    _needs(path, "--engine dask", "dask", "dask", "distributed", "pyarrow")
    from verifier.distributed.tiers.driver import load_manifest
    from verifier.distributed.tiers.export import is_dataset
    from verifier.distributed.tiers.graph_check import check_any
    from verifier.distributed.tiers.report import check_json, check_text

    if path.is_file():
        raise _fail(
            f"{path}: not a tiered dataset: --engine dask judges a DIR written by 'verifier "
            "generate ... -o DIR --engine dask'; verify a case file with another --engine"
        )
    _tier_errors(lambda: load_manifest(path))  # bad input before a cluster starts
    if fmt is Format.csv:
        from verifier.distributed.tiers.answers import readable

        _tier_errors(lambda: readable(path))
    if answers is not None and is_dataset(answers):  # the same game, solved elsewhere
        _tier_errors(lambda: load_manifest(answers))
    elif answers is not None:
        from verifier.distributed.tiers.answers import answers_input

        _tier_errors(lambda: answers_input(path, answers))
    err = Console(emoji=False, stderr=True)

    def run() -> Any:
        with _tier_cluster(cluster) as client:
            return check_any(
                path, client, answers=answers, say=lambda s: _err(err, f"progress: {path}: {s}")
            )

    res = _tier_errors(run)
    if res.manifest.game == "chess":  # a witness's FEN needs its tier, which the report knows
        from verifier.distributed.tiers.chess_tiers import name_witnesses

        names, reasons = _tier_errors(lambda: name_witnesses(path, res.manifest, res.witnesses))
        res.names.update(names)
        res.witnesses.update(reasons)  # a move's target named by its FEN too
    if fmt is Format.csv:  # the dataset's answers, as verify CASE --format csv prints a case's
        from verifier.distributed.tiers.answers import dataset_records, not_verified_line
        from verifier.writers.csv import write_records

        write_records(_tier_errors(lambda: dataset_records(path)), sys.stdout)
        line = not_verified_line(path, res)
        if line is not None:
            print(line, file=sys.stderr)
    elif fmt is Format.json:
        print(json.dumps(check_json(path, res), indent=2))
    else:
        print("\n".join(check_text(path, res)))
    exits = {"refuted": EXIT_REFUTED, "inconclusive": EXIT_INCONCLUSIVE, "verified": EXIT_OK}
    raise typer.Exit(exits[res.verdict])


def _generate_tiers(
    game: str,
    width: int | None,
    height: int | None,
    symmetry: bool | None,
    output: Path,
    cluster: DaskOptions,
    per_shard: int | None,
    resume: bool = False,
) -> None:
    """``generate connect4 -o DIR --engine dask [--resume]``: write the tiered dataset on the
    cluster (or continue writing it)."""
    _needs(output, "--engine dask", "dask", "dask", "distributed", "pyarrow")
    from verifier.distributed.tiers.driver import generate_dataset, load_manifest, prepare_output
    from verifier.distributed.tiers.rules import ConnectFourTiers

    if game != "connect4":
        raise _fail(
            f"--engine dask generates connect4, random or a case file's graph "
            f"(.npz, .json) as a tiered dataset, not {game!r}"
        )
    try:
        tiers = ConnectFourTiers(width or 4, height or 4, symmetric=bool(symmetry))
    except ValueError as e:
        raise _fail(str(e)) from None
    if resume:
        if per_shard is not None:
            raise _fail("--resume keeps the dataset's shard size: drop --shard-positions")
        _tier_errors(lambda: load_manifest(output))  # bad input before a cluster starts
    else:
        _tier_errors(lambda: prepare_output(output))
    err = Console(emoji=False, stderr=True)

    def run() -> Any:
        with _tier_cluster(cluster) as client:
            return generate_dataset(
                output,
                tiers,
                client,
                per_shard=per_shard,
                resume=resume,
                say=lambda s: _err(err, f"progress: {output}: {s}"),
            )

    m = _tier_errors(run)
    positions = sum(t.positions for t in m.tiers)
    shards = sum(len(t.shards) for t in m.tiers)
    _err(
        err,
        f"wrote {output}: connect4 {tiers.width}x{tiers.height}, normal, {positions:,} "
        f"{'classes (positions up to the mirror)' if tiers.symmetric else 'positions'} in "
        f"{len(m.tiers)} tiers, {shards} shards",
    )


class RandomGraph(NamedTuple):
    """``generate random``'s options as given (``None``: not given)."""

    semantics: str | None
    nodes: int | None
    degree: float | None
    seed: int | None
    values: str | None
    terminal_fraction: float | None
    acyclic: bool | None


def _random_graph_tiers(opts: RandomGraph) -> Any:
    """The ``GraphTiers`` that ``generate random --engine dask`` draws (random_case's
    defaults), or exit 2 with one line."""
    import math

    from verifier.distributed.tiers.graphs import GraphTiers
    from verifier.model.describe import describe
    from verifier.model.semantics import Semantics

    try:
        sem = Semantics(opts.semantics or GraphTiers.semantics.value)
    except ValueError:
        raise _fail(
            f"--semantics {opts.semantics!r}: give one of {', '.join(x.value for x in Semantics)}"
        ) from None
    d = describe(sem)
    values = opts.values or "-1,0,1"
    labels: list[float] = []
    if d.value_field is not None:  # dead ends take a value (a score or a label)
        try:
            labels = sorted({float(v) for v in values.split(",")})
        except ValueError:
            raise _fail(f"--terminal-values {values!r}: give numbers, e.g. -1,0,1") from None
        if not all(math.isfinite(v) for v in labels):
            raise _fail(f"--terminal-values {values!r}: the values must be finite")
    if d.words and not set(labels) <= set(d.words):  # labels: their codes only
        among = ", ".join(map(str, sorted(d.words)))
        raise _fail(f"--terminal-values {values!r}: {sem.value} labels must be among {among}")
    text = ",".join(f"{v:g}" for v in labels) if labels else None
    return GraphTiers(
        opts.nodes or 1000,
        0,
        seed=opts.seed or 0,
        degree=3.0 if opts.degree is None else opts.degree,
        terminal_fraction=0.1 if opts.terminal_fraction is None else opts.terminal_fraction,
        terminal_values=text,
        acyclic_moves=True if opts.acyclic else None,
        semantics=sem,
    )


def _generate_graph_tiers(
    game: str, opts: RandomGraph, output: Path, cluster: DaskOptions, per_shard: int | None
) -> None:
    """``generate random -o DIR --engine dask`` (the workers draw the graph, shard by shard)
    or ``generate FILE.npz -o DIR --engine dask`` (a case file's graph, stored: any semantics
    but sums; an impartial graph is solved when acyclic)."""
    import math

    _needs(output, "--engine dask", "dask", "dask", "distributed", "pyarrow")
    from verifier.distributed.tiers.driver import prepare_output
    from verifier.distributed.tiers.graph_generate import (
        dataset_from_graph,
        generate_random_graph,
    )
    from verifier.distributed.tiers.graph_rules import rule_for

    try:
        case = None if game == "random" else load(Path(game), command="solve")
    except VerifierError as e:
        raise _fail(str(e)) from None
    tiers = _random_graph_tiers(opts) if case is None else None
    _tier_errors(lambda: prepare_output(output))
    err = Console(emoji=False, stderr=True)

    def say(line: str) -> None:
        _err(err, f"progress: {output}: {line}")

    def run() -> Any:
        with _tier_cluster(cluster) as client:
            if tiers is not None:
                return generate_random_graph(output, tiers, client, per_shard=per_shard, say=say)
            assert case is not None
            shards = math.ceil(case.graph.n / (per_shard or 1_000_000))
            ruled = rule_for(case.semantics) is not None  # normal keeps node 0 as its start
            return dataset_from_graph(
                output, case.graph, client, shards=shards, source=str(game),
                start=case.root if ruled else None, say=say,
            )  # fmt: skip

    m = _tier_errors(run)
    t = m.tiers[0]
    _err(
        err,
        f"wrote {output}: graph, {m.semantics}, {t.positions:,} nodes, "
        f"{m.parameters['edges']:,} moves in {len(t.shards)} shards",
    )


def _generate_chess_tiers(
    game: str,
    symmetry: bool | None,
    output: Path,
    cluster: DaskOptions,
    per_shard: int | None,
    resume: bool,
) -> None:
    """``generate chess:MATERIAL -o DIR --engine dask [--symmetry] [--resume]``: every
    material as a tier of a stored graph, generated shard by shard on the workers
    (``chess_tiers``); ``--resume`` continues a generation that stopped after its last
    finished step."""
    _needs(output, "--engine dask", "dask", "dask", "distributed", "pyarrow")
    from verifier.distributed.tiers.chess_tiers import generate_chess
    from verifier.distributed.tiers.driver import prepare_output
    from verifier.games.chess import parse_material

    material = game.split(":", 1)[1]
    try:
        parse_material(material)
    except ValueError as e:
        raise _fail(str(e)) from None
    if not resume:
        _tier_errors(lambda: prepare_output(output))
    else:  # a dataset to continue, before a cluster starts
        from verifier.distributed.tiers.manifest import load_manifest

        _tier_errors(lambda: load_manifest(output))
    err = Console(emoji=False, stderr=True)

    def run() -> Any:
        with _tier_cluster(cluster) as client:
            return generate_chess(
                output,
                material,
                client,
                symmetric=bool(symmetry),
                per_shard=per_shard,
                resume=resume,
                say=lambda s: _err(err, f"progress: {output}: {s}"),
            )

    m = _tier_errors(run)
    shards = sum(len(t.shards) for t in m.tiers)
    units = "classes (positions up to the board's symmetries)" if symmetry else "positions"
    _err(
        err,
        f"wrote {output}: chess {m.parameters['material']}, normal, "
        f"{m.parameters['nodes']:,} {units} and {m.parameters['edges']:,} moves in "
        f"{len(m.tiers)} tiers (materials), {shards} shards",
    )


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


def _needs(path: Path, what: str, extra: str, *modules: str) -> None:
    """Exit 2 with one line naming ``path`` when a module of an optional extra is missing."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise _fail(
                f"{path}: {what} needs the {extra!r} extra, not installed (no module "
                f"{e.name or module!r}): pip install 'gamegraph-verifier[{extra}]' "
                f"(from a checkout: pip install '.[{extra}]')"
            ) from None


def _check_output(path: Path, *, folder: bool = False) -> None:
    """Exit 2 before any work when the output file (or ``folder``) cannot be written."""
    from verifier.io.files import check_folder, check_writable

    try:
        check_folder(path) if folder else check_writable(path)
    except VerifierError as e:
        raise _fail(str(e)) from None


def _refuse_overwrite(path: Path | None, force: bool) -> None:
    """Exit 2 before any work when ``path`` exists and ``--force`` was not given."""
    if path is not None and not force and (path.exists() or path.is_symlink()):
        raise _fail(f"{path}: the file exists: --force replaces it")


def _refuse_dataset_overwrite(output: Path) -> None:
    """Exit 2 when ``output`` holds a tiered dataset (connect4's, chess's), naming ``--resume``
    beside ``--force``: a generation that stopped goes on, a finished one is kept."""
    import json

    if not (output / "manifest.json").is_file():
        return
    try:
        done = bool(json.loads((output / "manifest.json").read_text()).get("generated"))
    except (OSError, ValueError, AttributeError):
        done = False
    if done:
        raise _fail(f"{output}: a tiered dataset exists there: --force replaces it")
    raise _fail(
        f"{output}: a tiered dataset whose generation stopped: --resume continues it, "
        "--force starts again"
    )


def _working(what: str) -> Any:
    """A stage with no steps to count: a spinner saying ``what`` on a terminal, else
    ``progress: WHAT after N s`` lines every ``VERIFIER_PROGRESS_EVERY`` seconds (as
    ``generate`` does)."""
    err = Console(emoji=False, stderr=True)
    return err.status(what) if err.is_terminal else heartbeat(sys.stderr, what)


def _save_answers(solution: Solution | None, case: Case, path: Path | None) -> None:
    """Write the answer file ``path`` (if any) of a solution (exit 2 when there is none)."""
    if path is None:
        return
    from verifier.io.answers import save_answers

    if solution is None:
        raise _fail(f"{path}: no solver answered {case.id!r}: no answer file written")
    try:
        save_answers(solution, case, path)
    except (VerifierError, OSError) as e:
        raise _fail(str(e)) from None


def _write(write: Callable[[Document], None], doc: Document) -> None:
    """Write a document (exit 2 with one line if the writer cannot)."""
    try:
        write(doc)
    except VerifierError as e:
        raise _fail(str(e)) from None


class GenerateEngine(StrEnum):
    memory = "memory"
    dask = "dask"


@app.command("generate", cls=_GenerateCommand)
def generate_cmd(
    game: Annotated[
        str,
        typer.Argument(help="A built-in game (the list: verifier generate --help)."),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Case file to write (.json, .npz, .graphml, .gml); with --engine dask, the "
            "directory of the tiered dataset.",
            rich_help_panel=OUTPUT,
        ),
    ],
    encoding: Annotated[
        str,
        typer.Option(
            help="JSON: auto (compact above 10,000 nodes), readable or compact.",
            rich_help_panel=OUTPUT,
        ),
    ] = "auto",
    symmetry: Annotated[
        bool | None,
        typer.Option(
            "--symmetry/--no-symmetry",
            help="Reduce by the board's symmetries.",
            rich_help_panel=GAMES,
        ),
    ] = None,
    width: Annotated[
        int | None, typer.Option(min=1, help="connect4 board width.", rich_help_panel=GAMES)
    ] = None,
    height: Annotated[
        int | None, typer.Option(min=1, help="connect4 board height.", rich_help_panel=GAMES)
    ] = None,
    size: Annotated[
        int | None,
        typer.Option(min=1, help="kqk / krk board size n (3..8).", rich_help_panel=GAMES),
    ] = None,
    n: Annotated[
        int | None, typer.Option("--n", min=1, help="ladder layers.", rich_help_panel=GAMES)
    ] = None,
    upto: Annotated[
        int | None,
        typer.Option(min=0, help="impartial families: heaps 0..upto.", rich_help_panel=GAMES),
    ] = None,
    piles: Annotated[
        int | None, typer.Option(help="nim: number of heaps.", min=1, rich_help_panel=GAMES)
    ] = None,
    below: Annotated[
        int | None,
        typer.Option(help="nim: each heap holds fewer counters.", min=1, rich_help_panel=GAMES),
    ] = None,
    semantics: Annotated[
        str | None, typer.Option(help="The semantics.", rich_help_panel=RANDOM)
    ] = None,
    nodes: Annotated[
        int | None, typer.Option(min=1, help="Number of nodes.", rich_help_panel=RANDOM)
    ] = None,
    degree: Annotated[
        float | None, typer.Option(min=0, help="Mean out-degree.", rich_help_panel=RANDOM)
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="The graph's seed (the same seed, the same graph).",
            rich_help_panel=RANDOM,
        ),
    ] = None,
    values: Annotated[
        str | None,
        typer.Option(
            "--terminal-values",
            help="Values dead ends draw from, e.g. -1,0,1.",
            rich_help_panel=RANDOM,
        ),
    ] = None,
    terminal_fraction: Annotated[
        float | None,
        typer.Option(min=0, max=1, help="Share of dead ends.", rich_help_panel=RANDOM),
    ] = None,
    acyclic: Annotated[
        bool | None,
        typer.Option("--acyclic/--cyclic", help="A DAG only.", rich_help_panel=RANDOM),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help="Your game class: a keyword argument NAME=VALUE (repeatable); a built-in "
            "game: an option it declares without a flag here.",
            rich_help_panel=GAMES,
        ),
    ] = None,
    max_game_positions: Annotated[
        int | None,
        typer.Option(
            "--max-positions",
            min=1,
            help="Your game class: stop with an error past this many positions "
            "(default 10,000,000).",
            show_default=False,
            rich_help_panel=LIMITS,
        ),
    ] = None,
    engine: Annotated[
        GenerateEngine,
        typer.Option(
            help="memory: a case file, in this process; dask: connect4, chess:MATERIAL, a random "
            "graph or a case file (.npz, .json) as a tiered dataset (a directory of sharded "
            "tiers), generated on a Dask cluster (docs/distributed.md); a random graph is "
            "then drawn shard by shard from other random streams than --engine memory's: "
            "the same options give another graph.",
            rich_help_panel=OUTPUT,
        ),
    ] = GenerateEngine.memory,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Dask scheduler address (--engine dask; default: a LocalCluster).",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(min=1, help="LocalCluster workers (--engine dask).", rich_help_panel=OUTPUT),
    ] = 2,
    worker_memory: Annotated[str | None, _worker_memory_option(OUTPUT)] = None,
    shard_positions: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Positions per shard (--engine dask; default: sized to the workers' memory).",
            show_default=False,
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="--engine dask: continue a generation that stopped, in the same DIR "
            "(connect4 after its last written tier, chess:MATERIAL after its last step).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Write the game graph of a named game as a case file (or a tiered dataset).

    With --engine dask, Connect Four, a chess endgame (chess:MATERIAL, each material a tier),
    a random graph (drawn shard by shard on the workers: not the graph --engine memory draws
    from the same seed) or a case file
    (FILE.npz, FILE.json) is written as a directory of sharded tiers on a Dask cluster
    (docs/distributed.md)."""
    from verifier.games.generators import generate
    from verifier.games.loader import is_game_spec, parse_params

    if resume and engine is not GenerateEngine.dask:
        raise _fail("--resume continues a tiered dataset's generation (--engine dask)")
    graph = game == "random" or Path(game).suffix.lower() in (".npz", ".json")
    if engine is GenerateEngine.dask and not (resume or force or graph):
        _refuse_dataset_overwrite(output)
    if not resume:
        _refuse_overwrite(output, force)
    if engine is GenerateEngine.dask:
        if not output.parent.is_dir():  # the dataset's folder is made, never its parents
            from verifier.io.files import cannot_write

            raise _fail(
                str(cannot_write(output)).replace(
                    "cannot write the file", "cannot write the dataset"
                )
            )
        _check_output(output, folder=True)
        cluster = DaskOptions(scheduler, workers, worker_memory)
        if game.lower().startswith("chess:"):
            _generate_chess_tiers(game, symmetry, output, cluster, shard_positions, resume)
            return
        if graph:
            if resume or symmetry:
                flag = "--resume" if resume else "--symmetry"
                again = "; a graph's generation that stopped is run again with --force"
                raise _fail(
                    f"{flag}: for connect4's and chess's tiered datasets, not a graph's "
                    f"({game}{again if resume else ''})"
                )
            drawn = RandomGraph(semantics, nodes, degree, seed, values, terminal_fraction, acyclic)
            _generate_graph_tiers(game, drawn, output, cluster, shard_positions)
            return
        _generate_tiers(game, width, height, symmetry, output, cluster, shard_positions, resume)
        return
    _check_output(output)
    if is_game_spec(game):
        _generate_game_class(game, param or [], max_game_positions, output, encoding)
        return
    if max_game_positions is not None:
        raise _fail(f"--max-positions is for a game class (FILE.py:Class), not {game!r}")

    vals = None
    if values is not None:
        try:
            vals = tuple(float(v) for v in values.split(","))
        except ValueError:
            raise _fail(
                f"--terminal-values: not a comma-separated list of numbers: {values!r}"
            ) from None
    err = Console(emoji=False, stderr=True)
    counts = Counts()  # the generator's own steps (report), on each line
    status = err.status(f"generating {game}") if err.is_terminal else None

    def step(task: str, done: int, total: int) -> None:
        counts(task, done, total)
        if status is not None:
            status.update(f"generating {game}{counts}")

    working = (
        status if status is not None else heartbeat(sys.stderr, f"generating {game}", counts=counts)
    )
    try:
        flags: dict[str, Any] = {
            "symmetry": symmetry,
            "width": width,
            "height": height,
            "size": size,
            "n": n,
            "upto": upto,
            "piles": piles,
            "below": below,
            "semantics": semantics,
            "nodes": nodes,
            "degree": degree,
            "seed": seed,
            "values": vals,
            "terminal_fraction": terminal_fraction,
            "acyclic": acyclic,
        }
        params = parse_params(param or [])
        twice = sorted(k for k in params if flags.get(k) is not None)
        if twice:
            raise UsageError(f"--param {twice[0]}=... and its own option both given")
        if game.startswith("chess:"):  # the first run compiles for a minute: say so
            from verifier.kernel_cache import say_if_cold

            say_if_cold(sys.stderr, "verifier.games._chess_kernels", "the chess kernels")
        with working, reporting(step):
            case = generate(game, **{**flags, **params})
    except (VerifierError, ValueError) as e:
        raise _fail(str(e)) from None
    _write_generated(case, output, encoding)


def _write_generated(case: Case, output: Path, encoding: str) -> None:
    """Write a generated case (exit 2 with one line if it cannot be) and say what was written."""
    from verifier.io import save_any

    try:
        if encoding not in ("auto", "readable", "compact"):
            raise UsageError(f"--encoding must be auto, readable or compact, not {encoding!r}")
        written = save_any(case, output, encoding)  # type: ignore[arg-type]
    except (VerifierError, ValueError) as e:
        raise _fail(str(e)) from None
    _err(
        Console(emoji=False, stderr=True),
        f"wrote {written}: {case.id}, {case.semantics.value}, {case.graph.n} nodes, "
        f"{case.graph.m} moves",
    )


def _generate_game_class(
    spec: str, params: list[str], max_positions: int | None, output: Path, encoding: str
) -> None:
    """``generate FILE.py:Class`` (or ``openspiel:NAME``): explore the game, write its case."""
    from verifier.games.loader import load_game, parse_params
    from verifier.games.protocol import DEFAULT_MAX_POSITIONS, explore
    from verifier.progress import progress_every

    started = time.monotonic()
    last = [started]
    every = progress_every()

    def progress(positions: int, frontier: int) -> None:
        now = time.monotonic()
        if now - last[0] < every or frontier == 0:
            return
        last[0] = now
        rate = positions / max(now - started, 1e-9)
        sys.stderr.write(
            f"progress: generating {spec}: {positions:,} positions, frontier {frontier:,}, "
            f"{rate:,.0f}/s after {now - started:.0f} s\n"
        )
        sys.stderr.flush()

    try:
        kwargs = parse_params(params)
        game = load_game(spec, kwargs)
        title = spec.rpartition(":")[2]
        shown = " ".join(f"{k}={v}" for k, v in kwargs.items())
        case = explore(
            game,
            max_positions or DEFAULT_MAX_POSITIONS,
            progress,
            name=spec,
            case_id="-".join([title, *(f"{k}{v}" for k, v in kwargs.items())]),
            source=f"{spec} {shown}".strip(),
        )
    except (VerifierError, ValueError) as e:
        raise _fail(str(e)) from None
    _write_generated(case, output, encoding)


@app.command("render", cls=_Command)
def render_cmd(
    path: Annotated[Path, typer.Argument(help="Case file.")],
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


@app.command(
    "query",
    cls=_Command,
    short_help="Everything known of some positions: value, remoteness, moves, line of play, "
    "interval, checks.",
)
def query_cmd(
    path: Annotated[
        Path, typer.Argument(help="Case file, or a tiered dataset's directory (solved).")
    ],
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
        from verifier.distributed.tiers.answers import query_report

        got, asked = _tier_errors(lambda: query_report(path, positions or ()))
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


@app.command(
    "uniqueness",
    cls=_Command,
    short_help="All solutions of the case's equations: how many, which positions change, "
    "their ranges.",
)
def uniqueness_cmd(
    path: Annotated[Path, typer.Argument(help="Case file.")],
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
    budget: BudgetOpt = None,
    rlimit: RlimitOpt = 800_000_000,
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    max_positions: MaxPositionsOpt = None,
) -> None:
    """The structure of all solutions of the case's equations: how many there are (exact, or
    bounds, and how), which positions may change, each position's range, the free components
    and how they depend on each other, and where Kars' score sits (docs/uniqueness.md)."""
    from verifier.deadline import TimeUp, stop_after
    from verifier.pipeline import z3_timeout
    from verifier.research.uniqueness import solution_set
    from verifier.writers.uniqueness import uniqueness_document

    case = _load_or_exit(path, max_positions, "verify")
    t0 = time.perf_counter()
    try:
        with stop_after(budget), z3_timeout(budget):
            s = solution_set(
                case,
                Options(rlimit=rlimit),
                max_count=max_count,
                max_enumerated=max_enumerated,
                certify=certify,
            )
    except TimeUp:
        _err(
            Console(emoji=False, stderr=True),
            f"{path}: stopped after {time.perf_counter() - t0:.1f} s: the budget of "
            f"{budget:g} s was spent (--budget lifts it)",
        )
        raise typer.Exit(EXIT_INCONCLUSIVE) from None
    _write(make_writer(pick_format(fmt, as_json)).write_document, uniqueness_document(s))


study_app = typer.Typer(
    name="study",
    cls=_Group,
    context_settings=HELP_OPTIONS,
    help="Research sweeps over families of games (CSV and figures).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(study_app, name="study")


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
    bar = _case_bar(err) if err.is_terminal else None
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


@app.command("grundy", cls=_Command)
def grundy_cmd(
    game: Annotated[
        str, typer.Argument(help="nim, subtraction:1,2,3, octal:.07 (or .07), grundy.")
    ],
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
    with bar if err.is_terminal else nullcontext():
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


@app.command("check-certificate", cls=_Command)
def check_certificate_cmd(
    case: Annotated[Path, typer.Argument(help="The case file the certificate is for.")],
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

    for given in (case, certificate, answers):
        if given is not None and not given.is_file():
            why = (
                "cannot read the file: a folder" if given.is_dir() else "no such file or directory"
            )
            raise _fail(f"{given}: $: {why}")
    out = stages.watched(run_checker, case, certificate, answers)  # a line per stage, terminal
    if out.status == "BAD":
        raise _fail(out.message)
    typer.echo(out.message if out.status == "ACCEPTED" else f"REJECTED: {out.message}")
    raise typer.Exit(EXIT_OK if out.status == "ACCEPTED" else EXIT_REFUTED)


@app.command("prove", cls=_Command)
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


@app.command("schema", cls=_Command)
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


@app.command("diff", cls=_Command)
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


if __name__ == "__main__":
    main()
