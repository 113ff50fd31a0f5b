"""Retrograde analysis (Knuth, TAOCP 2.2.3 exercise 28) for the ``normal`` semantics.

The mover alternates; a terminal position carries a label from the mover's view (lost by default,
won, or draw). A position is won if it has a lost successor and lost if all of its successors are
won. The algorithm keeps for every node ``c(x)``, the number of successors not yet known to be
won, the predecessor lists, and a queue Q of freshly labelled nodes whose predecessors still have
to be told. Nodes left unknown are those the rules cannot decide (cycles); a draw-labelled
terminal stays unknown as well, exactly as in the exercise.

Remoteness (plies to the end under optimal play: the winner hurries, the loser delays) falls out
of the queue order: Q is first-in first-out and every node enters it one ply above the node whose
processing labelled it, so nodes leave Q in non-decreasing remoteness. A won node is labelled by
its first lost successor to leave Q (the least remoteness), a lost node by its last won successor
(the greatest).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.model.results import RetrogradeResult
from verifier.model.semantics import LOST, UNKNOWN, WON
from verifier.registry import Options, solver
from verifier.solvers._common import require_reference, timed

__all__ = [
    "LOST",
    "UNKNOWN",
    "WON",
    "RetrogradeResult",
    "retrograde",
    "retrograde_solver",
    "terminal_labels",
]


def terminal_labels(g: GameGraph) -> list[int]:
    """The label of every terminal position (lost unless marked won or draw), 0 on inner nodes."""
    val = g.value.tolist()
    leaf = g.is_terminal.tolist()
    out = [UNKNOWN] * g.n
    for x in range(g.n):
        if leaf[x]:
            v = val[x]
            out[x] = LOST if math.isnan(v) else (WON if v > 0 else LOST if v < 0 else UNKNOWN)
    return out


def retrograde(g: GameGraph) -> RetrogradeResult:
    """Label every position of a ``normal`` game graph won, lost or unknown, in O(n + m).

    >>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": []},
    ...                               semantics=Semantics.NORMAL)
    >>> r = retrograde(g)
    >>> r.label.tolist(), r.remoteness.tolist(), r.move.tolist()
    ([-1, 1, -1], [2, 1, 0], [1, 2, -1])
    """
    g.expect_semantics(Semantics.NORMAL)
    n = g.n
    pred_ptr, pred_idx = g.pred_ptr.tolist(), g.pred_idx.tolist()
    c = g.out_degree.tolist()  # c(x) = number of successors of x
    state = terminal_labels(g)
    remoteness = [-1] * n
    queue: deque[int] = deque()
    for x in range(n):  # terminals designated won or lost enter Q
        if state[x] != UNKNOWN:
            remoteness[x] = 0
            queue.append(x)
    scanned = 0
    while queue:  # while Q is not empty, remove a position y from Q
        y = queue.popleft()
        r = remoteness[y] + 1
        for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]]:
            scanned += 1
            if state[x] != UNKNOWN:
                continue
            if state[y] == LOST:  # case 1: x has a lost successor, so x is won
                state[x] = WON
                remoteness[x] = r
                queue.append(x)
            else:  # case 2: one more successor of x is won
                c[x] -= 1
                if c[x] == 0:  # all successors won: x is lost
                    state[x] = LOST
                    remoteness[x] = r
                    queue.append(x)
    return RetrogradeResult(
        label=np.array(state, dtype=np.int8),
        remoteness=np.array(remoteness, dtype=np.int64),
        move=np.array(_moves(g, state, remoteness), dtype=np.int64),
        edges_scanned=scanned,
    )


def _moves(g: GameGraph, state: list[int], remoteness: list[int]) -> list[int]:
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    move = [-1] * g.n
    for x in range(g.n):
        succ = idx[ptr[x] : ptr[x + 1]]  # increasing ids: min/max keep the first of a tie
        if not succ:
            continue
        if state[x] == WON:
            move[x] = min((y for y in succ if state[y] == LOST), key=lambda y: remoteness[y])
        elif state[x] == LOST:
            move[x] = max(succ, key=lambda y: remoteness[y])
        else:
            move[x] = next((y for y in succ if state[y] == UNKNOWN), -1)
    return move


@solver("retrograde", [Semantics.NORMAL], order=10)
def retrograde_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: view LABEL with remoteness and optimal moves."""
    g = require_reference(case, options, Semantics.NORMAL, linear=True)
    r, seconds = timed(lambda: retrograde(g))
    return r.solver_result("retrograde", seconds, {"edges_scanned": r.edges_scanned, "nodes": g.n})
