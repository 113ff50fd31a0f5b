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

from verifier.errors import UsageError, VerifierError
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
    compiled = "compiled"


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

    out = Console(soft_wrap=False, width=None if sys.stdout.isatty() else 140)
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
    Engine,
    typer.Option(
        help="auto: the numpy engine and the compiled (numba) kernels always, the pure-Python "
        "reference solvers too up to 50,000 nodes (the linear-time ones up to 200,000), all "
        "compared node by node. compiled: the compiled kernels instead of the numpy engine "
        "(which still runs where numba is not installed)."
    ),
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


def _fail(msg: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    _err(Console(stderr=True), msg)
    return typer.Exit(code)


def _load_or_exit(path: Path) -> Case:
    try:
        return load(path)
    except VerifierError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"{path}: $: cannot read the file: {e.strerror or e}") from None


class SolveEngine(StrEnum):
    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"
    dask = "dask"


@app.command("solve")
def solve_cmd(
    path: Annotated[Path, typer.Argument(help="Case file (.json, .npz, .graphml, .gml).")],
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
    workers: Annotated[int, typer.Option(help="LocalCluster workers (--engine dask).")] = 2,
    partitions: Annotated[
        int | None, typer.Option(help="Node ranges (--engine dask; default: one per worker).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="--engine dask: write Parquet results here.")
    ] = None,
) -> None:
    """Solve a case with every applicable solver (no Z3): values, remoteness, moves, agreement."""
    from verifier.report import print_report, report_to_dict

    case = _load_or_exit(path)
    if engine is SolveEngine.dask:
        try:
            from verifier.distributed.api import solve_distributed
        except ImportError as e:
            raise _fail(f"--engine dask needs the extra: pip install '.[dask]' ({e})") from None
        try:
            res = solve_distributed(
                case, scheduler=scheduler, out=out, workers=workers, partitions=partitions
            )
        except VerifierError as e:
            raise _fail(str(e)) from None
        doc = {
            "case": case.id,
            "semantics": case.semantics.value,
            "nodes": case.graph.n,
            "edges": case.graph.m,
            "engine": "dask",
            "supersteps": res.supersteps,
            "messages": res.messages,
            "seconds": round(res.seconds, 6),
            "summary": dict(res.summary),
            "out": str(res.out) if res.out else None,
        }
        if as_json:
            from verifier.report import jsonable

            sys.stdout.write(json.dumps(jsonable(doc), indent=1) + "\n")
        else:
            Console().print(doc)
        raise typer.Exit(EXIT_OK)
    rep = run_case(case, Options(engine=engine.value), smt=False)
    if as_json:
        sys.stdout.write(json.dumps(report_to_dict(rep, values=values), indent=1) + "\n")
    else:
        print_report(rep, Console())
    raise typer.Exit(exit_code([rep], 0))


@app.command("generate")
def generate_cmd(
    game: Annotated[
        str,
        typer.Argument(
            help="tictactoe, lgame, connect4, kqk, krk, ladder, "
            "random, nim, subtraction:S, octal:CODE, grundy."
        ),
    ],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Case file to write (.json, .npz, .graphml, .gml)."),
    ],
    encoding: Annotated[
        str,
        typer.Option(help="JSON encoding: auto (compact above 10,000 nodes), readable, compact."),
    ] = "auto",
    symmetry: Annotated[
        bool | None,
        typer.Option("--symmetry/--no-symmetry", help="Reduce by the board's symmetries."),
    ] = None,
    width: Annotated[int | None, typer.Option(help="connect4 board width.")] = None,
    height: Annotated[int | None, typer.Option(help="connect4 board height.")] = None,
    size: Annotated[int | None, typer.Option(help="kqk / krk board size n (3..8).")] = None,
    n: Annotated[int | None, typer.Option("--n", help="ladder layers.")] = None,
    upto: Annotated[int | None, typer.Option(help="impartial families: heaps 0..upto.")] = None,
    semantics: Annotated[str | None, typer.Option(help="random: the semantics.")] = None,
    nodes: Annotated[int | None, typer.Option(help="random: number of nodes.")] = None,
    degree: Annotated[float | None, typer.Option(help="random: mean out-degree.")] = None,
    seed: Annotated[int | None, typer.Option(help="random: seed.")] = None,
    values: Annotated[
        str | None, typer.Option(help="random: terminal values, e.g. -1,0,1.")
    ] = None,
    terminal_fraction: Annotated[
        float | None, typer.Option(help="random: share of dead ends.")
    ] = None,
    acyclic: Annotated[
        bool | None, typer.Option("--acyclic/--cyclic", help="random: DAG only.")
    ] = None,
) -> None:
    """Write the game graph of a named game as a case file."""
    from verifier.games.generators import generate
    from verifier.io import save_any

    vals = None
    if values is not None:
        try:
            vals = tuple(float(v) for v in values.split(","))
        except ValueError:
            raise _fail(f"--values: not a comma-separated list of numbers: {values!r}") from None
    try:
        case = generate(
            game,
            symmetry=symmetry,
            width=width,
            height=height,
            size=size,
            n=n,
            upto=upto,
            semantics=semantics,
            nodes=nodes,
            degree=degree,
            seed=seed,
            values=vals,
            terminal_fraction=terminal_fraction,
            acyclic=acyclic,
        )
        if encoding not in ("auto", "readable", "compact"):
            raise UsageError(f"--encoding must be auto, readable or compact, not {encoding!r}")
        written = save_any(case, output, encoding)  # type: ignore[arg-type]
    except (VerifierError, ValueError) as e:
        raise _fail(str(e)) from None
    Console(stderr=True).print(
        f"wrote {written}: {case.id}, {case.semantics.value}, {case.graph.n} nodes, "
        f"{case.graph.m} moves",
        markup=False,
        highlight=False,
    )


@app.command("render")
def render_cmd(
    path: Annotated[Path, typer.Argument(help="Case file.")],
    output: Annotated[Path, typer.Option("--output", "-o", help=".dot or .svg file to write.")],
    smt: Annotated[
        bool,
        typer.Option(
            "--smt/--no-smt", help="Run the Z3 checks to show verdicts and the uniqueness witness."
        ),
    ] = True,
) -> None:
    """Draw a small case: each node's value, owner and verdict, the uniqueness witness."""
    from verifier.render import render

    case = _load_or_exit(path)
    if case.graph.n > 2000:
        raise _fail(f"{path}: $: {case.graph.n} nodes are too many to draw (at most 2000)")
    rep = run_case(case, Options(), smt=smt)
    try:
        written = render(case, rep, output)
    except VerifierError as e:
        raise _fail(str(e)) from None
    Console(stderr=True).print(f"wrote {written}", markup=False, highlight=False)


@app.command("grundy")
def grundy_cmd(
    game: Annotated[
        str, typer.Argument(help="nim, subtraction:1,2,3, octal:.07 (or .07), grundy.")
    ],
    upto: Annotated[int, typer.Option(help="Compute heaps 0..upto.")] = 100,
    as_json: JsonOpt = False,
) -> None:
    """Print the Grundy value sequence of a game family and its (pre-period, period)."""
    from verifier.games.catalog import analyse_sequence

    try:
        rep = analyse_sequence(game, upto)
    except ValueError as e:
        raise _fail(f"{game}: {e}") from None
    per = rep.periodicity
    doc = {
        "game": rep.game,
        "upto": upto,
        "values": list(rep.values),
        "preperiod": per.preperiod if per else None,
        "period": per.period if per else None,
        "certified": per.certified if per else False,
        "reason": per.reason if per else "no period found in the computed values",
    }
    if as_json:
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    con = Console()
    con.print(f"{rep.game}: g(0..{upto}) =", markup=False)
    con.print(" ".join(map(str, rep.values)), markup=False)
    if per:
        state = "proved by the periodicity theorem" if per.certified else "observed only"
        con.print(
            f"pre-period {per.preperiod}, period {per.period} ({state}: {per.reason})", markup=False
        )
    else:
        con.print(doc["reason"], markup=False)


class Theorem(StrEnum):
    bouton = "bouton"
    xor_rule = "xor-rule"


@app.command("prove")
def prove_cmd(
    theorem: Annotated[Theorem, typer.Argument(help="bouton (nim) or xor-rule (sums).")],
    piles: Annotated[int, typer.Option(help="bouton: number of piles.")] = 3,
    bits: Annotated[int, typer.Option(help="Bits per pile / per Grundy value.")] = 8,
    rlimit: RlimitOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """Ask Z3 to prove a theorem symbolically (the negation must be unsat).

    Exit code 0 proved, 1 refuted (with a counterexample), 3 unknown.
    """
    from verifier.model import Verdict
    from verifier.smt.theorems import prove_bouton, prove_xor_rule

    if piles < 1 or bits < 1:
        raise _fail("--piles and --bits must be at least 1")
    opts = Options(rlimit=rlimit)
    res = (
        prove_bouton(piles, bits, opts) if theorem is Theorem.bouton else prove_xor_rule(bits, opts)
    )
    if as_json:
        from verifier.report import jsonable

        doc = {
            "theorem": res.theorem,
            "statement": res.statement,
            "verdict": res.verdict.value,
            "seconds": round(res.seconds, 6),
            "params": dict(res.params),
            "parts": [
                {
                    "claim": p.claim,
                    "status": p.status,
                    "seconds": round(p.seconds, 6),
                    "counterexample": p.counterexample,
                    "reason": p.reason,
                }
                for p in res.parts
            ],
        }
        sys.stdout.write(json.dumps(jsonable(doc)) + "\n")
    else:
        con = Console()
        con.print(f"{res.theorem}: {res.statement}", markup=False)
        for p in res.parts:
            con.print(f"  {p.claim}: {p.status} ({p.seconds:.2f} s) {p.reason}", markup=False)
        con.print(f"{res.verdict.value} in {res.seconds:.2f} s", markup=False)
    raise typer.Exit(
        {Verdict.CONFIRMED: EXIT_OK, Verdict.REFUTED: EXIT_REFUTED}.get(
            res.verdict, EXIT_INCONCLUSIVE
        )
    )


@app.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of case files (docs/case.schema.json is this output)."""
    from verifier.io.schema import schema_text

    sys.stdout.write(schema_text())


def main() -> None:
    """Entry point of ``verifier``."""
    app()


def verify_main() -> None:
    """Entry point of ``verify`` (the same as ``verifier verify``)."""
    verify_app()


if __name__ == "__main__":
    main()
