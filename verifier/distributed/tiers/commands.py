"""The tiered route of ``solve``, ``verify`` and ``generate`` on a dataset DIR, as functions.

Each takes typed arguments, says its stages through ``say`` (one line each, without the
``progress: DIR:`` the command line puts before them) and returns what it found or wrote; bad
input raises a ``VerifierError`` (exit 2 at the command line) before a cluster starts, a
cluster that fails raises ``RunFailed`` (exit 3). The Dask modules are imported inside the
functions: this module imports without Dask (the command line checks the extra first).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from verifier.dataset.certificate import SelfCheck, self_checked
from verifier.dataset.errors import ClusterFailed
from verifier.errors import UsageError
from verifier.extras import require_extra
from verifier.progress import Notice

if TYPE_CHECKING:
    from verifier.dataset.graphs import GraphTiers
    from verifier.distributed.tiers.check import TierCheck
    from verifier.distributed.tiers.driver import TierSolve
    from verifier.games.registry import TieredForm
    from verifier.writers.base import Records

__all__ = [
    "CheckedDataset",
    "DaskOptions",
    "GameOptions",
    "RandomGraph",
    "SolvedDataset",
    "Target",
    "case_file_route",
    "generate_graph_tiers",
    "generate_tiers",
    "on_workers",
    "query_dataset",
    "random_graph_tiers",
    "solve_tiers",
    "tier_cluster",
    "tiered_route",
    "tiered_sources",
    "verify_tiers",
]

Say = Callable[[str], None]

DASK = ("dask", "dask", "distributed", "pyarrow")
"""The extra a tiered run needs and its modules (``require_extra``)."""


class DaskOptions(NamedTuple):
    """Where a tiered run runs: a scheduler's address, or a LocalCluster of ``workers``
    one-thread workers each limited to ``worker_memory``."""

    scheduler: str | None
    workers: int
    worker_memory: str | None


class RandomGraph(NamedTuple):
    """``generate random``'s options as given (``None``: not given)."""

    semantics: str | None
    nodes: int | None
    degree: float | None
    seed: int | None
    values: str | None
    terminal_fraction: float | None
    acyclic: bool | None


class GameOptions(NamedTuple):
    """``generate``'s options a tiered generator reads (``None``: not given)."""

    width: int | None
    height: int | None
    symmetry: bool | None
    drawn: RandomGraph


def _form(game: str) -> TieredForm | None:
    """The tiered form of the built-in game a manifest names (``None``: no game's own)."""
    from verifier.games.registry import tiered_form

    return tiered_form(game)


def on_workers(path: Path) -> Path:
    """``path`` as the workers must read it: absolute, from the driver's working directory. A
    relative DIR sent as is was read from each worker's own directory, which a cluster given by
    ``--scheduler`` need not share (``generate ... -o ds`` then failed with
    ``ds/tier=0/shard=0.parquet: missing``)."""
    import os

    return Path(os.path.abspath(path))


@contextmanager
def tier_cluster(opts: DaskOptions) -> Iterator[Any]:
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
            raise UsageError(
                f"--worker-memory {opts.worker_memory!r}: not a size (e.g. 1.5GB)"
            ) from None
    # every Dask logger with a level of its own: Dask's configuration gives
    # ``distributed.client`` WARNING and a handler, so a worker killed after finishing a task
    # said "Couldn't gather 1 keys, rescheduling" beside the run's one line
    import distributed  # noqa: F401  (its configuration sets the loggers' levels)

    named = [n for n in list(logging.root.manager.loggerDict) if n.startswith("distributed.")]
    logs = [logging.getLogger(n) for n in ("distributed", *named)]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.CRITICAL)
    try:
        with _client(opts.scheduler, opts.workers, memory) as client:
            yield client
    except OSError as e:
        where = opts.scheduler or "a LocalCluster"
        raise ClusterFailed(f"cannot use the Dask cluster ({where}): {e}") from None
    finally:
        for log, level in zip(logs, levels, strict=True):
            log.setLevel(level)


@dataclass(frozen=True)
class SolvedDataset:
    """A tiered dataset solved: the run's result, and the game's own block if it has one
    (``TieredForm.solved``: chess's longest wins per material)."""

    path: Path
    result: TierSolve
    wins: list[dict[str, Any]] | None


def solve_tiers(
    path: Path, cluster: DaskOptions, resume: bool | None, say: Say, out: Path | None = None
) -> SolvedDataset:
    """``solve DIR --engine dask`` on a tiered dataset: solve it on the cluster. ``resume``
    ``None``: resume where a solve stopped part way (some tiers solved, not all), else solve
    every tier. ``out``: an answer file (docs/answers.md) written from the answers
    (``dataset.answers``; a dataset no answer file reads yet is refused before the cluster)."""
    from verifier.dataset.answers import readable, write_answer_file
    from verifier.distributed.tiers.driver import load_manifest, solve_dataset

    m = load_manifest(path)  # bad input before a cluster starts
    if out is not None:
        readable(path)
    if resume is None:
        kept = sum(t.solved for t in m.tiers)
        resume = 0 < kept < len(m.tiers)
        if resume:
            say(Notice(f"a solve stopped part way: {kept} of {len(m.tiers)} tier(s) solved "
                       "are kept (--restart solves every tier again)"))  # fmt: skip
    with tier_cluster(cluster) as client:
        res = solve_dataset(on_workers(path), client, resume=resume, say=say)
        wins = None
        form = _form(res.manifest.game)
        if form is not None and form.solved is not None:  # chess: the longest wins by FEN
            from verifier.games.registry import hook

            wins = hook(form.solved)(on_workers(path), res.manifest, client)
    if out is not None:
        say(f"writing {out}: {sum(t.positions for t in res.manifest.tiers):,} positions")
        write_answer_file(path, out)
    return SolvedDataset(path, res, wins)


@dataclass(frozen=True)
class CheckedDataset:
    """A tiered dataset's answers judged: the verdict and what it rests on."""

    path: Path
    result: TierCheck
    seconds: float = 0.0
    """The judgement's wall time, from reading the manifest to the verdict."""

    @property
    def verdict(self) -> str:
        """``verified``, ``refuted`` or ``inconclusive``."""
        return self.result.verdict

    def records(self) -> Records:
        """The ``--format csv`` rows: the dataset's answers as a case's are printed."""
        from verifier.dataset.answers import dataset_records

        return dataset_records(self.path)

    def not_verified(self) -> str | None:
        """The one line on standard error when the answers are not verified."""
        from verifier.dataset.answers import not_verified_line

        return not_verified_line(self.path, self.result)


def verify_tiers(
    path: Path,
    answers: Path | None,
    cluster: DaskOptions,
    say: Say,
    rows: bool = False,
    junit: Path | None = None,
    resume: bool | None = None,
    outside: tuple[Path | None, bool | None, bool] = (None, None, False),
) -> CheckedDataset:
    """``verify DIR --engine dask``: judge a tiered dataset's answers (or the answer file or
    Parquet table ``answers``, or another dataset's answers) shard by shard on the cluster.
    ``rows``: its answers will be printed as rows (a dataset no answer file reads yet is
    refused before the cluster); ``junit``: a file that will be written (refused before the
    cluster if it cannot be); ``resume``: a stopped check's records (``checkpoints``) reused
    (``True``, ``None``: said when there are some) or not (``False``); ``outside``: the
    standalone checker's judgement of the dataset's certificate before VERIFIED
    (``certificate.SelfCheck``'s fields: --certificate, --self-check/--no-self-check, --force;
    ``certificate.self_checked``: on by default)."""
    import time

    began = time.perf_counter()
    require_extra(path, "--engine dask", *DASK)
    if junit is not None:
        from verifier.io.files import check_writable

        check_writable(junit)
    from verifier.dataset.export import is_dataset
    from verifier.distributed.tiers.driver import load_manifest
    from verifier.distributed.tiers.graph_check import check_any

    if path.is_file():
        raise UsageError(
            f"{path}: not a tiered dataset: --engine dask judges a DIR written by 'verifier "
            "generate ... -o DIR --engine dask'; verify a case file with another --engine"
        )
    load_manifest(path)  # bad input before a cluster starts
    if rows:
        from verifier.dataset.answers import readable

        readable(path)
    if answers is not None and is_dataset(answers):  # the same game, solved elsewhere
        load_manifest(answers)
    elif answers is not None:
        from verifier.dataset.answers import answers_input

        answers_input(path, answers)
    asked = SelfCheck(*outside)
    if (refused := asked.refused(path)) is not None:
        raise UsageError(refused)
    with tier_cluster(cluster) as client:
        table = None if answers is None else on_workers(answers)
        res = check_any(on_workers(path), client, answers=table, say=say, resume=resume)
        jobs = _local_jobs(client)
    if answers is None:  # the dataset's own answers: the ones its certificate ties
        if asked.keep is not None and res.verdict != "verified":  # else nothing is said
            why = f"certificate not written: the dataset is {res.verdict.upper()}"
            say(Notice(f"{asked.keep}: {why}"))
        res = self_checked(path, res, asked, jobs, say)
    form = _form(res.manifest.game)
    if form is not None and form.witnesses is not None:  # chess: by FEN, which needs the tier
        from verifier.games.registry import hook

        names, reasons = hook(form.witnesses)(path, res.manifest, res.witnesses)
        res.names.update(names)
        res.witnesses.update(reasons)  # a move's target named by its FEN too
    return CheckedDataset(path, res, time.perf_counter() - began)


def _local_jobs(client: Any) -> int:
    """The standalone checker's processes once the check's cluster is closed: as many as the
    cluster had workers (their memory is what the machine gave the check), at most this
    machine's cores."""
    import os

    workers = len(client.scheduler_info().get("workers", {}))
    return max(1, min(workers, os.cpu_count() or 1))


class Target(NamedTuple):
    """Where and how ``generate --engine dask`` writes: the dataset's directory, the cluster,
    the positions per shard (``None``: sized to the workers), whether to continue a
    generation that stopped, and where its stages are said."""

    output: Path
    cluster: DaskOptions
    per_shard: int | None
    resume: bool
    say: Say


def generate_tiers(
    game: str,
    to: Target,
    *,
    width: int | None,
    height: int | None,
    symmetry: bool | None,
    drawn: RandomGraph,
) -> str:
    """``generate GAME -o DIR --engine dask``: a built-in game with a tiered form (its
    declaration's generator, ``TieredForm.generate``: Connect Four, a chess endgame, a random
    graph) or a case file's graph (FILE.npz, FILE.json) written as a tiered dataset on the
    cluster; the line saying what was written."""
    from verifier.games.registry import hook, tiered, tiered_forms

    options = GameOptions(width, height, symmetry, drawn)
    found = tiered(game)
    if found is not None:
        return hook(found[1].generate)(game, to, options)  # type: ignore[no-any-return]
    if Path(game).suffix.lower() in (".npz", ".json"):
        return generate_graph_tiers(game, to, options)
    require_extra(to.output, "--engine dask", *DASK)
    plain = ", ".join(g.name for g, _ in tiered_forms() if g.argument is None)
    raise UsageError(
        f"--engine dask generates {plain} or a case file's graph "
        f"(.npz, .json) as a tiered dataset, not {game!r}"
    )


def random_graph_tiers(opts: RandomGraph) -> GraphTiers:
    """The ``GraphTiers`` that ``generate random --engine dask`` draws (random_case's
    defaults); a ``UsageError`` on an option it cannot take."""
    import math

    from verifier.dataset.graphs import GraphTiers
    from verifier.model.describe import describe
    from verifier.model.semantics import Semantics

    try:
        sem = Semantics(opts.semantics or GraphTiers.semantics.value)
    except ValueError:
        raise UsageError(
            f"--semantics {opts.semantics!r}: give one of {', '.join(x.value for x in Semantics)}"
        ) from None
    d = describe(sem)
    values = opts.values or "-1,0,1"
    labels: list[float] = []
    if d.value_field is not None:  # dead ends take a value (a score or a label)
        try:
            labels = sorted({float(v) for v in values.split(",")})
        except ValueError:
            raise UsageError(f"--terminal-values {values!r}: give numbers, e.g. -1,0,1") from None
        if not all(math.isfinite(v) for v in labels):
            raise UsageError(f"--terminal-values {values!r}: the values must be finite")
    if d.words and not set(labels) <= set(d.words):  # labels: their codes only
        among = ", ".join(map(str, sorted(d.words)))
        raise UsageError(f"--terminal-values {values!r}: {sem.value} labels must be among {among}")
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


def generate_graph_tiers(game: str, to: Target, options: GameOptions) -> str:
    """``generate random -o DIR --engine dask`` (the workers draw the graph, shard by shard:
    the random game's tiered form) or ``generate FILE.npz -o DIR --engine dask`` (a case file's
    graph, stored: any semantics but sums; an impartial graph is solved when acyclic)."""
    from verifier.games.registry import tiered_forms

    output, cluster, per_shard, resume, say = to
    if resume or options.symmetry:
        flag = "--resume" if resume else "--symmetry"
        again = "; a graph's generation that stopped is run again with --force"
        owners = " and ".join(f"{g.name}'s" for g, f in tiered_forms() if f.resume is not None)
        shown = f"{game}{again if resume else ''}"
        raise UsageError(f"{flag}: for {owners} tiered datasets, not a graph's ({shown})")
    require_extra(output, "--engine dask", *DASK)
    import math

    from verifier.dataset.round_rules import rule_for
    from verifier.distributed.tiers.driver import prepare_output
    from verifier.distributed.tiers.graph_generate import (
        dataset_from_graph,
        generate_random_graph,
    )
    from verifier.io import load_any
    from verifier.io.limits import Limits

    limits = Limits.for_command("solve", None)
    file = Path(game).suffix.lower() in (".npz", ".json")
    case = load_any(Path(game), limits=limits) if file else None
    tiers = random_graph_tiers(options.drawn) if case is None else None
    prepare_output(output)
    with tier_cluster(cluster) as client:
        if tiers is not None:
            m = generate_random_graph(
                on_workers(output), tiers, client, per_shard=per_shard, say=say
            )
        else:
            assert case is not None
            shards = math.ceil(case.graph.n / (per_shard or 1_000_000))
            ruled = rule_for(case.semantics) is not None  # normal keeps node 0 as its start
            m = dataset_from_graph(
                on_workers(output), case.graph, client, shards=shards, source=str(game),
                start=case.root if ruled else None, say=say, names=True,
            )  # fmt: skip
    t = m.tiers[0]
    return (
        f"wrote {output}: graph, {m.semantics}, {t.positions:,} nodes, "
        f"{m.parameters['edges']:,} moves in {len(t.shards)} shards"
    )


def case_file_route(path: Path) -> str:
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
    form = _form(game) if game else None
    words = form.again(params) if form is not None and form.again is not None else None
    if words:
        how = f"verifier generate {words}{sym} -o {out}"
    elif game == "graph" and params.get("source"):
        how = f"its source, {params['source']}"
    else:
        how = "the generate command that made it, without --engine dask"
    return (
        f"{path}: a tiered dataset, not a case file: solve and verify read it with --engine "
        f"dask (docs/distributed.md); for this command, the game as a case file: {how}"
    )


def tiered_sources() -> list[tuple[re.Pattern[str], str]]:
    """The games stored in tiers on the Dask route, as an ``.npz`` case's ``source`` names
    them (``TieredForm.source``), each with the words that write it in tiers."""
    from verifier.games.registry import tiered_forms

    return [(re.compile(f.source[0]), f.source[1]) for _, f in tiered_forms() if f.source]


def tiered_route(path: Path, refusal: str) -> str:
    """For a refusal for size of an ``.npz`` case of a game stored in tiers (``tiered_sources``),
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
    for pattern, spec in tiered_sources():
        m = pattern.fullmatch(source)
        if m:
            game = spec.format(*m.groups()) + (" --symmetry" if m.groups()[-1] else "")
            return f", or on disk: verifier generate {game} -o DIR --engine dask (tiers)"
    return ""


def query_dataset(path: Path, positions: Sequence[str]) -> tuple[Any, list[int]]:
    """``query DIR POSITION...``: the report and ids ``query_document`` reads, from a solved
    tiered dataset's answers (``dataset.answers``)."""
    from verifier.dataset.answers import query_report

    return query_report(path, positions)
