"""Kars' score by its definition: the iteration s_{n+1} = A s_n of Def. 4.1 from s_0 = 0.

Kars (1990), Def. 4.1 and Sec. 5: s_0 p = 0; s_{n+1} p = t p on a leaf, the maximum of s_n over
the successors on a Max node, the minimum on a Min node (the scan lost the Max line; read it with
(MM) of Sec. 3). By Lemma 5.3 the sequence rises in the order <=_1 (values only move away from 0)
and by Theorem 5.4 it reaches its limit after finitely many rounds; every round is one synchronous
step of the distributed algorithm of Sec. 5 and costs O(|E|).

The round at which a node's value last changes, minus one, is its *threshold layer* (for v =
s(x) > 0, s_n(x) >= v holds iff Max can force a leaf worth at least v within n - 1 plies, by
induction on n), not its remoteness. The remoteness is the length of optimal play (issue 28 item
4): the score first, then, on the moves that keep it, the side ahead (Max at s > 0, Min at s <
0) hurries and the side behind delays. It is found by a second iteration of the same kind, on
the score-keeping moves of the limit s: r_0 undefined everywhere; r_{n+1}(x) = 0 on a leaf of
score != 0, 1 + the least r_n of a score-keeping successor where the side ahead moves (once one
is defined), 1 + the greatest where the side behind moves (once all are defined); until nothing
changes. r_n(x) is defined iff optimal play from x ends within n - 1 plies, and it never changes
once defined (the first value is the least), so the limit is the remoteness.
"""

from __future__ import annotations

import numpy as np

from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.registry import Options, solver
from verifier.solvers._common import (
    BudgetExceeded,
    KarsScores,
    MinimaxView,
    kars_moves,
    minimax_view,
    require_reference,
    timed_unless,
)

__all__ = ["ITERATION_EDGE_BUDGET", "kars_iteration", "kars_iteration_solver"]

ITERATION_EDGE_BUDGET = 30_000_000
"""Edges the registered solver may scan in all rounds (some seconds of pure Python)."""


def kars_iteration(g: GameGraph, *, max_edges: int | None = None) -> KarsScores:
    """Iterate s_{n+1} = A s_n from s_0 = 0 until s_{k+1} = s_k; work: ``rounds`` = k.

    Each round scans all m edges and there can be up to about |t(F)| n rounds (Thm. 5.4), so
    ``max_edges`` bounds the edges scanned in all; beyond it ``BudgetExceeded`` is raised.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
    ...     semantics=Semantics.MINIMAX, owner={"a": 0, "c": 1}, value={"b": -1, "d": 2})
    >>> r = kars_iteration(g)
    >>> r.value.tolist(), r.remoteness.tolist(), r.move.tolist(), r.work["rounds"]
    ([0.0, -1.0, 0.0, 2.0], [-1, 0, -1, 0], [2, -1, 0, -1], 1)
    """
    v = minimax_view(g)
    ptr, idx, is_max, is_leaf, t = v.ptr, v.idx, v.is_max, v.is_leaf, v.t
    s = [0.0] * v.n  # s_0 = 0
    rounds = 0
    while True:
        nxt = [0.0] * v.n
        for p in range(v.n):  # s_{n+1} = A s_n
            if is_leaf[p]:
                nxt[p] = t[p]
            elif is_max[p]:
                nxt[p] = max([s[q] for q in idx[ptr[p] : ptr[p + 1]]])
            else:
                nxt[p] = min([s[q] for q in idx[ptr[p] : ptr[p + 1]]])
        if nxt == s:
            break
        rounds += 1
        if max_edges is not None and (rounds + 1) * len(idx) > max_edges:
            raise BudgetExceeded(f"the iteration exceeded {max_edges} edges in {rounds} rounds")
        s = nxt
    remoteness, length_rounds = _length_iteration(v, s)
    return KarsScores(
        value=np.array(s, dtype=np.float64),
        remoteness=np.array(remoteness, dtype=np.int64),
        move=kars_moves(v, s, remoteness),
        work={
            "rounds": rounds,
            "edges_scanned": (rounds + 1 + length_rounds) * len(idx),
            "length_rounds": length_rounds,
        },
    )


def _length_iteration(v: MinimaxView, s: list[float]) -> tuple[list[int], int]:
    """The remoteness of every node given the limit scores ``s`` (module docstring): the
    iteration r_{n+1} = R r_n on the score-keeping moves from r_0 undefined (-1); and the
    number of rounds that changed something."""
    keeping = [
        [q for q in v.idx[v.ptr[p] : v.ptr[p + 1]] if s[q] == s[p]] if s[p] != 0 else []
        for p in range(v.n)
    ]
    ahead = [not v.is_leaf[p] and (s[p] > 0) == v.is_max[p] for p in range(v.n)]
    r = [-1] * v.n
    rounds = 0
    while True:
        nxt = list(r)
        for p in range(v.n):
            if r[p] >= 0 or s[p] == 0:
                continue
            if v.is_leaf[p]:
                nxt[p] = 0
                continue
            known = [r[q] for q in keeping[p] if r[q] >= 0]
            if known and (ahead[p] or len(known) == len(keeping[p])):
                nxt[p] = 1 + (min(known) if ahead[p] else max(known))
        if nxt == r:
            return r, rounds
        rounds += 1
        r = nxt


@solver("kars-iteration", [Semantics.MINIMAX], order=10)
def kars_iteration_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: view SCORE, remoteness and optimal moves; work = rounds."""
    g = require_reference(case, options, Semantics.MINIMAX)
    r, seconds = timed_unless(
        lambda: kars_iteration(g, max_edges=ITERATION_EDGE_BUDGET), BudgetExceeded
    )
    return r.solver_result("kars-iteration", seconds)
