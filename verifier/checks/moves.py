"""The move contract: every move a solver publishes is legal, present where the semantics asks
for one, and optimal in the exact sense of its semantics, judged against that solver's own
values and remoteness (each proved by its own checks).

| semantics | position | its move must go to |
|---|---|---|
| minimax | score s != 0, the side ahead | a successor of score s, remoteness r - 1 (hurry) |
| minimax | score s != 0, the side behind | a successor of score s, remoteness r - 1 (delay) |
| minimax | draw (s = 0) | a successor of score 0 |
| normal | won, remoteness r | a lost successor of remoteness r - 1 |
| normal | lost, remoteness r | a won successor of remoteness r - 1 (the longest defence) |
| normal | unknown (a draw) | an unknown successor (a won one hands the opponent the win) |
| reachability | player 0 inside W, off the target | a successor in W one layer lower |
| reachability | player 1 outside W | a successor outside W |
| impartial | N position (value > 0), or inf(K) with 0 in K | a P position (value 0) |
| impartial | inf(K), 0 not in K (a draw, D) | a D successor: inf(K'), 0 not in K' (not an N one) |

Every inner position of minimax and normal play names a move; reachability and impartial name
one where the table has a row (elsewhere every move is as good). A solver that publishes moves
but no remoteness is judged on values alone. Vectorized over the edges: linear, any size.

At a draw an N option hands the opponent the win (no option of a draw is P). An impartial N
position may move to any P option: each such move keeps the win, but on a cyclic
graph a strategy made of them can go round a cycle for ever (a draw); that the published moves
together win is the strategy certificate's to prove (``verifier/checks/impartial_strategy.py``).

Minimax remoteness is the length of optimal play keeping the score (``checks/remoteness.py``):
the side behind is one more than its *greatest* score-keeping successor, so its move to r - 1
is its longest score-keeping line, and a longer line that concedes more is not optimal.
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import per_solver, result
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import MOVE, REMOTENESS
from verifier.model.describe import describe, grundy_draws
from verifier.model.rows import is_a_move
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, check

__all__ = ["NAME", "impartial_draws", "move_faults"]

NAME = "moves"

Bools = NDArray[np.bool_]


def move_faults(g: GameGraph, r: SolverResult) -> tuple[NDArray[np.int64], list[str]]:
    """Ids of the nodes whose move breaks the contract (in id order) and, per node, why."""
    cols = r.columns
    mv = cols[MOVE]
    cov = r.covered_mask()
    inner = g.out_degree > 0
    needs = _needs_move(g, r) & cov & inner
    has = mv.given & cov
    missing = needs & ~has
    named = np.where(has, np.asarray(mv.data, dtype=np.int64), -1)
    legal = has & is_a_move(g, named)
    illegal = has & ~legal
    target = np.where(legal, named, 0)
    wrong = legal & needs & ~_optimal(g, r, target)
    ids = np.flatnonzero(missing | illegal | wrong)
    why = [
        "no move named" if missing[x] else "not a move" if illegal[x] else "not optimal"
        for x in ids.tolist()
    ]
    return ids, why


def _needs_move(g: GameGraph, r: SolverResult) -> Bools:
    """Where the semantics publishes a move (the rows of the table above)."""
    return describe(g.semantics).needs_move(g, r.columns)


def impartial_draws(g: GameGraph, r: SolverResult) -> Bools:
    """Per node: is its value a draw (D), ``inf(K)`` with 0 not in ``K``?"""
    return grundy_draws(g, r.columns)


def _optimal(g: GameGraph, r: SolverResult, y: NDArray[np.int64]) -> Bools:
    """Per node: is the move to ``y[x]`` optimal (meaningful where a legal move is named)."""
    return describe(g.semantics).optimal_move(g, r.columns, y)


@check(NAME, list(Semantics), order=55, linear=True, proves={MOVE})
def check_moves(ctx: CheckContext) -> list[CheckResult]:
    """The move contract for every solver of the case's view that names moves."""
    return per_solver(ctx, describe(ctx.case.semantics).view, MOVE, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    ids, why = move_faults(g, r)
    name = f"{NAME} ({r.solver})"
    if len(ids) == 0:
        n = r.columns[MOVE].count
        return result(
            name,
            Verdict.CONFIRMED,
            f"{n} moves legal, present where required and optimal (the side ahead hurries, "
            "the side behind delays)",
            t0,
        )
    x = int(ids[0])
    mv = r.columns[MOVE].at(x)
    witness = {
        "node": g.name(x),
        "reason": why[0],
        "move": g.name(int(mv)) if mv is not None and 0 <= int(mv) < g.n else mv,
        "successors": {
            g.name(int(y)): describe(g.semantics).show_node(r.columns, int(y))
            for y in g.successors(x)
        },
        "faults": len(ids),
    }
    if REMOTENESS in r.columns:
        rem = r.columns[REMOTENESS]
        witness["remoteness"] = rem.at(x)
        witness["successors_remoteness"] = {g.name(int(y)): rem.at(int(y)) for y in g.successors(x)}
    return result(
        name,
        Verdict.REFUTED,
        f"move at {g.name(x)!r}: {why[0]} ({len(ids)} node(s) in all)",
        t0,
        witness,
    )
