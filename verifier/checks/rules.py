"""Check ``rules``: every node's local rule, evaluated directly on a solver's own values.

The rule of each semantics, at each node whose value and successors' values the solver gives:

| semantics | rule |
|---|---|
| minimax | (T+MM): a leaf's score is t(x); Max takes the max, Min the min of its successors' |
| normal | negamax on labels: won iff a successor is lost, lost iff every successor is won |
| reachability | a target is won by player 0; player 0 needs one winning successor, player 1 all |
| impartial | a finite Grundy value is the mex of its finite options' values |

One vectorized pass over the edges (``OrderSystem.apply``, ``mex_failures``): linear, no Z3,
any size. It is the local half of a proof; the global half (no circular justification: ranks,
remoteness, the least fixpoint) is the agreement with a solver that computes the least
fixpoint, the remoteness and move checks, and, in a full run, the Z3 checks. A value outside
the graph's value set (a score that is no leaf's value nor 0) breaks the rule too.
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import per_solver, result
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import describe
from verifier.model.semantics import Semantics
from verifier.model.topology import culprit
from verifier.registry import CheckContext, check

__all__ = ["NAME", "rule_faults"]

NAME = "rules"


def rule_faults(g: GameGraph, r: SolverResult) -> NDArray[np.int64]:
    """Ids of the nodes whose given value breaks its local rule, given its successors' values
    (nodes with a successor whose value is not given are not judged)."""
    cols = r.columns
    val = cols[VALUE]
    loopy = cols.get(LOOPY)
    infinite = loopy.given if loopy is not None else np.zeros(g.n, dtype=np.bool_)
    known = np.asarray(val.given, dtype=np.bool_) | infinite
    judged = np.asarray(val.given, dtype=np.bool_)
    if not known.all():  # judge only nodes whose successors' values are all given
        judged = judged & (np.bincount(g.edge_src[~known[g.succ_idx]], minlength=g.n) == 0)
    d = describe(g.semantics)
    if not d.has_order:  # the mex equations
        values = np.where(val.given & ~infinite, np.asarray(val.data, dtype=np.int64), -1)
        from verifier.smt.mex import mex_failures

        return mex_failures(g, values, np.flatnonzero(judged & ~infinite)).astype(np.int64)
    assert d.equations is not None
    system = d.equations(g)
    idx, bad = system.to_index(np.where(val.given, val.data, 0))
    if bad[val.given].any():  # a value outside the value set: its own fault, and its neighbours'
        return np.flatnonzero(val.given & bad).astype(np.int64)
    return np.flatnonzero(judged & (system.apply(idx) != idx)).astype(np.int64)


@check(NAME, list(Semantics), order=5, linear=True)
def check_rules(ctx: CheckContext) -> list[CheckResult]:
    """The local rules, on every solver's values."""
    return per_solver(ctx, describe(ctx.case.semantics).view, VALUE, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    bad = rule_faults(g, r)
    if len(bad) == 0:
        n = int(r.columns[VALUE].given.sum())
        return result(name, Verdict.CONFIRMED, f"{n} values keep their local rule", t0)
    x = culprit(g, bad)  # the value that breaks its rule, not a predecessor reading it
    d = describe(g.semantics)
    witness = {
        "node": g.name(x),
        "value": d.show_node(r.columns, x),
        "successors": {g.name(int(y)): d.show_node(r.columns, int(y)) for y in g.successors(x)},
        "faults": len(bad),
    }
    return result(
        name,
        Verdict.REFUTED,
        f"{g.name(x)!r} = {witness['value']} breaks its local rule ({len(bad)} node(s) in all)",
        t0,
        witness,
    )
