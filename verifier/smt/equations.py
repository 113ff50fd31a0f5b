"""Check 1: every solver's answer satisfies the equations of its semantics (Z3).

``minimax``: (T+MM) for each distinct SCORE answer; ``normal``: the negamax form of the won/lost
rules for each LABEL answer (+1 / -1 / 0); ``reachability``: the region equations (player 0 OR,
player 1 AND, targets 1, other dead ends 0) for each REGION answer. A refutation names a node
whose equation fails (found by evaluating the equation, after Z3 said unsat).
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import about
from verifier.equations.system import OrderSystem
from verifier.model.columns import VALUE
from verifier.model.describe import describe
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.model.words import count
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import Cnf, SatStatus, solve
from verifier.smt.common import (
    Answer,
    answers,
    culprit,
    names_of,
    node_witness,
    pin_check,
    result,
)
from verifier.smt.encode import Encoding

__all__ = ["check_equations", "equations_hold", "extension_query"]

NAME = "smt-equations"


def equations_hold(
    sys: OrderSystem, ans: Answer, options: Options, name: str = NAME
) -> CheckResult:
    """Z3 decides whether the answer (on the nodes it covers) satisfies the equations."""
    t0 = time.perf_counter()
    idx, bad = sys.to_index(ans.values)
    outside = _outside_value_set(sys, ans, bad & ans.covered, name, t0)
    if outside is not None:
        return outside
    status, reason, queries = _ask(sys, ans, idx, options, name)
    if status is SatStatus.UNKNOWN:
        return result(
            name,
            Verdict.UNKNOWN,
            f"{ans.label}: Z3 unknown ({reason})",
            t0,
            solvers=list(ans.solvers),
            reason=reason,
        )
    cov = ans.covered
    viol = sys.violations(idx) if cov.all() else _partial_culprit(sys, idx, cov)
    if status is SatStatus.SAT:
        return _holds(sys, ans, viol, queries, name, t0)
    return _fails(sys, ans, idx, viol, name, t0)


def _outside_value_set(
    sys: OrderSystem, ans: Answer, bad: NDArray[np.bool_], name: str, t0: float
) -> CheckResult | None:
    """Refuted at the first covered node whose value is not in the value set (if any)."""
    if not bad.any():
        return None
    g = sys.graph
    i = int(np.flatnonzero(bad)[0])
    return result(
        name,
        Verdict.REFUTED,
        f"{ans.label}: value of {g.name(i)!r} is not in the value set",
        t0,
        node_witness(
            g,
            i,
            "value outside the value set",
            value=float(ans.values[i]),
            levels=sys.levels.tolist(),
        ),
        solvers=list(ans.solvers),
    )


def _ask(
    sys: OrderSystem, ans: Answer, idx: IntArray, options: Options, name: str
) -> tuple[SatStatus, str, int]:
    """Z3's status (``SAT``: the equations hold), its reason and the number of queries: a
    complete answer is pinned; a partial one must be extended by some solution."""
    cov = ans.covered
    if cov.all():
        br = pin_check(sys, idx, options, f"{name} ({ans.label})")
        return br.status, br.reason, br.queries
    out = solve(extension_query(sys, idx, cov), options)
    return out.status, out.reason, 1


def extension_query(sys: OrderSystem, idx: IntArray, covered: NDArray[np.bool_]) -> Cnf:
    """Z3 question for a partial answer: a solution of the equations with the values ``idx`` on
    the ``covered`` nodes (``SAT``: some solution extends the answer)."""
    enc = Encoding.build(sys)
    enc.pin(idx, np.flatnonzero(covered))
    return enc.cnf


def _holds(
    sys: OrderSystem, ans: Answer, viol: IntArray, queries: int, name: str, t0: float
) -> CheckResult:
    """Z3 says the equations hold: confirmed, unless evaluation disagrees at some node."""
    g = sys.graph
    complete = bool(ans.covered.all())
    if len(viol) and complete:
        i = int(viol[0])
        return result(
            name,
            Verdict.UNKNOWN,
            f"{ans.label}: Z3 says the equations hold but {g.name(i)!r}'s fails on "
            "evaluation (internal disagreement)",
            t0,
            node_witness(g, i, "disagreement"),
            solvers=list(ans.solvers),
        )
    what = "every equation holds" if complete else "some solution extends the answer"
    return result(
        name,
        Verdict.CONFIRMED,
        f"{ans.label}: Z3 confirms {what} ({count(queries, 'query')})",
        t0,
        solvers=list(ans.solvers),
        queries=queries,
    )


def _fails(
    sys: OrderSystem, ans: Answer, idx: IntArray, viol: IntArray, name: str, t0: float
) -> CheckResult:
    """Z3 says the equations fail: refuted at the culprit among the failing nodes (or, for a
    partial answer no solution extends, naming the covered nodes)."""
    g = sys.graph
    if len(viol) == 0:
        return result(
            name,
            Verdict.REFUTED,
            f"{ans.label}: Z3 finds no solution that extends the partial answer",
            t0,
            {
                "reason": "no solution extends the covered values",
                "nodes": [g.name(int(i)) for i in np.flatnonzero(ans.covered)[:20]],
            },
            solvers=list(ans.solvers),
        )
    i = culprit(g, viol)
    rhs = sys.apply(idx)
    return result(
        name,
        Verdict.REFUTED,
        f"{ans.label}: the equation of {g.name(i)!r} fails ({len(viol)} nodes in all)",
        t0,
        node_witness(
            g,
            i,
            "equation fails",
            value=float(sys.levels[idx[i]]),
            right_hand_side=float(sys.levels[rhs[i]]),
            failing=len(viol),
            failing_nodes=names_of(g, viol, first=i),
        ),
        solvers=list(ans.solvers),
    )


def _partial_culprit(sys: OrderSystem, idx: IntArray, cov: NDArray[np.bool_]) -> IntArray:
    """For a partial answer: covered nodes outside [lfp, gfp] (monotone systems only)."""
    if sys.negamax:
        return np.zeros(0, dtype=np.int64)
    from verifier.equations.fixpoints import gfp, lfp

    lo, hi = lfp(sys), gfp(sys)
    return np.flatnonzero(cov & ((idx < lo) | (idx > hi)))


@check(
    NAME,
    [Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY],
    order=10,
    proves={VALUE},
)
def check_equations(ctx: CheckContext) -> list[CheckResult]:
    """(T+MM) / negamax / region equations for each distinct answer of the case's view."""
    from verifier.errors import NotApplicable

    g = ctx.case.graph
    view = describe(g.semantics).view
    found = answers(ctx, view)
    if not found:
        raise NotApplicable(f"no solver answered with the {view.value} view")
    sys = OrderSystem.for_graph(g)
    return [about(equations_hold(sys, a, ctx.options), *a.solvers) for a in found]
