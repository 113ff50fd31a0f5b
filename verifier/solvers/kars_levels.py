"""Kars' score of every node by retrograde propagation, one threshold of t(F) at a time.

Why this is Kars' score. Take a threshold v > 0 and let A_v be Max's attractor of the leaves
worth at least v (a Max node joins when one successor is in, a Min node when all are, as in the
ICO notes). By induction on n, straight from Def. 4.1: s_n(x) >= v iff x lies in layer n - 1 of
A_v (s_0 = 0 < v; a leaf reaches t(x) >= v at n = 1; a Max node needs one successor with
s_{n-1} >= v, a Min node all of them). The sequence s_n(x) only moves away from 0 (Lemma 5.3), so
s(x) >= v iff x is in A_v. Symmetrically for w < 0 with Min's attractor B_w of the leaves worth
at most w. Hence

    s(x) = the greatest v > 0 in t(F) with x in A_v, else the least w < 0 with x in B_w, else 0,

The layer of x in A_{s(x)} (or B_{s(x)}), its *threshold layer*, is not its remoteness: there
Min may "delay" by conceding more than s(x), which no optimal Min does. The remoteness is the
length of optimal play (issue 28 item 4): x's layer in the attractor of the leaves worth s(x) on
the *score-keeping* moves alone (x -> y with s(y) = s(x)), the side ahead (Max at s > 0, Min at
s < 0) attacking and the side behind joining when all its score-keeping successors have. Every
node of score v is in it: by induction on its layer in A_v, a Max node's move into A_v keeps
the score (its successors score at most v, A_v's at least v), and a Min node's score-keeping
successors lie in A_v one layer lower. Score-keeping moves join only nodes of one score, so
one more run of ``attractor_layers``, on those moves with every leaf of score != 0 a target,
gives every node's remoteness: the side ahead takes 1 + its least score-keeping successor
(hurries), the side behind 1 + its greatest (delays).

Each threshold is one run of ``attractor_layers``: O(n + m) with counters. With k distinct non-zero
leaf values the whole method costs O(k (n + m)); for the three values of a won/lost/draw game it is
two linear passes, and the remoteness one more. Work reported: predecessor edges scanned.
"""

from __future__ import annotations

import numpy as np

from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.registry import Options, solver
from verifier.solvers._common import KarsScores, kars_moves, minimax_view, require_reference, timed
from verifier.solvers.attractor import attractor_layers

__all__ = ["kars_levels", "kars_levels_solver"]


def kars_levels(g: GameGraph) -> KarsScores:
    """Kars' score, remoteness and optimal moves of every node; work: edges scanned.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
    ...     semantics=Semantics.MINIMAX, owner={"a": 0, "c": 1}, value={"b": 1, "d": -2})
    >>> r = kars_levels(g)
    >>> r.value.tolist(), r.remoteness.tolist(), r.move.tolist()
    ([1.0, 1.0, -2.0, -2.0], [1, 0, 1, 0], [1, -1, 3, -1])

    Issue 28 item 4: Min at x takes the leaf y worth 1 at once rather than concede 5 after
    four plies; the remoteness is 1 (the threshold layer of x would be 4).

    >>> g = GameGraph.from_successors({"x": ["y", "z1"], "z1": ["z2"], "z2": ["z3"],
    ...     "z3": ["z4"]}, semantics=Semantics.MINIMAX,
    ...     owner={"x": 1, "z1": 0, "z2": 1, "z3": 0}, value={"y": 1, "z4": 5})
    >>> r = kars_levels(g)
    >>> x = g.id_of("x")
    >>> float(r.value[x]), int(r.remoteness[x]), g.name(int(r.move[x]))
    (1.0, 1, 'y')
    """
    v = minimax_view(g)
    pred_ptr, pred_idx = g.pred_ptr.tolist(), g.pred_idx.tolist()
    deg = g.out_degree.tolist()
    is_min = [not v.is_leaf[x] and not v.is_max[x] for x in range(v.n)]
    leaves = [x for x in range(v.n) if v.is_leaf[x]]
    value = [0.0] * v.n
    scanned = 0
    levels = sorted({v.t[x] for x in leaves} - {0.0})
    # Thresholds farthest from 0 first: a node keeps the first (most extreme) value it reaches.
    for w in [*reversed([u for u in levels if u > 0]), *[u for u in levels if u < 0]]:
        if w > 0:
            targets = [x for x in leaves if v.t[x] >= w]
            layer, k = attractor_layers(pred_ptr, pred_idx, deg, v.is_max, targets)
        else:
            targets = [x for x in leaves if v.t[x] <= w]
            layer, k = attractor_layers(pred_ptr, pred_idx, deg, is_min, targets)
        scanned += k
        for x in range(v.n):
            if layer[x] >= 0 and value[x] == 0.0:
                value[x] = w
    # the remoteness: one attractor on the score-keeping moves, the side ahead attacking
    keep_ptr, keep_idx = [0], []
    for y in range(v.n):  # predecessors x of y by a score-keeping move x -> y
        if value[y] != 0.0:
            keep_idx += [x for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]] if value[x] == value[y]]
        keep_ptr.append(len(keep_idx))
    keep_deg = [0] * v.n
    for x in keep_idx:
        keep_deg[x] += 1
    ahead = [not v.is_leaf[x] and (value[x] > 0) == v.is_max[x] for x in range(v.n)]
    decided = [x for x in leaves if value[x] != 0.0]
    remoteness, k = attractor_layers(keep_ptr, keep_idx, keep_deg, ahead, decided)
    scanned += k
    return KarsScores(
        value=np.array(value, dtype=np.float64),
        remoteness=np.array(remoteness, dtype=np.int64),
        move=kars_moves(v, value, remoteness),
        work={"edges_scanned": scanned, "thresholds": len(levels)},
    )


@solver("kars-levels", [Semantics.MINIMAX], order=20)
def kars_levels_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: view SCORE, remoteness and optimal moves; work = edges scanned."""
    g = require_reference(case, options, Semantics.MINIMAX, linear=True)
    r, seconds = timed(lambda: kars_levels(g))
    return r.solver_result("kars-levels", seconds)
