"""The remoteness contract of ``minimax`` answers: the length of the game under optimal play.

Remoteness is lexicographic: the score comes first, then the length. A move *keeps the score*
when it goes to a successor of the same score; only those are optimal. For a node of score
v > 0 its remoteness is the number of plies the game lasts when Max, who is ahead, hurries and
Min, who is behind, delays, both keeping the score: a leaf 0, a Max node 1 + the least
remoteness of a score-keeping successor, a Min node 1 + the greatest. That is the node's layer
in Max's attractor of the leaves worth v *on the score-keeping moves alone* (a Min node joins
when all its score-keeping successors have: its other moves concede more than v, which no
optimal Min does). Every score-v node lies in it (induction on the layer in Max's attractor
A_v of the leaves worth at least v: a Max node's move into A_v keeps the score, a Min node's
score-keeping successors lie in A_v one layer lower). Mirrored for v < 0 with Min ahead; a
draw (v = 0) has none. (The layer of the node in A_v itself, the *threshold layer*, is another
quantity: issue 28 item 4's x -> {leaf 1, a 4-ply line to leaf 5} has threshold layer 4 but
remoteness 1.)

The check builds that attractor itself, from the solver's own scores (score-keeping edges only
connect nodes of one score, so one propagation covers every score), with the ICO notes' layers
W_0 ⊆ W_1 ⊆ ... and good-neighbour counters, vectorized per layer (linear in the graph), and
compares it with every solver's remoteness column node by node: a value off by one, a
remoteness at a draw, a missing one at a decided node are refuted with the node. A partial
answer is judged where its scores decide the remoteness: at the covered nodes whose
score-keeping moves never reach a node with an unclaimed successor. (``normal`` and
``reachability`` remoteness are proved exactly by the rank certificates of ``smt-won-lost`` and
``smt-attractor``.)
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import per_solver, result
from verifier.distinct import distinct, distinct_union
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import REMOTENESS, VALUE
from verifier.model.results import View
from verifier.model.semantics import MAX, Semantics
from verifier.registry import CheckContext, check

__all__ = ["NAME", "attractor_layers", "kars_remoteness"]

NAME = "minimax-remoteness"

IntArray = NDArray[np.int64]


def _expand(ptr: IntArray, nodes: IntArray) -> IntArray:
    """The positions ``ptr[x] .. ptr[x+1]-1`` of every ``x`` in ``nodes``, concatenated."""
    starts, ends = ptr[nodes], ptr[nodes + 1]
    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return offsets + np.arange(total, dtype=np.int64)


def _layers(
    pred_ptr: IntArray,
    pred_idx: IntArray,
    attacks: NDArray[np.bool_],
    count: IntArray,
    targets: NDArray[np.bool_],
) -> IntArray:
    """Per node its layer in the attractor of ``targets`` over the edges given by their
    predecessor lists (-1 outside): targets are layer 0; an ``attacks`` node joins one layer
    after its first successor, any other node with ``count[x] > 0`` one layer after the last of
    its ``count[x]`` successors (ICO notes, W_{i+1} = W_i ∪ CPre(W_i))."""
    layer = np.full(len(count), -1, dtype=np.int64)
    layer[targets] = 0
    count = np.where(attacks, 0, count).astype(np.int64)
    frontier = np.flatnonzero(targets)
    k = 0
    while len(frontier):
        k += 1
        preds = pred_idx[_expand(pred_ptr, frontier)]
        preds = preds[layer[preds] < 0]
        joined = distinct(preds[attacks[preds]])
        defend = preds[~attacks[preds] & (count[preds] > 0)]
        u, c = np.unique(defend, return_counts=True)
        count[u] -= c
        joined = distinct_union(joined, u[count[u] == 0])
        layer[joined] = k
        frontier = joined
    return layer


def attractor_layers(g: GameGraph, attacker: int, targets: NDArray[np.bool_]) -> IntArray:
    """Per node its layer in ``attacker``'s attractor of ``targets`` over all moves (-1
    outside). With the targets ``t >= v`` this is the *threshold layer*: the fewest plies in
    which Max forces a leaf worth at least v, conceding any score above v on the way."""
    inner = g.out_degree > 0
    attacks = inner & (g.owner == attacker)
    count = np.where(inner, g.out_degree, 0).astype(np.int64)
    return _layers(g.pred_ptr, g.pred_idx, attacks, count, targets)


def kars_remoteness(
    g: GameGraph, scores: NDArray[np.float64], covered: NDArray[np.bool_]
) -> tuple[IntArray, NDArray[np.bool_]]:
    """The remoteness the contract asks for at every covered node of score != 0 (-1 elsewhere),
    given the scores, and where the scores decide it.

    One attractor on the score-keeping moves (both ends covered, equal scores, not 0): the
    side ahead (Max at s > 0, Min at s < 0) attacks, the side behind joins when all its
    score-keeping successors have, the leaves of score != 0 are the targets. The second array
    is false at the covered nodes whose score-keeping moves reach a node with an unclaimed
    successor (a move there might keep the score): their remoteness is not decided."""
    n = g.n
    s = np.where(covered & ~np.isnan(scores), scores, np.nan)  # NaN: no score claimed
    src = np.repeat(np.arange(n, dtype=np.int64), g.out_degree)
    dst = np.asarray(g.succ_idx, dtype=np.int64)
    keep = (s[src] == s[dst]) & (s[src] != 0)  # NaN never equals: unclaimed ends keep nothing
    ks, kd = src[keep], dst[keep]
    order = np.argsort(kd, kind="stable")
    pred_idx = ks[order]
    pred_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(kd, minlength=n), out=pred_ptr[1:])
    count = np.bincount(ks, minlength=n).astype(np.int64)
    decided = ~np.isnan(s) & (s != 0)
    inner = g.out_degree > 0
    ahead = inner & decided & ((s > 0) == (g.owner == MAX))
    want = _layers(pred_ptr, pred_idx, ahead, count, g.is_terminal & decided)
    # undecided: a covered node with an unclaimed successor, and whatever reaches one by
    # score-keeping moves
    open_ = np.zeros(n, dtype=np.bool_)
    np.logical_or.at(open_, src, np.isnan(s[dst]))
    open_ &= ~np.isnan(s)
    frontier = np.flatnonzero(open_)
    while len(frontier):
        preds = pred_idx[_expand(pred_ptr, frontier)]
        frontier = distinct(preds[~open_[preds]])
        open_[frontier] = True
    return want, ~open_


@check(NAME, [Semantics.MINIMAX], order=35, linear=True, proves={REMOTENESS})
def check_minimax_remoteness(ctx: CheckContext) -> list[CheckResult]:
    """Every SCORE solver's remoteness against the score-keeping attractor of its own scores."""
    return per_solver(ctx, View.SCORE, REMOTENESS, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    val, rem = r.columns[VALUE], r.columns[REMOTENESS]
    scores = np.asarray(val.data, dtype=np.float64)
    want, known = kars_remoteness(g, scores, val.given)
    got = np.where(rem.given, rem.data, -1)
    judged = val.given & known
    bad = np.flatnonzero(judged & (got != want))
    if len(bad) == 0:
        decided = int((judged & (scores != 0)).sum())
        left = int((val.given & ~known).sum())
        return result(
            name,
            Verdict.CONFIRMED,
            f"{decided} decided nodes: remoteness = the length of optimal play keeping the "
            "score (the side ahead hurries, the side behind delays); none at draws"
            + (
                f"; {left} node(s) whose score-keeping moves reach unclaimed ones not judged"
                if left
                else ""
            ),
            t0,
        )
    x = int(bad[0])
    witness = {
        "node": g.name(x),
        "score": float(scores[x]),
        "remoteness": rem.at(x),
        "expected": None if want[x] < 0 else int(want[x]),
        "reason": "a draw has no remoteness"
        if scores[x] == 0
        else "not the length of optimal play: keeping the score, the side ahead hurries and "
        "the side behind delays",
        "faults": len(bad),
    }
    return result(
        name,
        Verdict.REFUTED,
        f"remoteness of {g.name(x)!r} is {witness['remoteness']}, the contract says "
        f"{witness['expected']} ({len(bad)} node(s) in all)",
        t0,
        witness,
    )
