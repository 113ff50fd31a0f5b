"""The options several commands declare, each declared once (Typer ``Annotated`` types)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from verifier.cli.common import EXIT_OK
from verifier.model.semantics import Semantics
from verifier.writers import Format

INPUT, OUTPUT, CHECKS, LIMITS = "Input", "Output", "Checks", "Limits"
GAMES, RANDOM = "Games", "Random graphs (generate random)"
"""The help's panels of options (Typer's ``rich_help_panel``), as ``pytest -h`` groups them."""


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


class Engine(StrEnum):
    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"


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
TablesSemanticsOpt = Annotated[
    Semantics | None,
    typer.Option(
        "--semantics",
        help="The semantics of Parquet graph tables whose nodes table does not store it.",
        show_default=False,
        rich_help_panel=INPUT,
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


OldOutOpt = Annotated[Path | None, typer.Option("--out", hidden=True)]
"""``--out``: the old spelling of ``--output`` (hidden; kept for one release)."""


CaseArg = Annotated[Path, typer.Argument(help="Case file.")]
CaseOrDatasetArg = Annotated[
    Path, typer.Argument(help="Case file, or a tiered dataset's directory (solved).")
]


class VerifyEngine(StrEnum):
    """``verify --engine`` and ``solve --engine``: the in-memory engines, or ``dask`` (a
    tiered dataset; solve: also a case file, stored as a dataset of one tier)."""

    auto = "auto"
    reference = "reference"
    numpy = "numpy"
    compiled = "compiled"
    dask = "dask"


SolveEngine = VerifyEngine
"""``solve --engine``: the same choices as ``verify``'s."""


def _scheduler_option(panel: str | None, *, engine: str = "--engine dask; ") -> Any:
    """``--scheduler``, in the help's panel of the command's other Dask options (``engine``:
    the words that name the route it is for, none where the option's panel says it)."""
    return typer.Option(
        help=f"Dask scheduler address ({engine}default: a LocalCluster).", rich_help_panel=panel
    )


def _workers_option(panel: str | None) -> Any:
    """``--workers``, in the help's panel of the command's other Dask options."""
    return typer.Option(min=1, help="LocalCluster workers (--engine dask).", rich_help_panel=panel)


def _worker_memory_option(panel: str | None) -> Any:
    """``--worker-memory``, in the help's panel of the command's other Dask options."""
    return typer.Option(
        "--worker-memory",
        help="Each LocalCluster worker's memory limit, e.g. 1.5GB (--engine dask; default: "
        "Dask's share of the machine).",
        rich_help_panel=panel,
    )


# verify's own options, declared here to keep verify.py short
JunitOpt = Annotated[
    Path | None,
    typer.Option(
        "--junit",
        help="Also write JUnit XML: a testcase per case (a tiered dataset: one, its checks "
        "as properties), refuted = failure, inconclusive or bad input = error.",
        rich_help_panel=OUTPUT,
    ),
]
LinearOpt = Annotated[
    bool,
    typer.Option(
        "--linear",
        help="With --answers: the linear checks alone (local rules, agreement with a "
        "compiled solver, remoteness, moves), no Z3: 10^7 positions in seconds.",
        rich_help_panel=CHECKS,
    ),
]
VerifyCertificateOpt = Annotated[
    Path | None,
    typer.Option(
        "--certificate",
        help="Write the certificate of the answer (docs/certificates.md): FILE.json or "
        "FILE.npz for one case, a folder for several (NAME.cert.json each).",
        rich_help_panel=OUTPUT,
    ),
]
CheckResumeOpt = Annotated[
    bool | None,
    typer.Option(
        "--resume/--restart",
        help="A tiered dataset (--engine dask): reuse the records of a check of the same "
        "dataset and answers that stopped (killed, a lost worker), or check every shard "
        "again. Default: reuse them, saying so.",
        show_default=False,
        rich_help_panel=CHECKS,
    ),
]
