"""The remoteness contract of ``minimax`` answers (Kars' score with the plies to the end).

For a node of score v > 0 its remoteness is the fewest plies in which Max forces a leaf worth at
least v: the layer of the node in Max's attractor of the leaves with t >= v (Min's, of t <= v,
for v < 0); a draw (v = 0) has none. The check builds those attractors itself, one per score,
by the ICO notes' layers W_0 ⊆ W_1 ⊆ ... with good-neighbour counters (vectorized per layer:
linear in the graph per score), and compares them with every solver's remoteness column node by
node: a value off by one, a remoteness at a draw, a missing one at a decided node are refuted
with the node. (``normal`` and ``reachability`` remoteness are proved exactly by the rank
certificates of ``smt-won-lost`` and ``smt-attractor``.)
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import per_solver, result
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import REMOTENESS, VALUE
from verifier.model.results import View
from verifier.model.semantics import MAX, MIN, Semantics
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


def attractor_layers(g: GameGraph, attacker: int, targets: NDArray[np.bool_]) -> IntArray:
    """Per node its layer in ``attacker``'s attractor of ``targets`` (-1 outside): targets are
    layer 0; an attacker's node joins one layer after its first successor, the other side's
    inner node one layer after its last (ICO notes, W_{i+1} = W_i ∪ CPre(W_i))."""
    n = g.n
    layer = np.full(n, -1, dtype=np.int64)
    layer[targets] = 0
    inner = g.out_degree > 0
    attacks = inner & (g.owner == attacker)
    count = np.where(inner & ~attacks, g.out_degree, 0).astype(np.int64)
    frontier = np.flatnonzero(targets)
    k = 0
    while len(frontier):
        k += 1
        preds = g.pred_idx[_expand(g.pred_ptr, frontier)]
        preds = preds[layer[preds] < 0]
        joined = np.unique(preds[attacks[preds]])
        defend = preds[~attacks[preds] & inner[preds]]
        u, c = np.unique(defend, return_counts=True)
        count[u] -= c
        joined = np.union1d(joined, u[count[u] == 0])
        layer[joined] = k
        frontier = joined
    return layer


def kars_remoteness(
    g: GameGraph, scores: NDArray[np.float64], covered: NDArray[np.bool_]
) -> IntArray:
    """The remoteness the contract asks for at every covered node of score != 0 (-1 elsewhere),
    given the scores (one attractor per distinct score)."""
    want = np.full(g.n, -1, dtype=np.int64)
    leaf = g.is_terminal
    t = np.where(leaf, np.nan_to_num(g.value, nan=0.0), np.nan)  # as (T): a leaf without t is 0
    for v in np.unique(scores[covered & (scores != 0) & ~np.isnan(scores)]).tolist():
        side = MAX if v > 0 else MIN
        good = leaf & ((t >= v) if v > 0 else (t <= v))
        at = covered & (scores == v)
        want[at] = attractor_layers(g, side, good)[at]
    return want


@check(NAME, [Semantics.MINIMAX], order=35, linear=True)
def check_minimax_remoteness(ctx: CheckContext) -> list[CheckResult]:
    """Every SCORE solver's remoteness against the attractor layers of its own scores."""
    return per_solver(ctx, View.SCORE, REMOTENESS, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    val, rem = r.columns[VALUE], r.columns[REMOTENESS]
    scores = np.asarray(val.data, dtype=np.float64)
    want = kars_remoteness(g, scores, val.given)
    got = np.where(rem.given, rem.data, -1)
    bad = np.flatnonzero(val.given & (got != want))
    if len(bad) == 0:
        decided = int((val.given & (scores != 0)).sum())
        return result(
            name,
            Verdict.CONFIRMED,
            f"{decided} decided nodes: remoteness = the attractor layer of their score "
            "(winner hurries, loser delays); none at draws",
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
        else "not the fewest plies in which the winner forces a leaf at least this good",
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
