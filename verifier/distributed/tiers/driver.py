"""The driver of a tiered run: submits one task per shard and keeps the manifest.

The driver never holds a tier: it sends each worker a shard's name and digest, and gets back
counts, paths and digests (``tasks``). After each tier it rewrites the manifest, which is the
checkpoint a ``resume`` starts from.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from verifier.dataset.errors import DatasetError, RunFailed
from verifier.dataset.graphs import GraphTiers, with_names, with_semantics
from verifier.dataset.manifest import MANIFEST, Manifest, ShardEntry, TierEntry
from verifier.dataset.manifest import load_manifest as load_manifest
from verifier.dataset.round_rules import described, rule_for
from verifier.dataset.rules import TierGame, game_from_manifest
from verifier.dataset.shard_tasks import ShardRef, expand_shard, merge_shard, solve_shard
from verifier.dataset.storage import (
    positions_per_shard,
    read_answers,
    shard_of,
    shards_for,
    write_codes,
)
from verifier.dataset.stored_columns import count_names
from verifier.distributed.tiers.graph_solve import answer_of, solve_graph_tier
from verifier.distributed.tiers.sizing import check_fits
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier

__all__ = [
    "TierSolve",
    "generate_dataset",
    "prepare_output",
    "resumes",
    "solve_dataset",
    "worker_bytes",
]

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    """The default progress callback: say nothing."""


def worker_bytes(client: Any) -> int:
    """The smallest memory limit among the cluster's workers (the machine's memory shared
    among them when they have none)."""
    from verifier.io.limits import memory_bytes

    workers = cluster_workers(client)
    if not workers:
        raise RunFailed("the Dask cluster has no workers")
    limits = [int(w.get("memory_limit") or 0) for w in workers.values()]
    if all(limits):
        return min(limits)
    return memory_bytes() // len(workers)


def prepare_output(root: Path) -> None:
    """Make ``root`` an empty dataset directory: create it, or clear an earlier dataset's
    files; a directory holding anything else is refused (never deleted). The earlier
    manifest is first marked as holding nothing (so that a run killed while the files go
    leaves no dataset claiming them: the same command clears it, ``--resume`` starts over),
    and goes last."""
    if root.exists() and not root.is_dir():
        raise DatasetError(f"{root}: exists and is not a directory")
    if root.is_dir() and any(root.iterdir()):
        if not (root / MANIFEST).is_file():
            raise DatasetError(f"{root}: not empty and not a tiered dataset: not overwritten")
        try:
            old = load_manifest(root)
        except DatasetError:
            pass  # unreadable: nothing claims the files
        else:
            old.tiers, old.generated = [], False
            old.save(root)
        for sub in root.iterdir():
            if sub.is_dir() and (
                sub.match("tier=*") or sub.name in ("answers", "tmp", "edges", "reverse", "exits")
            ):
                shutil.rmtree(sub)
        (root / MANIFEST).unlink()
    root.mkdir(parents=True, exist_ok=True)


def resumes(root: Path) -> bool:
    """Whether ``--resume`` has a generation to continue in ``root``: not in an empty
    directory (a run killed before it wrote its manifest: the run starts over there); else
    ``root``'s manifest must be readable (``DatasetError`` naming what is wrong)."""
    if root.is_dir() and not any(root.iterdir()):
        return False
    load_manifest(root)
    return True


def generate_dataset(
    root: Path,
    game: TierGame,
    client: Any,
    *,
    per_shard: int | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
) -> Manifest:
    """Write the tiered dataset of ``game`` in ``root`` (an empty or cleared directory, see
    ``prepare_output``) on the cluster of ``client``; ``per_shard``: positions per shard
    (default: from the workers' memory limits). ``resume``: ``root`` holds a generation that
    stopped (its manifest lists the tiers finished): continue after the last of them, with
    its shard size. ``stop_after``: stop once that tier is written (tests use it to stand for
    a run that died there). ``poll``, ``grace``: ``gather_tier``'s."""
    workers = set(cluster_workers(client))  # the run fails if one of them leaves
    if resume:
        m = _resumable(root, game)
        if m.generated:
            return m
        if (m.game, m.parameters) == (game.name, game.parameters()):
            per_shard = per_shard or m.positions_per_shard or None
    if not resume or not m.tiers:  # (a run stopped before tier 0 was listed starts over)
        per_shard = per_shard or positions_per_shard(worker_bytes(client))
        m = Manifest(game.name, game.parameters(), game.root(), per_shard)
        m.save(root)  # under way: the files below are this game's
        start = np.array([game.root()], dtype=np.uint64)
        m.tiers.append(TierEntry(0, [ShardEntry(0, 1, write_codes(root, 0, 0, start))]))
        m.save(root)
    per_shard = m.positions_per_shard
    for k in range(len(m.tiers) - 1, game.tiers - 1):
        tier = m.tiers[k]
        # distinct children: at most max_moves per position, in practice about half as many
        # after merging (the memory target of a shard leaves a fourfold margin)
        shards = shards_for(tier.positions * game.max_moves // 2, per_shard, len(workers))
        what = f"generating tier {k + 1}"
        expanded = gather_tier(
            client,
            [
                client.submit(
                    expand_shard, str(root), game, k, s.shard, _ref(s), shards, pure=False
                )
                for s in tier.shards
            ],
            what=what,
            poll=poll,
            grace=grace,
            workers=workers,
        )
        pieces: list[list[str]] = [[] for _ in range(shards)]
        for result in expanded:
            for j, _count, path in result:
                pieces[j].append(path)
        merged = gather_tier(
            client,
            [
                client.submit(merge_shard, str(root), k + 1, j, pieces[j], pure=False)
                for j in range(shards)
            ],
            what=what,
            poll=poll,
            grace=grace,
            workers=workers,
        )
        shutil.rmtree(root / "tmp" / f"tier={k + 1}", ignore_errors=True)  # its pieces, merged
        entries = [ShardEntry(j, n, sha) for j, (n, sha) in enumerate(merged)]
        if sum(e.positions for e in entries) == 0:  # no moves left: the game ends earlier
            shutil.rmtree(root / f"tier={k + 1}", ignore_errors=True)
            break
        m.tiers.append(TierEntry(k + 1, entries))
        m.save(root)
        say(f"tier {k + 1}: {m.tiers[-1].positions:,} positions in {shards} shard(s)")
        if stop_after is not None and k + 1 == stop_after:
            return m
    shutil.rmtree(root / "tmp", ignore_errors=True)
    m.generated = True
    m.save(root)
    return m


def _resumable(root: Path, game: TierGame) -> Manifest:
    """The manifest of a generation to continue in ``root`` (the same game), with the files
    of the tier that was being written when it stopped removed."""
    m = load_manifest(root)
    where = root / MANIFEST
    if not m.tiers and not m.generated:  # nothing kept (cleared, or stopped at once)
        shutil.rmtree(root / "tmp", ignore_errors=True)
        shutil.rmtree(root / "tier=0", ignore_errors=True)
        return m
    if (m.game, m.parameters) != (game.name, game.parameters()):
        raise DatasetError(
            f"{where}: $.parameters: {m.game} {m.parameters}, not {game.name} "
            f"{game.parameters()}: --resume continues the same game"
        )
    if any(t.solved for t in m.tiers) and not m.generated:
        raise DatasetError(f"{where}: $.tiers: solved tiers in an unfinished generation")
    if not m.generated:
        shutil.rmtree(root / "tmp", ignore_errors=True)
        shutil.rmtree(root / f"tier={len(m.tiers)}", ignore_errors=True)
    return m


def _ref(s: ShardEntry) -> ShardRef:
    return s.positions, s.sha256, s.answers_sha256


@dataclass(frozen=True)
class TierSolve:
    """A solved (or partly solved) dataset: the manifest and the start position's value."""

    manifest: Manifest
    root_label: int | None
    """+1 won, -1 lost, 0 drawn for the player to move at the start; ``None`` if tier 0 is not
    solved yet (a run stopped early)."""
    root_remoteness: int | None
    description: str | None
    """The value in the words of the game (``first player (x) wins in 13 plies``)."""
    tiers_solved: int
    """Tiers solved by this run (0 when resuming a finished solve)."""
    root_answers: dict[str, Any] | None = None
    """A stored graph of a semantics other than normal: the start's answers
    (``stored_columns.StoredColumns.answer_columns``); ``root_label`` and ``root_remoteness``
    are ``None``."""


def _check_sizes(root: Path, m: Manifest, resume: bool, workers: int, limit: int) -> None:
    """Refuse (``sizing.WorkersTooSmall``) a stored graph whose tiers to solve (all, or the
    unsolved ones with ``resume``) ``workers`` workers of memory limit ``limit`` cannot solve
    by rounds (``sizing.check_fits``)."""
    for t in m.tiers:
        if resume and t.solved:
            continue
        sizes = [(s.positions, ((s.edges or 0) + (s.reverse_edges or 0)) // 2) for s in t.shards]
        check_fits(f"{root}: tier {t.tier}", sizes, workers, limit, m.semantics, len(m.tiers))


def solve_dataset(
    root: Path,
    client: Any,
    *,
    resume: bool = False,
    stop_after: int | None = None,
    say: Say = _quiet,
    poll: float = 1.0,
    grace: float = 10.0,
) -> TierSolve:
    """Solve the dataset in ``root`` tier by tier, from the last one down, writing each tier's
    answers and marking it solved in the manifest. ``resume``: keep the tiers already solved
    and continue below them (else solve every tier again). ``stop_after``: stop once that
    tier is solved (tests use it to stand for a run that died there). ``poll``, ``grace``:
    ``gather_tier``'s."""
    m = load_manifest(root)
    game = game_from_manifest(m.game, m.parameters, str(root / MANIFEST))
    game = with_semantics(game, m.semantics, str(root / MANIFEST))  # type: ignore[assignment]
    m.need_generated(root)
    if m.semantics != game.semantics.value:
        raise DatasetError(
            f"{root / MANIFEST}: $.semantics: {m.semantics!r}: "
            f"{m.game} tiers solve {game.semantics.value}"
        )
    workers = set(cluster_workers(client))  # the run fails if one of them leaves
    if isinstance(game, GraphTiers):  # before any work: shards the workers cannot solve
        _check_sizes(root, m, resume, len(workers), worker_bytes(client))
    if not resume and any(t.solved for t in m.tiers):
        for t in m.tiers:
            t.unsolve()
        m.save(root)  # before any answer is rewritten: a run killed now claims none
    _check_suffix(root, m)
    done = 0
    for tier in reversed(m.tiers):
        if tier.solved:
            continue
        k = tier.tier
        succ = [_ref(s) for s in m.tiers[k + 1].shards] if k + 1 < len(m.tiers) else None
        if isinstance(game, GraphTiers):  # moves stored, cycles inside the tier
            results = solve_graph_tier(
                root, m, k, client, workers=workers, poll=poll, grace=grace, say=say
            )
        else:
            results = gather_tier(
                client,
                [
                    client.submit(
                        solve_shard, str(root), game, k, s.shard, _ref(s), succ, pure=False
                    )
                    for s in tier.shards
                ],
                what=f"solving tier {k}",
                poll=poll,
                grace=grace,
                workers=workers,
            )
        for s, (_, _, _, _, digest) in zip(tier.shards, results, strict=True):
            s.answers_sha256 = digest
        tier.won, tier.lost, tier.drawn = (sum(r[i] for r in results) for i in range(3))
        tier.max_remoteness = max((r[3] for r in results), default=-1)
        tier.status = "solved"
        m.save(root)
        done += 1
        won, lost, drawn, _ = count_names(m.semantics)
        say(f"tier {k}: {won} {tier.won:,}, {lost} {tier.lost:,}, {drawn} {tier.drawn:,}")
        if stop_after is not None and k == stop_after:
            break
    return _result(root, m, game, done)


def _check_suffix(root: Path, m: Manifest) -> None:
    """The solved tiers must be the last ones (each tier is solved from the next)."""
    seen_unsolved = False
    for t in reversed(m.tiers):
        if t.solved and seen_unsolved:
            raise DatasetError(
                f"{root / MANIFEST}: $.tiers[{t.tier}].status: solved below an unsolved tier"
            )
        seen_unsolved |= not t.solved


def _result(root: Path, m: Manifest, game: TierGame, done: int) -> TierSolve:
    """The start position's answer, read from tier 0's answers (one position)."""
    first = m.tiers[0]
    if not first.solved:
        return TierSolve(m, None, None, None, done)
    if isinstance(game, GraphTiers):
        answers = answer_of(root, m, m.root_code)
        game = with_names(root, game)  # the start named as the case file names it
        if rule_for(game.semantics) is not None:  # its own columns, not the tier games' labels
            said = described(game.semantics, game.position_name(m.root_code), answers)
            return TierSolve(m, None, None, said, done, answers)
        value, plies = answers["label"], answers["remoteness"]
        return TierSolve(m, value, plies, game.describe(value, plies), done)
    start = np.array([m.root_code], dtype=np.uint64)
    shard = first.shards[int(shard_of(start, len(first.shards))[0])]
    label, rem = read_answers(root, 0, shard.shard, shard.answers_sha256, shard.positions)
    if len(label) != 1:
        raise DatasetError(f"{root}: tier 0 holds {len(label)} positions, not the start alone")
    value, plies = int(label[0]), int(rem[0])
    return TierSolve(m, value, plies, game.describe(value, plies), done)
