"""Command-line interface (Typer): ``verify CASE|DIR`` and ``verifier <command>``.

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive.
"""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from verifier.errors import VerifierError
from verifier.model import Case
from verifier.pipeline import CaseReport, CaseVerdict, run_case
from verifier.registry import Options

__all__ = ["EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "EXIT_OK", "EXIT_REFUTED", "app", "main"]

EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3

CASE_SUFFIXES = (".json", ".npz", ".graphml", ".gml")

app = typer.Typer(
    name="verifier",
    help="Solve finite two-player game graphs several ways and prove the answers with Z3.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group() -> None:
    """Solve finite two-player game graphs several ways and prove the answers with Z3."""


class Engine(StrEnum):
    auto = "auto"
    reference = "reference"
    numpy = "numpy"


def _err(console: Console, msg: str) -> None:
    console.print(msg, markup=False, highlight=False, soft_wrap=True)


def load(path: Path) -> Case:
    """Read a case file of any supported kind (one-line ``CaseError`` on bad input)."""
    from verifier.io import load_any

    return load_any(path)


def collect(paths: list[Path]) -> list[Path]:
    """Case files named on the command line; folders are searched recursively."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(
                sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in CASE_SUFFIXES)
            )
        else:
            files.append(p)
    return files


def exit_code(reports: list[CaseReport], bad_inputs: int) -> int:
    if bad_inputs:
        return EXIT_BAD_INPUT
    if any(r.verdict is CaseVerdict.REFUTED for r in reports):
        return EXIT_REFUTED
    if any(r.verdict is CaseVerdict.INCONCLUSIVE for r in reports):
        return EXIT_INCONCLUSIVE
    return EXIT_OK


def _progress_options(options: Options, progress: Progress | None) -> Options:
    if progress is None:
        return options
    tasks: dict[str, TaskID] = {}

    def report(task: str, done: int, total: int) -> None:
        if task not in tasks:
            tasks[task] = progress.add_task(task, total=total)
        progress.update(tasks[task], completed=done, total=total)

    return Options(
        engine=options.engine,
        rlimit=options.rlimit,
        seed=options.seed,
        exponential_limit=options.exponential_limit,
        progress=report,
    )


def run_verify(
    paths: list[Path],
    *,
    as_json: bool,
    values: bool,
    engine: Engine,
    rlimit: int,
    seed: int,
    verbose: bool,
) -> int:
    from verifier.report import print_report, print_totals, report_to_dict

    out = Console(soft_wrap=False)
    err = Console(stderr=True)
    options = Options(engine=engine.value, rlimit=rlimit, seed=seed)
    files = collect(paths)
    if not files:
        _err(err, f"{' '.join(map(str, paths))}: $: no case files found")
        return EXIT_BAD_INPUT
    reports: list[CaseReport] = []
    dicts: list[dict[str, Any]] = []
    errors: list[str] = []
    show_bar = not as_json and sys.stderr.isatty()
    for f in files:
        try:
            case = load(f)
        except VerifierError as e:
            errors.append(str(e))
            _err(err, str(e))
            continue
        except OSError as e:
            msg = f"{f}: $: cannot read the file: {e.strerror or e}"
            errors.append(msg)
            _err(err, msg)
            continue
        progress = (
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            )
            if show_bar
            else None
        )
        with progress if progress is not None else nullcontext():
            rep = run_case(case, _progress_options(options, progress))
        reports.append(rep)
        if as_json:
            dicts.append(report_to_dict(rep, values=values))
        else:
            print_report(rep, out, verbose=verbose)
    code = exit_code(reports, len(errors))
    if as_json:
        if len(files) == 1 and len(dicts) == 1:
            doc: Any = dicts[0]
        else:
            worst = {
                EXIT_OK: "verified",
                EXIT_REFUTED: "refuted",
                EXIT_INCONCLUSIVE: "inconclusive",
                EXIT_BAD_INPUT: "bad-input",
            }[code]
            doc = {"verdict": worst, "cases": dicts, "errors": errors}
        sys.stdout.write(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    elif len(files) > 1:
        print_totals(reports, len(errors), out)
    return code


PathsArg = Annotated[
    list[Path], typer.Argument(help="Case files (.json, .npz, .graphml, .gml) or folders of them.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the machine report (JSON) only.")]
ValuesOpt = Annotated[
    bool, typer.Option("--values/--no-values", help="Include per-node values in --json.")
]
EngineOpt = Annotated[
    Engine, typer.Option(help="auto: numpy engine for large graphs, both below 200k nodes.")
]
RlimitOpt = Annotated[int, typer.Option(help="Z3 resource limit per query (deterministic).")]
SeedOpt = Annotated[int, typer.Option(help="Z3 random seed.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Also list skipped solvers.")]


@app.command("verify")
def verify_cmd(
    paths: PathsArg,
    as_json: JsonOpt = False,
    values: ValuesOpt = True,
    engine: EngineOpt = Engine.auto,
    rlimit: RlimitOpt = 50_000_000,
    seed: SeedOpt = 0,
    verbose: VerboseOpt = False,
) -> None:
    """Solve each case with every applicable solver, cross-check with Z3, compare with expect.

    Exit code: 0 verified, 1 refuted, 2 bad input, 3 inconclusive.
    """
    raise typer.Exit(
        run_verify(
            paths,
            as_json=as_json,
            values=values,
            engine=engine,
            rlimit=rlimit,
            seed=seed,
            verbose=verbose,
        )
    )


verify_app = typer.Typer(
    add_completion=False, pretty_exceptions_enable=False, help=verify_cmd.__doc__
)
verify_app.command()(verify_cmd)


def main() -> None:
    """Entry point of ``verifier``."""
    app()


def verify_main() -> None:
    """Entry point of ``verify`` (the same as ``verifier verify``)."""
    verify_app()


if __name__ == "__main__":
    main()
