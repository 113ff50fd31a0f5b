"""The work a Dask worker does on a tiered dataset: one shard per task, files in, files out.

Every task reads its inputs from the dataset directory (digests checked), writes its outputs
there and returns only sizes and digests, so nothing but small records crosses to the driver.
Tasks are idempotent (each output is written whole under its final name): a task run twice
writes the same files. Nothing here needs a cluster (``distributed.tiers.driver`` submits
them): a shard's work is stored data in, stored data out.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.rules import INNER, TierGame
from verifier.dataset.shard_cache import held_first
from verifier.dataset.storage import (
    Answers,
    by_owner,
    piece_path,
    read_answers,
    read_codes,
    read_piece,
    rows_of,
    shard_of,
    shard_path,
    write_answers,
    write_codes,
    write_piece,
)
from verifier.distinct import distinct

__all__ = ["ShardRef", "SolvedShard", "expand_shard", "merge_shard", "solve_shard"]

ShardRef = tuple[int, str, str | None]
"""What a task needs to read a shard: ``(positions, codes sha256, answers sha256)``."""

SolvedShard = tuple[int, int, int, int, str]
"""What a solved shard reports: won, lost, drawn, max remoteness (-1: none), answers sha256."""


def _owners(
    codes: NDArray[np.uint64], shards: int, owner: NDArray[np.intp] | None = None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The indices of ``codes`` grouped by owner shard (stable: sorted codes stay sorted inside
    a group) and the group bounds: group ``j`` is ``order[bounds[j]:bounds[j + 1]]``.
    ``owner``: each code's shard when the tier is not sharded by ``shard_of`` (a graph's
    node-id ranges)."""
    return by_owner(shard_of(codes, shards) if owner is None else owner, shards)


def expand_shard(
    root: str, game: TierGame, tier: int, shard: int, ref: ShardRef, next_shards: int
) -> list[tuple[int, int, str]]:
    """Write the children of shard ``shard`` of tier ``tier`` as one piece per owner shard of
    tier ``tier + 1``; returns ``(owner shard, children, piece path)`` per piece written."""
    base = Path(root)
    codes = read_codes(base, tier, shard, ref[1], ref[0])
    children = distinct(game.expand(codes, tier).children)
    del codes
    order, bounds = _owners(children, next_shards)
    pieces = []
    for j in range(next_shards):
        if bounds[j + 1] > bounds[j]:
            path = piece_path(base, tier + 1, j, shard)
            write_piece(path, children[order[bounds[j] : bounds[j + 1]]])
            pieces.append((j, int(bounds[j + 1] - bounds[j]), str(path)))
    return pieces


def merge_shard(root: str, tier: int, shard: int, pieces: list[str]) -> tuple[int, str]:
    """Deduplicate the pieces sent to shard ``shard`` of tier ``tier`` and write the shard's
    sorted codes; returns ``(positions, sha256)``. The pieces stay (the driver removes the
    tier's once every shard is merged): a task whose worker died after it ran, its result lost
    with the worker, runs again from the same pieces."""
    parts = [read_piece(Path(p)) for p in pieces]
    codes = distinct(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.uint64)
    del parts
    digest = write_codes(Path(root), tier, shard, codes)
    return len(codes), digest


def _lookup(
    root: Path,
    tier: int,
    children: NDArray[np.uint64],
    succ: list[ShardRef],
    owner: NDArray[np.intp] | None = None,
) -> Answers:
    """The answers of ``children`` (codes of tier ``tier``), reading one shard of that tier at
    a time (the children grouped by owner shard, each group found by binary search).
    ``owner``: the children's shards if that tier is not sharded by hash (``_owners``)."""
    label = np.empty(len(children), dtype=np.int8)
    remoteness = np.empty(len(children), dtype=np.int32)
    order, bounds = _owners(children, len(succ), owner)
    lacking: list[tuple[int, int]] = []  # (shard, code): the first shard's named, whatever order
    for j in held_first([shard_path(root, tier, j) for j in range(len(succ))]):
        positions, sha, answers_sha = succ[j]
        idx = order[bounds[j] : bounds[j + 1]]
        if len(idx) == 0:
            continue
        codes = read_codes(root, tier, j, sha, positions, cache=True)
        lab, rem = read_answers(root, tier, j, answers_sha, positions, cache=True)
        want = children[idx]
        at = rows_of(codes, want)
        missing = np.flatnonzero(codes[at] != want) if len(codes) else np.arange(len(want))
        if len(missing):
            lacking.append((j, int(want[missing[0]])))
        label[idx], remoteness[idx] = lab[at], rem[at]
    if lacking:
        j, code = min(lacking)
        raise DatasetError(
            f"{shard_path(root, tier, j)}: lacks position code {code}, a move's target: the "
            "dataset is incomplete (generate it again)"
        )
    return label, remoteness


def solve_shard(
    root: str, game: TierGame, tier: int, shard: int, ref: ShardRef, succ: list[ShardRef] | None
) -> SolvedShard:
    """Label shard ``shard`` of tier ``tier`` from the answers of tier ``tier + 1`` (``succ``:
    its shards) and write its answers.

    Normal play: a terminal keeps its outcome (lost: remoteness 0; a draw); an inner position
    is won if a move reaches a lost one (remoteness 1 + the least such), lost if every move
    reaches a won one (1 + the most), else drawn."""
    base = Path(root)
    exp = game.expand(read_codes(base, tier, shard, ref[1], ref[0], cache=True), tier)
    n = len(exp.outcome)
    inner = exp.outcome == INNER
    label = np.where(inner, np.int8(0), exp.outcome).astype(np.int8)
    remoteness = np.where(exp.outcome == -1, 0, -1).astype(np.int32)
    if len(exp.children):
        if succ is None:
            raise DatasetError(f"{base}: tier {tier} has moves but the manifest has no next tier")
        child_label, child_rem = _lookup(base, tier + 1, exp.children, succ)
        parent = exp.parent
        moves = np.bincount(parent, minlength=n)
        to_lost = child_label == -1
        losing = np.bincount(parent[to_lost], minlength=n)
        winning = np.bincount(parent[child_label == 1], minlength=n)
        fastest = np.full(n, np.iinfo(np.int32).max, dtype=np.int32)
        np.minimum.at(fastest, parent[to_lost], child_rem[to_lost])
        slowest = np.full(n, -1, dtype=np.int32)
        np.maximum.at(slowest, parent, child_rem)
        del exp, child_label, child_rem, parent, to_lost
        won = inner & (losing > 0)
        lost = inner & (losing == 0) & (winning == moves)
        label[won], remoteness[won] = 1, fastest[won] + 1
        label[lost], remoteness[lost] = -1, slowest[lost] + 1
    digest = write_answers(base, tier, shard, (label, remoteness))
    counts = [int(np.count_nonzero(label == v)) for v in (1, -1, 0)]
    top = int(remoteness.max()) if n else -1
    return counts[0], counts[1], counts[2], top, digest
