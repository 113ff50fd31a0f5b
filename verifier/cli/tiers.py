"""The tiered (Dask) route of ``solve``, ``verify`` and ``generate`` on a dataset DIR."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import typer
from rich.console import Console

from verifier.errors import VerifierError
from verifier.writers import Format

if TYPE_CHECKING:
    pass

from verifier.cli.common import (
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_REFUTED,
    T,
    _err,
    _fail,
    _needs,
    load,
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


def _solve_tiers(path: Path, fmt: Format, cluster: DaskOptions, resume: bool | None) -> None:
    """``solve DIR --engine dask`` on a tiered dataset: solve it on the cluster, print the
    start position's value and the counts per tier, exit 0. ``resume`` ``None``: resume where
    a solve stopped part way (some tiers solved, not all), else solve every tier."""
    import json

    from verifier.distributed.tiers.driver import load_manifest, solve_dataset
    from verifier.distributed.tiers.report import solve_json, solve_text

    err = Console(emoji=False, stderr=True)
    m = _tier_errors(lambda: load_manifest(path))  # bad input before a cluster starts
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
    from verifier.distributed.tiers.check import table_files
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
    if answers is not None and is_dataset(answers):  # the same game, solved elsewhere
        _tier_errors(lambda: load_manifest(answers))
    elif answers is not None:
        _tier_errors(lambda: table_files(answers))
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
    if fmt is Format.json:
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
