"""A tiered dataset's positions in the order and under the names of the in-memory route (the
answer files' rows, ``verify DIR --format csv``, ``query DIR``: ``answers``).

The **order**, in which ``verifier generate`` numbers the same game's case (so a table keyed
by ids means the same positions on both routes): tier by tier and, inside a tier, codes
increasing; the tiers in the dataset's order, or in the order the game's ``TieredForm.order``
gives (a chess dataset's: the order of ``chess.tiers``, its global codes increasing).

The **names**: the game's own (``TieredForm.names``: Connect Four's boards; a chess position's
FEN, from the codes ``order`` gives); a stored graph's node id ``0 .. n-1`` (the names of
``generate random``'s cases) and, for a graph stored in several tiers, the position's place
in the order above (a case whose nodes were numbered tier by tier: its ids).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import read_edges, read_exits
from verifier.dataset.graphs import GraphTiers, with_names
from verifier.dataset.manifest import MANIFEST, Manifest, load_manifest
from verifier.dataset.rules import TierGame, game_from_manifest
from verifier.dataset.storage import read_answers, read_codes
from verifier.games.registry import hook, tiered_form, tiered_forms

__all__ = ["Catalog", "catalog", "readable"]


@dataclass(frozen=True)
class Catalog:
    """A dataset's positions in the in-memory order: dataset tier ``k``'s are
    ``codes[start[k] : start[k] + size[k]]``, increasing; ``perm[k]`` puts tier ``k``'s
    shards, read one after the other, in that order. ``named``: the code that names each id
    (``TieredForm.order``'s: a chess position's global code); ``None``: its own code."""

    root: Path
    manifest: Manifest
    game: TierGame
    codes: NDArray[np.uint64]
    start: NDArray[np.int64]
    size: NDArray[np.int64]
    perm: tuple[NDArray[np.intp], ...]
    named: NDArray[np.uint64] | None = None

    @property
    def n(self) -> int:
        return len(self.codes)

    @property
    def tiered(self) -> bool:
        """A graph stored in several tiers (chess's too), whose node ids restart at 0 in each
        tier: a code names a position only with its tier (Connect Four's codes name it)."""
        return isinstance(self.game, GraphTiers) and len(self.size) > 1

    def span(self, tier: int) -> tuple[int, int]:
        """The ids of dataset tier ``tier``: ``lo .. hi - 1``."""
        lo = int(self.start[tier])
        return lo, lo + int(self.size[tier])

    def ids(self, tier: int, codes: NDArray[np.uint64]) -> NDArray[np.int64]:
        """The ids of codes of tier ``tier`` (-1 for a code the tier does not hold)."""
        lo, hi = self.span(tier)
        mine = self.codes[lo:hi]
        at = np.minimum(np.searchsorted(mine, codes), max(hi - lo - 1, 0))
        found = (mine[at] == codes) if hi > lo else np.zeros(len(codes), dtype=np.bool_)
        return np.where(found, lo + at, -1).astype(np.int64)

    def tiers(self) -> NDArray[np.int32]:
        """The dataset tier of every id."""
        out = np.empty(self.n, dtype=np.int32)
        for k in range(len(self.size)):
            lo, hi = self.span(k)
            out[lo:hi] = k
        return out

    def names(self, ids: NDArray[np.int64] | None = None) -> Any:
        """The names of ``ids`` (increasing; default every id), in that order: a
        ``LazyNames`` decoding them as the in-memory route names the game's positions."""
        from verifier.games._board import LazyNames

        form = tiered_form(self.manifest.game)
        if form is not None and form.names is not None:
            codes = self.codes if self.named is None else self.named
            return hook(form.names)(self.game, codes if ids is None else codes[ids], ids is None)
        if isinstance(self.game, GraphTiers) and self.game.labels is not None:
            given = self.game.labels  # a case file's names (``graphs.with_names``)
            return list(given) if ids is None else [given[i] for i in ids.tolist()]
        every = np.arange(self.n, dtype=np.uint64) if ids is None else ids.astype(np.uint64)
        return LazyNames(every, str)

    def answers(self) -> tuple[NDArray[np.int8], NDArray[np.int32]]:
        """The dataset's own answers (normal: label +1 / -1 / 0, remoteness) in id order."""
        label = np.empty(self.n, dtype=np.int8)
        rem = np.empty(self.n, dtype=np.int32)
        for t in self.manifest.tiers:
            self.need_solved(t.tier)
            got = [
                read_answers(self.root, t.tier, s.shard, s.answers_sha256, s.positions)
                for s in t.shards
            ]
            lo, hi = self.span(t.tier)
            order = self.perm[t.tier]
            label[lo:hi] = np.concatenate([g[0] for g in got])[order]
            rem[lo:hi] = np.concatenate([g[1] for g in got])[order]
        return label, rem

    def need_solved(self, tier: int) -> None:
        t = self.manifest.tiers[tier]
        if not t.solved:
            raise DatasetError(
                f"{self.root / MANIFEST}: $.tiers[{t.tier}].status: {t.status!r}: the "
                "dataset is not solved (verifier solve DIR --engine dask)"
            )

    def edges(self) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
        """The moves ``(source ids, target ids)``, a tier (Connect Four) or a shard's moves
        inside its tier and into later ones (a stored graph) at a time."""
        m, game = self.manifest, self.game
        if isinstance(game, GraphTiers):
            for t in m.tiers:
                lo, _ = self.span(t.tier)
                for s in t.shards:
                    src, dst = read_edges(self.root, t.tier, s.shard, s.edges_sha256, s.edges)
                    yield lo + src.astype(np.int64), lo + dst.astype(np.int64)
                    if s.exits:
                        yield self._exits(t.tier, s)
            return
        for t in m.tiers[:-1]:
            lo, hi = self.span(t.tier)
            exp = game.expand(self.codes[lo:hi], t.tier)
            dst = self.ids(t.tier + 1, exp.children)
            if (dst < 0).any():
                raise DatasetError(
                    f"{self.root}: a move of tier {t.tier} leads to code "
                    f"{int(exp.children[dst < 0][0])}, which tier {t.tier + 1} lacks: the "
                    "dataset is incomplete (generate it again)"
                )
            yield lo + exp.parent.astype(np.int64), dst

    def _exits(self, tier: int, s: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        src, to, dst = read_exits(self.root, tier, s.shard, s.exits_sha256, s.exits)
        ids = np.empty(len(dst), dtype=np.int64)
        for k in np.unique(to).tolist():
            at = to == k
            ids[at] = self.ids(int(k), dst[at])
        if (ids < 0).any():
            k = int(to[ids < 0][0])
            raise DatasetError(
                f"{self.root}: a move of tier {tier} leads to node {int(dst[ids < 0][0])} of "
                f"tier {k}, which it lacks: the dataset is incomplete (generate it again)"
            )
        lo, _ = self.span(tier)
        return lo + src.astype(np.int64), ids


def readable(root: Path) -> tuple[Manifest, TierGame]:
    """The manifest and game of a dataset whose answers answer files and ``query`` read
    (``DatasetError`` for another, read from the manifest alone: before a cluster starts)."""
    m = load_manifest(root)
    where = str(root / MANIFEST)
    game = with_names(root, game_from_manifest(m.game, m.parameters, where))
    form = tiered_form(m.game)
    if not isinstance(game, GraphTiers) and (form is None or form.names is None):
        named = [f.manifest for _, f in tiered_forms() if f.names is not None]
        raise DatasetError(
            f"{root}: a {m.game} dataset: answer files and query read datasets of "
            f"{', '.join(named)} and stored graphs (its answers: the Parquet files of answers/)"
        )
    return m, game


def catalog(root: Path) -> Catalog:
    """Every position of the dataset in ``root``, in the in-memory route's order."""
    m, game = readable(root)
    m.need_generated(root)
    parts, perms, sizes = [], [], []
    for t in m.tiers:
        codes = np.concatenate(
            [read_codes(root, t.tier, s.shard, s.sha256, s.positions) for s in t.shards]
            or [np.zeros(0, dtype=np.uint64)]
        )
        order = np.argsort(codes, kind="stable")
        parts.append(codes[order])
        perms.append(order)
        sizes.append(len(codes))
    seq = list(range(len(m.tiers)))
    named = None
    form = tiered_form(m.game)
    if form is not None and form.order is not None:
        seq, named = hook(form.order)(root, m, perms)
    size = np.array(sizes, dtype=np.int64)
    start = np.zeros(len(sizes), dtype=np.int64)
    at = 0
    for k in seq:
        start[k] = at
        at += int(size[k])
    codes = np.concatenate([parts[k] for k in seq] or [np.zeros(0, dtype=np.uint64)])
    return Catalog(root, m, game, codes, start, size, tuple(perms), named)
