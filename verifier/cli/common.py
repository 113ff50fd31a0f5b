"""What the commands share: exit codes, one-line errors, reading cases, progress on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console

from verifier.errors import CaseError, VerifierError
from verifier.io.answers import Answers
from verifier.io.limits import Command, Limits
from verifier.model import Case
from verifier.model.report import CaseReport
from verifier.model.semantics import Semantics
from verifier.model.solution import Solution
from verifier.progress import Counts, Notice, Violation, heartbeat, progress_wanted, reporting
from verifier.registry import ProgressFn
from verifier.writers import Document, Format, overall_verdict

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


T = TypeVar("T")

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as shells report it): one line on stderr, nothing half-written."""

CASE_SUFFIXES = (".json", ".npz", ".graphml", ".gml")
"""The case files ``verify`` reads (``verifier.io.discover`` tells which are cases)."""


def _err(console: Console, msg: str) -> None:
    """Print one line as it is: no markup, no highlighting, never wrapped (a path stays whole
    when piped)."""
    console.print(msg, markup=False, highlight=False, soft_wrap=True)


def load(
    path: Path,
    max_positions: int | None = None,
    *,
    command: Command = "verify",
    semantics: Semantics | None = None,
) -> Case:
    """Read a case file of any supported kind (one-line ``CaseError`` on bad input, or on a
    case of more than ``max_positions`` nodes + moves; default: sized to the machine and to
    what ``command`` costs a position, ``verifier.io.limits.COMMAND_BYTES_PER_POSITION``).
    ``semantics``: of Parquet tables that do not store theirs."""
    from verifier.io import load_any

    counts = Counts()  # a long read says what it does (the chess kernels compiling: once)
    with heartbeat(sys.stderr, f"reading {path}", counts=counts), reporting(counts):
        return load_any(path, limits=_limits(max_positions, command), semantics=semantics)


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


def _load_or_exit(
    path: Path, max_positions: int | None, command: Command, semantics: Semantics | None = None
) -> Case:
    """Read a case for ``command`` (its default ``--max-positions``), or exit 2 with one line
    (for a tiered dataset, how to get at it: ``case_file_route``)."""
    if path.is_dir() and (path / "manifest.json").is_file():
        from verifier.distributed.tiers.commands import case_file_route

        raise _fail(case_file_route(path))
    if not path.exists():  # as verify words it, whatever the file type
        raise _fail(f"{path}: $: no such file or directory")
    try:
        return load(path, max_positions, command=command, semantics=semantics)
    except VerifierError as e:
        from verifier.distributed.tiers.commands import tiered_route

        raise _fail(str(e) + tiered_route(path, str(e))) from None
    except OSError as e:
        raise _fail(f"{path}: $: cannot read the file: {e.strerror or e}") from None


def _needs(path: Path, what: str, extra: str, *modules: str) -> None:
    """Exit 2 with one line naming ``path`` when a module of an optional extra is missing."""
    from verifier.extras import require_extra

    try:
        require_extra(path, what, extra, *modules)
    except VerifierError as e:
        raise _fail(str(e)) from None


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


def _working(what: str) -> Any:
    """A stage with no steps to count: a spinner saying ``what`` on a terminal, else
    ``progress: WHAT after N s`` lines every ``VERIFIER_PROGRESS_EVERY`` seconds (as
    ``generate`` does)."""
    err = Console(emoji=False, stderr=True)
    if not progress_wanted():
        return nullcontext()
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


def _tier_errors(run: Callable[[], T]) -> T:
    """``run()``, its dataset errors exit 2 and its cluster failures exit 3, one line each."""
    from verifier.dataset.errors import RunFailed

    try:
        return run()
    except RunFailed as e:
        raise _fail(str(e), EXIT_INCONCLUSIVE) from None
    except VerifierError as e:
        raise _fail(str(e)) from None


def _said(path: Path) -> Callable[[str], None]:
    """A tiered run's ``say``: each stage a ``progress: PATH: ...`` line on stderr."""
    err = Console(emoji=False, stderr=True)

    def say(line: str) -> None:
        if progress_wanted() or isinstance(line, Notice):
            kind = "violation" if isinstance(line, Violation) else "progress"
            _err(err, f"{kind}: {path}: {line}")

    return say
