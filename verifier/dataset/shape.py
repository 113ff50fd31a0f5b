"""The dataset itself, shard by shard (``verify DIR --engine dask``, issue 43): which shard owns
a code, each shard's codes strictly increasing and positions of its tier (``shape_faults``),
and every row reached by a move from the tier before (``write_marks``, ``reach_shard``). The
checks of the claims are in ``check``, the strangers' tables in ``tables``."""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.graphs import range_bounds, range_owner
from verifier.dataset.manifest import ShardEntry
from verifier.dataset.storage import (
    read_codes,
    shard_of,
)

CHECKS = ("dataset", "reachable", "coverage", "rules", "remoteness", "moves", "counts")
"""The checks, in the order the report lists them: ``dataset`` (each shard's codes strictly
increasing, owned by the shard, each a position of its tier; a stored graph's node ids its
range), ``reachable`` (tier 0 is the start alone, every later position is reached by a move
from the tier before: games whose moves are computed), then the claims' checks, and ``counts``
(the manifest's per-tier counts recomputed from the stored answers)."""
SHAPE = ("dataset", "reachable", "counts")
"""The checks of the dataset itself (not of the claims)."""
WORDS = {1: "won", -1: "lost", 0: "drawn"}


@dataclass(frozen=True)
class Owners:
    """Which shard of its tier holds a code: the dataset's hash (``storage.shard_of``), or
    node-id ranges for a stored graph (``graphs.range_owner``)."""

    sizes: tuple[tuple[int, ...], ...]
    """Per tier, per shard: positions."""
    ranged: bool

    def of(self, tier: int, codes: NDArray[np.uint64]) -> NDArray[np.intp]:
        if self.ranged:
            return range_owner(codes, range_bounds(list(self.sizes[tier])))
        return shard_of(codes, len(self.sizes[tier]))


Witness = tuple[int, int, str] | None
"""A violation named: ``(tier, code, why)``; the first one of a check in a shard."""


class ShardFaults(NamedTuple):
    """What one task found: violations per check (``CHECKS`` order), the first of each, and
    the shard's own answers counted (won, lost, drawn, greatest remoteness or -1), which the
    driver sums per tier and compares with the manifest's."""

    counts: tuple[int, ...]
    witnesses: tuple[Witness, ...]
    tally: tuple[int, int, int, int] | None = None
    span: tuple[int, int] | None = None
    """What the game's ``TieredForm.positions`` found of the shard for its ``spans`` (a chess
    shard's first and last material codes, ``tiered.chess_check.check_spans``)."""


def _faults(
    tally: tuple[int, int, int, int] | None = None,
    span: tuple[int, int] | None = None,
    **by_check: tuple[int, Witness],
) -> ShardFaults:
    got = [by_check.get(c, (0, None)) for c in CHECKS]
    return ShardFaults(tuple(n for n, _ in got), tuple(w for _, w in got), tally, span)


def tally_of(label: NDArray[Any], rem: NDArray[np.int32]) -> tuple[int, int, int, int]:
    """A shard's answers counted as ``solve`` counts them for the manifest: won, lost, drawn
    and the greatest remoteness (-1 for an empty shard)."""
    counts = [int(np.count_nonzero(label == v)) for v in (1, -1, 0)]
    return counts[0], counts[1], counts[2], int(rem.max()) if len(rem) else -1


def position_named(game: Any, code: int) -> str:
    """``game.position_name(code)``, or ``code N`` for a code that names no position (a
    corrupt dataset's: naming the witness must not fail)."""
    try:
        return str(game.position_name(code))
    except (ValueError, IndexError, KeyError, OverflowError):
        return f"code {code}"


def _first(tier: int, codes: NDArray[np.uint64], bad: NDArray[np.bool_], why: Any) -> Witness:
    """The witness at the first position flagged in ``bad`` (``why(i)`` says what is wrong)."""
    hit = np.flatnonzero(bad)
    if not len(hit):
        return None
    i = int(hit[0])
    return (tier, int(codes[i]), why(i))


def shape_faults(
    game: Any, tier: int, shard: int, codes: NDArray[np.uint64], owners: Owners
) -> tuple[NDArray[np.bool_], int, Witness]:
    """The ``dataset`` check of one shard's codes: strictly increasing (no duplicate), each
    owned by this shard and a position of this tier (``game.tier_of``, under the game's
    symmetry its class's code); a stored graph's: its shard's node-id range, in order.
    Returns where a code is usable (expanded by the checks), the violations, the first."""
    n = len(codes)
    if owners.ranged:
        lo = int(range_bounds(list(owners.sizes[tier]))[shard])
        ids = np.arange(lo, lo + n, dtype=np.uint64)
        bad = codes != ids

        def why_range(i: int) -> str:
            return (
                f"shard {shard} holds node ids {lo}..{lo + n - 1}, in order: row {i} is "
                f"{int(codes[i])}, not {lo + i}"
            )

        return np.ones(n, dtype=np.bool_), int(bad.sum()), _first(tier, codes, bad, why_range)
    order = np.zeros(n, dtype=np.bool_)
    order[1:] = codes[1:] <= codes[:-1]
    owned = owners.of(tier, codes) == shard
    legal = game.tier_of(codes) == tier
    legal[legal] = game.canonical(codes[legal]) == codes[legal]
    bad = order | ~owned | ~legal

    def why(i: int) -> str:
        if not legal[i]:
            t = int(game.tier_of(codes[i : i + 1])[0])
            if t < 0:
                return f"shard {shard} row {i}: code {int(codes[i])} is no position of the game"
            if t != tier:
                return (
                    f"shard {shard} row {i}: code {int(codes[i])} is a position of tier {t}, "
                    f"not of tier {tier}"
                )
            return (
                f"shard {shard} row {i}: code {int(codes[i])} is not its class's code (the "
                "dataset stores each class of symmetric positions under the smaller code)"
            )
        if order[i]:
            what = "a duplicate" if codes[i] == codes[i - 1] else "out of order"
            return (
                f"shard {shard} row {i}: code {int(codes[i])} follows code "
                f"{int(codes[i - 1])}: {what} (the codes strictly increase)"
            )
        return (
            f"shard {shard} row {i}: code {int(codes[i])} belongs to shard "
            f"{int(owners.of(tier, codes[i : i + 1])[0])} of its tier"
        )

    return owned & legal, int(bad.sum()), _first(tier, codes, bad, why)


def reached_path(scratch: Path, tier: int, shard: int, tier_from: int, shard_from: int) -> Path:
    """The rows of shard ``shard`` of tier ``tier`` that the moves of a shard of the tier
    before reach (a temporary piece of the ``reachable`` check)."""
    return (
        scratch / "reached" / f"tier={tier}" / f"shard={shard}" / f"{tier_from}-{shard_from}.bits"
    )


def write_marks(path: Path, rows: NDArray[np.intp], positions: int) -> None:
    """The rows a shard's moves reach in a successor shard of ``positions`` rows, as a bitmap
    (``np.packbits``, zlib-compressed: at most a bit a row, much less where few are reached;
    Connect Four 5x4 in 4,494 pieces: 6 MB, a fifth of its codes), written whole."""
    seen = np.zeros(positions, dtype=np.bool_)
    seen[rows] = True
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(zlib.compress(np.packbits(seen).tobytes(), 1))
    os.replace(tmp, path)


def read_marks(path: Path, positions: int) -> NDArray[np.bool_]:
    """A bitmap ``write_marks`` wrote."""
    bits = np.frombuffer(zlib.decompress(path.read_bytes()), dtype=np.uint8)
    return np.unpackbits(bits, count=positions).astype(np.bool_)


def reach_shard(
    root: str, scratch: str, tier: int, entry: ShardEntry, start: int
) -> tuple[int, Witness]:
    """The ``reachable`` check of one shard, once every shard of the tier before has marked
    the rows its moves reach (``reached_path``): tier 0 holds the start alone, a later tier
    no row that no move reaches. Returns the violations and the first."""
    codes = read_codes(Path(root), tier, entry.shard, entry.sha256, entry.positions, cache=True)
    n = len(codes)
    if tier == 0:
        bad = codes != np.uint64(start)
        if not bad.any() and n == 1:
            return 0, None
        if not len(codes) or not (codes == np.uint64(start)).any():
            return 1, (0, start, f"shard {entry.shard}: tier 0 lacks the start position")
        return int(bad.sum()), _first(
            0, codes, bad, lambda i: f"shard {entry.shard}: tier 0 holds the start alone"
        )
    seen = np.zeros(n, dtype=np.bool_)
    folder = reached_path(Path(scratch), tier, entry.shard, 0, 0).parent
    for piece in sorted(folder.glob("*.bits")) if folder.is_dir() else []:
        seen |= read_marks(piece, n)
    bad = ~seen
    return int(bad.sum()), _first(
        tier,
        codes,
        bad,
        lambda i: (
            f"shard {entry.shard} row {i}: no move of a position of tier {tier - 1} reaches "
            "it: not reachable from the start"
        ),
    )
