"""Check 5: the attractor certificate of a ``reachability`` answer.

For each distinct REGION answer W (with its layers when the solver gives them):

1. W with its layers is closed under the ranked rules (targets at layer 0; a player-0 node has a
   successor in W of smaller layer; a player-1 node has a move and all its successors are in W
   with smaller layers): Z3 proves every rule-closed set contains W (rank-free), up to
   ``RANK_LIMIT`` nodes Z3 also finds integer ranks, and the solver's layers are checked by the
   linear certificate checker;
2. the complement of W is a trap for player 0: W is closed under the rules (F(W) ⊆ W), so from
   outside W player 0 cannot move in and player 1 always can stay out (Z3, and the certificate).

Together: W is the least fixpoint, the attractor of the targets.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.certificate_arrays import checker
from verifier.checks.common import about
from verifier.equations.fixpoints import BoolSystem, least
from verifier.equations.rules import region_system
from verifier.equations.system import OrderSystem
from verifier.errors import NotApplicable
from verifier.model.columns import REMOTENESS, VALUE
from verifier.model.describe import describe
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import Cnf, SatStatus, solve, submit
from verifier.smt.common import Answer, answers, culprit, names_of, refuted_at, result, screen
from verifier.smt.encode import prefixpoint_cnf
from verifier.smt.ranks import RANK_LIMIT, ranked_derivable

__all__ = ["attractor_certificate", "check_attractor_certificate", "derivable_query", "trap_query"]

NAME = "smt-attractor"


def derivable_query(rules: BoolSystem, w: NDArray[np.bool_]) -> Cnf:
    """Z3 question 1: a set closed under the rules that misses a node of W (``UNSAT``: every
    rule-closed set contains W, so W is derivable; a model is a closed set missing one)."""
    return prefixpoint_cnf(rules, must=w)


def trap_query(rules: BoolSystem, w: NDArray[np.bool_]) -> Cnf:
    """Z3 question 2: W itself is closed under the rules (``SAT``: the complement of W is a
    trap for player 0)."""
    return prefixpoint_cnf(rules, pin=w)


def attractor_certificate(sys: OrderSystem, ans: Answer, options: Options) -> CheckResult:
    """Z3 and the certificate checker confirm W is the attractor (closed + trap)."""
    t0 = time.perf_counter()
    g = sys.graph
    who = ans.label
    idx, early = screen(
        NAME,
        sys,
        ans,
        t0,
        partial="a partial region",
        bad="region value of {node!r} is not 0 or 1",
        reason="bad region value",
    )
    if early is not None:
        return early
    w = describe(g.semantics).wins(sys.to_values(idx))  # W: player 0 wins
    rules = region_system(g)

    def refuted(i: int, why: str, **more: Any) -> CheckResult:
        return refuted_at(NAME, g, ans, t0, i, why, in_region=bool(w[i]), **more)

    # the two Z3 questions go to Z3 at once; the linear certificate is checked meanwhile
    # (question 1 over the rules of W alone first: enough when W is right, prefixpoint_cnf)
    asked = submit(prefixpoint_cnf(rules, must=w, within=w), options, want_model=True)
    trapped = submit(trap_query(rules, w), options)
    layers = ans.ranks
    certs = list(checker(g.n).iter_attractor(g, w, layers))
    # 1. closed under the ranked rules: every rule-closed set contains W
    der = asked.result()
    if der.status is SatStatus.SAT:  # the part proves nothing: the whole question decides
        der = solve(derivable_query(rules, w), options, want_model=True)
    if der.status is not SatStatus.UNSAT:
        trapped.cancel()
    if der.status is SatStatus.UNKNOWN:
        return result(NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown ({der.reason})", t0)
    if der.status is SatStatus.SAT and der.model is not None:
        closed = der.model[np.arange(g.n) + 2]
        return refuted(int(np.flatnonzero(w & ~closed)[0]), "not derivable: player 0 cannot force")
    # 2. the complement is a trap for player 0: W is closed under the rules
    trap = trapped.result()
    if trap.status is SatStatus.UNKNOWN:
        return result(NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown ({trap.reason})", t0)
    if trap.status is SatStatus.UNSAT:
        lfp = least(rules)
        out = np.flatnonzero(lfp & ~w)
        i = int(out[0]) if len(out) else 0
        return refuted(i, "the complement is not a trap for player 0 (node belongs to W)")
    notes = ["Z3: W is contained in every rule-closed set", "Z3: the complement is a trap"]
    if certs:
        ids = np.unique([v.id for v in certs])
        i = culprit(g, ids)
        why = next(v.reason for v in certs if v.id == i)
        return refuted(i, why, failing_nodes=names_of(g, ids, first=i))
    notes.append("certificate (layers) checked" if layers is not None else "certificate checked")
    if g.n <= RANK_LIMIT:
        rd = ranked_derivable(rules, w, options)
        if rd.status is not SatStatus.SAT:
            v = Verdict.UNKNOWN if rd.status is SatStatus.UNKNOWN else Verdict.REFUTED
            return result(NAME, v, f"{who}: Z3 found no integer ranks ({rd.reason})", t0)
        notes.append("Z3 found integer ranks")
    else:
        notes.append(f"integer ranks skipped above {RANK_LIMIT} nodes")
    return result(
        NAME, Verdict.CONFIRMED, f"{who}: " + "; ".join(notes), t0, solvers=list(ans.solvers)
    )


@check(NAME, [Semantics.REACHABILITY], order=40, proves={VALUE, REMOTENESS})
def check_attractor_certificate(ctx: CheckContext) -> list[CheckResult]:
    """The attractor certificate for each distinct REGION answer."""
    g = ctx.case.graph
    found = answers(ctx, describe(g.semantics).view)
    if not found:
        raise NotApplicable("no solver answered with a region")
    sys = OrderSystem.reachability(g)
    return [about(attractor_certificate(sys, a, ctx.options), *a.solvers) for a in found]
