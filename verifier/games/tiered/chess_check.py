"""What ``verify DIR --engine dask`` proves of a chess dataset itself (issue 43): each shard's
positions, moves and dead ends recomputed from the codes (``check_positions``), and every legal
position of a material in some shard (``check_spans``). The dataset is made in
``tiered.chess``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.graphs import range_owner
from verifier.dataset.manifest import ShardEntry
from verifier.dataset.storage import read_parquet, shard_path
from verifier.games.tiered.chess import ChessTiers, dataset_order, material_of

U64 = NDArray[np.uint64]

Faults = tuple[int, tuple[int, int, str] | None]
"""Violations of the ``dataset`` check and the first ``(tier, node id or -1, why)``."""

GAP_BLOCK = 1 << 22
"""Material codes scanned at once between two shards (memory: a byte a code)."""


def _first_fault(found: list[tuple[int, int, str]]) -> tuple[int, int, str] | None:
    return min(found, key=lambda w: (w[0], w[1])) if found else None


def check_positions(
    root: str, game: ChessTiers, tier: int, entry: ShardEntry, moves: Any, refs: Any, lo: int
) -> tuple[int, tuple[int, int, str] | None, tuple[int, int] | None]:
    """The ``dataset`` check of a chess shard: its positions' material codes (``position``)
    strictly increasing, each a legal (canonical) position of the tier's material, no legal
    code missing between its first and its last; each position's stored moves (``moves``:
    ``dataset.judge.ShardMoves``, ids from ``lo``) exactly the legal moves the kernel makes
    from it, its dead-end label (mated / drawn) the kernel's. Returns the violations, the
    first, and the shard's first and last material codes (the driver checks the spans between
    shards: ``check_spans``). ``refs``: per tier, per shard, ``(positions, sha256)``."""
    from verifier.dataset.outcome import INNER
    from verifier.games import _chess_kernels as ck

    base = Path(root)
    t, i = material_of(game, tier)
    k, men, size = int(t.k[i]), t.men[i], int(t.base[i + 1] - t.base[i])
    pos = _positions(base, tier, entry.shard, entry.sha256).astype(np.int64)
    n = len(pos)
    where = f"shard {entry.shard}"
    found: list[tuple[int, int, str]] = []
    count = 0

    def flag(bad: NDArray[np.bool_], why: Callable[[int], str]) -> None:
        nonlocal count
        hit = np.flatnonzero(bad)
        count += len(hit)
        if len(hit):
            found.append((tier, lo + int(hit[0]), why(int(hit[0]))))

    order = np.zeros(n, dtype=np.bool_)
    order[1:] = pos[1:] <= pos[:-1]
    flag(order, lambda r: f"{where} row {r}: material code {int(pos[r])} follows "
                          f"{int(pos[r - 1])} (the codes strictly increase)")  # fmt: skip
    legal = (pos >= 0) & (pos < size)
    if legal.any():
        a, b = int(pos[legal].min()), int(pos[legal].max()) + 1
        keep = ck.tier_positions_range(k, men, int(t.group[i]), a, b)
        legal[legal] = keep[pos[legal] - a]
        want = np.flatnonzero(keep) + a
        missing = want[~np.isin(want, pos)]
        if len(missing):
            count += len(missing)
            fen = game.fens(tier, missing[:1].astype(np.uint64))[0]
            found.append((tier, -1, f"{where}: the legal position {fen} (material code "
                                    f"{int(missing[0])}) is missing"))  # fmt: skip
    flag(~legal, lambda r: f"{where} row {r}: material code {int(pos[r])} is no legal "
                           f"position of {game.materials()[tier]}")  # fmt: skip
    rows = np.flatnonzero(legal)
    mine = np.isin(moves.parent, rows)
    stored = _move_keys(base, moves.children[mine], moves.child_tier[mine], refs)
    s_row = moves.parent[mine]
    ptr = np.zeros(len(rows) + 1, np.int64)
    terminal = np.zeros(len(rows), np.int8)
    none = np.zeros(0, np.int64)
    signed = pos[rows]
    ck.tier_successors(signed, k, men, t.of_key, t.group, ptr[1:], none, none, terminal, True)
    degree = ptr[1:].copy()
    np.cumsum(ptr, out=ptr)
    to = np.empty(int(ptr[-1]), np.int64)
    code = np.empty(int(ptr[-1]), np.int64)
    ck.tier_successors(signed, k, men, t.of_key, t.group, ptr[:-1], to, code, terminal, False)
    rank = np.empty(len(t.materials), np.int64)  # a material's index -> its dataset tier
    rank[list(dataset_order(*game._key()))] = np.arange(len(t.materials))
    legal_keys = (rank[to] << 32) | code
    k_row = np.repeat(rows, degree)
    has = np.bincount(s_row, minlength=n)
    due = np.bincount(k_row, minlength=n)
    wrong = np.zeros(n, dtype=np.bool_)
    wrong[rows] = has[rows] != due[rows]
    same = ~wrong[s_row]
    if same.any():  # rows with as many moves as due: compare them move by move
        o_s = np.lexsort((stored[same], s_row[same]))
        o_k = np.lexsort((legal_keys[~wrong[k_row]], k_row[~wrong[k_row]]))
        differ = stored[same][o_s] != legal_keys[~wrong[k_row]][o_k]
        wrong[s_row[same][o_s][differ]] = True
    flag(wrong, lambda r: f"{where} row {r}: its stored moves ({int(has[r])}) are not the "
                          f"legal moves of the position ({int(due[r])})")  # fmt: skip
    dead = np.zeros(n, dtype=np.bool_)
    dead_label = np.zeros(n, dtype=np.int8)
    dead[rows] = degree == 0
    dead_label[rows] = terminal
    off = dead & ~wrong & (moves.outcome != dead_label) & (moves.outcome != INNER)
    words = {-1: "mated (lost)", 0: "drawn", 1: "won"}
    flag(off, lambda r: f"{where} row {r}: stored as a dead end {words[int(moves.outcome[r])]}"
                        f", but the position is {words[int(dead_label[r])]}")  # fmt: skip
    span = (int(pos[0]), int(pos[-1])) if n else None
    return count, _first_fault(found), span


def _positions(root: Path, tier: int, shard: int, sha: str | None) -> NDArray[np.uint64]:
    got = read_parquet(shard_path(root, tier, shard), sha, {"position": "uint64"})["position"]
    return got  # type: ignore[return-value]


def _move_keys(root: Path, dst: U64, to: NDArray[np.int64], refs: Any) -> NDArray[np.int64]:
    """Each stored move's target as ``tier << 32 | material code`` (its node id looked up in
    the ``position`` column of the shard holding it), one shard read at a time."""
    from verifier.dataset.graphs import range_bounds

    out = np.zeros(len(dst), dtype=np.int64)
    for tt in np.unique(to).tolist():
        sel = np.flatnonzero(to == tt)
        bounds = range_bounds([p for p, _ in refs[tt]])
        owner = range_owner(dst[sel], bounds)
        for j in np.unique(owner).tolist():
            if not 0 <= j < len(refs[tt]):
                continue  # a move to no node: the claims' lookup says so
            at = sel[owner == j]
            pos = _positions(root, tt, j, refs[tt][j][1]).astype(np.int64)
            out[at] = (int(tt) << 32) | pos[(dst[at] - np.uint64(bounds[j])).astype(np.intp)]
    return out


def check_spans(
    game: ChessTiers, tier: int, spans: list[tuple[int, int] | None], lo: list[int]
) -> tuple[int, int, str] | None:
    """The shards of a chess tier in the order of their material codes, and no legal code of
    the material outside every shard's span (before the first, between two, after the last):
    the first violation (``None``: none). ``lo``: each shard's first node id."""
    from verifier.games import _chess_kernels as ck

    t, i = material_of(game, tier)
    size = int(t.base[i + 1] - t.base[i])
    gaps, prev = [], (-1, 0)  # (last code of the shard before, its shard)
    for s, span in enumerate(spans):
        if span is None:
            continue
        if span[0] <= prev[0]:
            return (tier, lo[s], f"shard {s} starts at material code {span[0]}, not after "
                                 f"shard {prev[1]}'s last, {prev[0]}")  # fmt: skip
        gaps.append((prev[0] + 1, span[0]))
        prev = (span[1], s)
    gaps.append((prev[0] + 1, size))
    for a, b in gaps:
        for c in range(a, b, GAP_BLOCK):
            keep = ck.tier_positions_range(int(t.k[i]), t.men[i], int(t.group[i]), c,
                                           min(b, c + GAP_BLOCK))  # fmt: skip
            if keep.any():
                code = c + int(np.flatnonzero(keep)[0])
                fen = game.fens(tier, np.array([code], dtype=np.uint64))[0]
                return (tier, -1, f"the legal position {fen} (material code {code}) is in no "
                                  "shard")  # fmt: skip
    return None
