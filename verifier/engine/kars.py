"""Kars' minimax score of every node (Kars 1990, Def. 4.1) on the numpy engine.

Definition 4.1: ``s_0 = 0`` and ``s_{n+1} = A s_n`` where ``(A s)(x) = t(x)`` on a leaf, the
maximum of ``s`` over the successors of a Max node and the minimum over those of a Min node; the
score is ``s = lim s_n`` (divergence, i.e. infinite play, is a draw worth 0). Every ``s_n`` takes
its values in the finite set ``V = t(F) ∪ {0}``.

**Thresholds.** Fix ``c > 0`` and let ``B_n = {x : s_n(x) >= c}``. Then ``B_0 = ∅`` (as
``s_0 = 0 < c``) and, reading ``A`` pointwise, ``x ∈ B_{n+1}`` iff ``x`` is a leaf with
``t(x) >= c``, or a Max node with *some* successor in ``B_n``, or a Min node with *all* of its
successors in ``B_n``. That is the attractor operator of the reachability game in which Max
(player 0) tries to reach the leaves ``T_c = {t >= c}``; ``B_n`` is its Kleene iteration from
``∅``, so ``⋃ B_n = Attr_Max(T_c)``. As ``s_n`` converges (values in a finite set, Sec. 5),
``s(x) >= c`` iff ``x ∈ Attr_Max(T_c)``. Symmetrically, for ``c < 0``, ``s(x) <= c`` iff
``x ∈ Attr_Min({t <= c})``. No node is in both kinds of set (it would have ``s >= c > 0`` and
``s <= c' < 0``), hence

    s(x) = max{c ∈ V, c > 0 : x ∈ Attr_Max(t >= c)}   if that set is non-empty,
           min{c ∈ V, c < 0 : x ∈ Attr_Min(t <= c)}   else if that one is,
           0                                           otherwise.

Equivalently ``s = lfp(A⁺) + gfp(A⁻)`` where ``A⁺ = max(A, 0)`` on ``V ∩ [0, ∞)`` and
``A⁻ = min(A, 0)`` on ``V ∩ (-∞, 0]``: ``max(s_n, 0)`` and ``min(s_n, 0)`` are the Kleene
iterations of these monotone operators from their bottom and top element ``0``.

**One pass for all thresholds.** The attractors are nested (``Attr(t >= c') ⊆ Attr(t >= c)`` for
``c' > c``), so one propagation state serves them all: seed the leaves of the largest positive
value, propagate to exhaustion (every node that joins has score ``c``), then add the leaves of the
next value and continue with the same counters, and so on down to the smallest positive value.
This is the classic "largest value first" algorithm for max-min reachability: a Max node joins
with the first, i.e. largest, value it sees, a Min node when its last successor joins, i.e. with
the smallest. The negative side is the mirror image. Total work O(n + m + |V| log |V|); the
number of numpy rounds is the sum over levels of their propagation depth, which is why tiny
frontiers run through the kernel's scalar loop.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.engine.frontier import (
    IN,
    Csr,
    Propagation,
    attractor_propagation,
    first_match_per_source,
    predecessor_csr,
    row_chunks,
    successor_csr,
)
from verifier.model.graph import GameGraph, IntArray
from verifier.model.semantics import MAX, MIN, Semantics

__all__ = [
    "EngineKars",
    "kars_moves_numpy",
    "kars_numpy",
    "kars_remoteness",
    "leaf_levels",
    "score_keeping_pred",
    "side_roles",
    "validate_minimax",
]


@dataclass(frozen=True, eq=False)
class EngineKars:
    """Kars' score of every node and the work done."""

    score: NDArray[np.float64]
    """s(x) of Def. 4.1 (draw = 0)."""
    levels: int
    """Distinct non-zero leaf values processed (thresholds)."""
    rounds: int
    scalar_rounds: int
    edges_scanned: int
    remoteness: IntArray | None = None
    """With ``moves=True``: for s(x) != 0 the length of optimal play (``kars_remoteness``);
    -1 where s(x) = 0. Same as the references' ``KarsScores.remoteness``."""
    move: IntArray | None = None
    """With ``moves=True``: an optimal successor by the rule of ``kars_moves`` (a successor of
    equal score and remoteness r - 1: the side ahead hurries, the side behind delays; smallest
    id)."""


def leaf_levels(g: GameGraph, winner_is_max: bool) -> list[tuple[float, IntArray]]:
    """The leaves of one side grouped by value, in the order the one-pass method seeds them:
    Max's side the positive values from the largest down, Min's side the negative ones from the
    smallest up; each group's leaves in increasing id order."""
    leaves = np.flatnonzero(g.is_terminal)
    vals = g.value[leaves]
    keep = vals > 0 if winner_is_max else vals < 0
    leaves, vals = leaves[keep], vals[keep]
    order = np.argsort(-vals if winner_is_max else vals, kind="stable")
    leaves, vals = leaves[order], vals[order]
    cut = [0, *(np.flatnonzero(np.diff(vals)) + 1).tolist(), len(vals)] if len(vals) else []
    return [(float(vals[a]), leaves[a:b]) for a, b in itertools.pairwise(cut)]


def side_roles(g: GameGraph, winner_is_max: bool) -> NDArray[np.bool_]:
    """The winner's nodes of one side (OR nodes: one successor in the attractor suffices)."""
    out: NDArray[np.bool_] = g.owner == MAX if winner_is_max else g.owner != MAX
    return out


def validate_minimax(g: GameGraph) -> None:
    """``ValueError`` naming the first leaf without a finite value or inner node without an
    owner (Max or Min)."""
    g.expect_semantics(Semantics.MINIMAX)
    leaf, t = g.is_terminal, g.value
    bad_leaf = leaf & ~np.isfinite(t)
    if bad_leaf.any():
        x = int(np.flatnonzero(bad_leaf)[0])
        raise ValueError(f"terminal node {g.name(x)!r} has no finite value")
    bad_inner = ~leaf & (g.owner != MAX) & (g.owner != MIN)
    if bad_inner.any():
        x = int(np.flatnonzero(bad_inner)[0])
        raise ValueError(f"inner node {g.name(x)!r} is owned by neither max nor min")


def _side(g: GameGraph, pred: Csr, winner_is_max: bool) -> Propagation:
    """A fresh propagation for one side: the winner's nodes are OR, the other player's AND."""
    return attractor_propagation(pred, g.out_degree, side_roles(g, winner_is_max))


def kars_numpy(g: GameGraph, *, moves: bool = False) -> EngineKars:
    """Kars' score of every node of a ``minimax`` graph, by nested threshold attractors.

    Kars' Figure 1 with b = -1, d = 2 (ids a, c, b, d): the cycle a -> c -> a is a draw.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "c": ["d", "a"]},
    ...     semantics=Semantics.MINIMAX, owner={"a": MAX, "c": MIN},
    ...     value={"b": -1.0, "d": 2.0})
    >>> kars_numpy(g).score.tolist()
    [0.0, 0.0, -1.0, 2.0]
    """
    validate_minimax(g)
    pred = predecessor_csr(g)
    score = np.zeros(g.n, dtype=np.float64)
    rounds = scalar_rounds = edges = 0
    n_levels = 0
    for winner_is_max in (True, False):
        # Max's side: Max nodes are OR, Min nodes AND, largest value first; Min's side mirrored
        prop = _side(g, pred, winner_is_max)
        side = leaf_levels(g, winner_is_max)
        layer0 = 0
        for c, xs in side:
            frontiers = prop.run(xs, IN, layer0)
            layer0 += len(frontiers)
            for f in frontiers:
                score[f] = c
        n_levels += len(side)
        rounds += prop.rounds
        scalar_rounds += prop.scalar_rounds
        edges += prop.edges
    rem = mv = None
    if moves:
        rem = kars_remoteness(g, score)
        mv = kars_moves_numpy(g, score, rem)
    return EngineKars(
        score=score,
        levels=n_levels,
        rounds=rounds,
        scalar_rounds=scalar_rounds,
        edges_scanned=edges,
        remoteness=rem,
        move=mv,
    )


def score_keeping_pred(pred: Csr, score: NDArray[np.float64]) -> tuple[Csr, IntArray]:
    """The predecessor CSR of the score-keeping moves (x -> y with s(x) = s(y) != 0, in the
    order of ``pred``) and per node its number of score-keeping successors. Chunked over the
    rows: temporaries of ``CHUNK_EDGES`` edges, one mask of m booleans."""
    keep = np.zeros(len(pred.idx), dtype=np.bool_)
    per_row = np.zeros(pred.n, dtype=np.int64)
    for c in row_chunks(pred):
        a = int(pred.ptr[c.u])
        sy = np.repeat(score[c.u : c.v], c.deg)
        k = (score[c.dst] == sy) & (sy != 0)
        keep[a : a + len(k)] = k
        per_row[c.u + c.rows] = np.add.reduceat(k.astype(np.int64), c.starts)
    idx = pred.idx[keep]
    ptr = np.zeros(pred.n + 1, dtype=np.int64)
    np.cumsum(per_row, out=ptr[1:])
    return Csr(ptr, idx), np.bincount(idx, minlength=pred.n).astype(np.int64)


def kars_remoteness(g: GameGraph, score: NDArray[np.float64]) -> IntArray:
    """Remoteness of every node: the length of optimal play (issue 28 item 4), -1 where
    s(x) = 0. One attractor on the score-keeping moves (``score_keeping_pred``), the leaves of
    score != 0 its targets: the side ahead (Max at s > 0, Min at s < 0) joins with its first
    score-keeping successor (hurries), the side behind with its last (delays); every node of
    score != 0 joins (the proof is in ``verifier.solvers.kars_levels``). O(n + m)."""
    keep, count = score_keeping_pred(predecessor_csr(g), score)
    ahead = ~g.is_terminal & ((score > 0) == (g.owner == MAX))
    prop = attractor_propagation(keep, count, ahead)
    prop.run(np.flatnonzero(g.is_terminal & (score != 0)), IN, keep=False)
    return np.where(score != 0, prop.layer, -1).astype(np.int64)


def kars_moves_numpy(g: GameGraph, score: NDArray[np.float64], rem: IntArray) -> IntArray:
    """An optimal move for every inner node (the rule of ``verifier.solvers._common.kars_moves``).

    Candidates are the successors of equal score. Both sides go one ply down the optimal line:
    the remoteness is 1 + the least (side ahead) or greatest (side behind) remoteness of a
    score-keeping successor, so the wanted one is r - 1 either way; a draw takes the first. The
    successor is then the first whose key (score level, remoteness) equals the wanted one.
    """
    succ = successor_csr(g)
    levels = np.unique(score)
    lv = np.searchsorted(levels, score).astype(np.int64)
    width = int(rem.max(initial=-1)) + 2
    code = lv * width + (rem + 1)  # >= 0 everywhere
    target_rem = rem - 1
    target_rem[score == 0] = -1
    want = lv * width + (target_rem + 1)
    want[g.is_terminal] = -1
    return first_match_per_source(succ, want, code)
