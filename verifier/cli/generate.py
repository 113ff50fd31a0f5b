"""``verifier generate``: write a named game's graph as a case file or a tiered dataset."""

from __future__ import annotations

import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from verifier.cli.common import _check_output, _err, _fail, _refuse_overwrite, _said, _tier_errors
from verifier.cli.options import (
    GAMES,
    LIMITS,
    OUTPUT,
    RANDOM,
    ForceOpt,
    _scheduler_option,
    _worker_memory_option,
    _workers_option,
)
from verifier.errors import UsageError, VerifierError
from verifier.model import Case
from verifier.progress import Counts, heartbeat, progress_wanted, reporting


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


def _graph_dataset(game: str) -> bool:
    """Whether ``generate GAME --engine dask`` writes a graph's dataset, whose generation does
    not resume (a case file's graph, or a game's tiered form without ``resume``)."""
    from verifier.games.registry import tiered

    if Path(game).suffix.lower() in (".npz", ".json"):
        return True
    found = tiered(game)
    return found is not None and found[1].resume is None


def _kernels(game: str) -> tuple[str, str] | None:
    """The compiled kernels the built-in game ``game`` names runs (``BuiltinGame.kernels``)."""
    from verifier.games.registry import builtin_games

    for g in builtin_games():
        named = game.startswith(f"{g.name}:") if g.argument else game == g.name
        if g.kernels is not None and named:
            return g.kernels
    return None


class GenerateEngine(StrEnum):
    memory = "memory"
    dask = "dask"


# the help of the games' own options (--width, --n, ...) is their declarations' (games/registry),
# and {tiered} and {resumable} in --engine's and --resume's name the games with a tiered form:
# read when the help is shown (help._GenerateCommand)


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
    width: Annotated[int | None, typer.Option(min=1, rich_help_panel=GAMES)] = None,
    height: Annotated[int | None, typer.Option(min=1, rich_help_panel=GAMES)] = None,
    size: Annotated[int | None, typer.Option(min=1, rich_help_panel=GAMES)] = None,
    n: Annotated[int | None, typer.Option("--n", min=1, rich_help_panel=GAMES)] = None,
    upto: Annotated[
        int | None,
        typer.Option(min=0, help="impartial families: heaps 0..upto.", rich_help_panel=GAMES),
    ] = None,
    piles: Annotated[int | None, typer.Option(min=1, rich_help_panel=GAMES)] = None,
    below: Annotated[int | None, typer.Option(min=1, rich_help_panel=GAMES)] = None,
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
            help="memory: a case file, in this process; dask: {tiered}, a random "
            "graph or a case file (.npz, .json) as a tiered dataset (a directory of sharded "
            "tiers), generated on a Dask cluster (docs/distributed.md); a random graph is "
            "then drawn shard by shard from other random streams than --engine memory's: "
            "the same options give another graph.",
            rich_help_panel=OUTPUT,
        ),
    ] = GenerateEngine.memory,
    scheduler: Annotated[str | None, _scheduler_option(OUTPUT)] = None,
    workers: Annotated[int, _workers_option(OUTPUT)] = 2,
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
            "({resumable}).",
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
    graph = engine is GenerateEngine.dask and _graph_dataset(game)
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
        from verifier.distributed.tiers.commands import (
            DaskOptions,
            RandomGraph,
            Target,
            generate_tiers,
        )

        cluster = DaskOptions(scheduler, workers, worker_memory)
        to = Target(output, cluster, shard_positions, resume, _said(output))
        drawn = RandomGraph(semantics, nodes, degree, seed, values, terminal_fraction, acyclic)
        wrote = _tier_errors(
            lambda: generate_tiers(
                game, to, width=width, height=height, symmetry=symmetry, drawn=drawn
            )
        )
        _err(Console(emoji=False, stderr=True), wrote)
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
    status = err.status(f"generating {game}") if err.is_terminal and progress_wanted() else None

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
        kernels = _kernels(game)
        if kernels is not None:  # the first run compiles for a minute (chess): say so
            from verifier.kernel_cache import say_if_cold

            say_if_cold(sys.stderr, *kernels)
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
