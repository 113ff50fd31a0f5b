"""Check 4: the won/lost rules of ``normal`` games hold, with ranks, and the labelling is maximal.

For each distinct LABEL answer (+1 won / -1 lost / 0 unknown, mover's view):

1. the labels are a fixpoint of the rules "won iff some successor lost, lost iff all successors
   won" (Z3, negamax order encoding; shared with ``smt-equations``);
2. the won and lost labels are derivable without circular reasoning: Z3 proves every closed set
   of the rules contains them (rank-free Boolean query), and the solver's remoteness is checked
   as ranks by the linear certificate checker (``verifier.certificates``); up to ``RANK_LIMIT``
   rule nodes Z3 also finds integer ranks itself;
3. maximality: no ranked derivation labels a node the solver left unknown. A fixpoint whose
   labels are derivable is the least fixpoint, which every ranked derivation stays inside; up to
   ``RANK_LIMIT`` Z3 also refutes such a derivation directly with integer ranks;
4. without ranks the rules have extra solutions on cycles: Z3 looks for a circular labelling of
   the unknown nodes and reports it (a finding, not a failure).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.certificates import iter_won_lost
from verifier.errors import NotApplicable
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict, View
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import Pending, SatStatus, submit
from verifier.smt.common import (
    Answer,
    answers,
    culprit,
    names_of,
    pin_check,
    predecessors_of,
    refuted_at,
    result,
    screen,
)
from verifier.smt.encode import Encoding, derivation_cnf
from verifier.smt.ranks import RANK_LIMIT, ranked_derivable, ranked_maximal
from verifier.smt.rules import derivation_system
from verifier.smt.system import OrderSystem

__all__ = ["check_won_lost_rules", "won_lost"]

NAME = "smt-won-lost"
NAMES = {1: "won", -1: "lost", 0: "unknown"}


def won_lost(sys: OrderSystem, ans: Answer, options: Options) -> CheckResult:
    """Ranked won/lost rules, maximality and the rank-free circular witness for one answer."""
    t0 = time.perf_counter()
    g = sys.graph
    who = ans.label
    idx, early = screen(
        NAME,
        sys,
        ans,
        t0,
        partial="a partial labelling",
        bad="label of {node!r} is not +1, -1 or 0",
        reason="bad label",
    )
    if early is not None:
        return early
    labels = idx - 1

    def refuted(i: int, why: str, **more: Any) -> CheckResult:
        return refuted_at(NAME, g, ans, t0, i, why, label=NAMES[int(labels[i])], **more)

    def unknown(reason: str) -> CheckResult:
        return result(NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown ({reason})", t0, reason=reason)

    # 1. fixpoint of the rules (negamax form)
    pin = pin_check(sys, idx, options, f"{NAME} ({who}): rules hold")
    if pin.status is SatStatus.UNKNOWN:
        return unknown(pin.reason)
    if pin.status is SatStatus.UNSAT:
        viol = sys.violations(idx)
        if len(viol) == 0:
            return unknown("Z3 refutes the rules but no node's rule fails (internal error)")
        i = culprit(g, viol)
        return refuted(i, "the won/lost rule fails", failing_nodes=names_of(g, viol, first=i))
    # 2. derivable without circular reasoning (rank-free) and the given ranks
    rules = derivation_system(g)
    labelled = np.zeros(2 * g.n, dtype=np.bool_)
    labelled[0::2] = labels == 1
    labelled[1::2] = labels == -1
    # independent Z3 questions go to Z3 at once (smt-uniqueness asks the same two: memo);
    # the linear rank certificate is checked meanwhile
    # (derivations through labelled nodes only: the labels are a fixpoint (1.), so every
    # derivable node is labelled and no derivation needs another one)
    asked = submit(derivation_cnf(rules, labelled), options, want_model=True, memo=True)
    unk = labels == 0
    circular = _circular(sys, idx, unk, options) if unk.any() else None
    bad_ranks = (
        []
        if ans.remoteness is None
        else list(iter_won_lost(g, labels.tolist(), ans.remoteness.tolist()))
    )
    der = asked.result()
    if der.status is not SatStatus.UNSAT and circular is not None:
        circular[1].cancel()
    if der.status is SatStatus.UNKNOWN:
        return unknown(der.reason)
    if der.status is SatStatus.SAT and der.model is not None:
        ids = np.flatnonzero(labelled)  # derivation_cnf numbers them 2, 3, ...
        closed = der.model[np.arange(len(ids)) + 2]
        i = int(ids[~closed][0]) // 2
        return refuted(i, "label is not derivable by the ranked rules (circular reasoning)")
    notes = ["labels are a fixpoint of the rules (Z3)", "won/lost derivable (Z3, rank-free)"]
    if ans.remoteness is not None:
        if bad_ranks:
            ids = np.unique([v.id for v in bad_ranks])
            i = culprit(g, ids)
            why = next(v.reason for v in bad_ranks if v.id == i)
            return refuted(
                i, why, rank=int(ans.remoteness[i]), failing_nodes=names_of(g, ids, first=i)
            )
        notes.append("remoteness checked as ranks (linear certificate)")
    # 3. maximality
    if rules.n <= RANK_LIMIT:
        rd = ranked_derivable(rules, labelled, options)
        if rd.status is SatStatus.UNKNOWN:
            return unknown(rd.reason)
        if rd.status is SatStatus.UNSAT:
            i = int(np.flatnonzero(labelled)[0]) // 2
            return refuted(i, "Z3 finds no integer ranks deriving the labels")
        mx, node = ranked_maximal(rules, labelled, options)
        if mx.status is SatStatus.UNKNOWN:
            return unknown(mx.reason)
        if mx.status is SatStatus.SAT:
            i = (node or 0) // 2
            return refuted(i, "a ranked derivation labels a node the solver left unknown")
        notes.append("Z3 with integer ranks: ranks exist and no ranked derivation labels more")
    else:
        notes.append(
            f"maximal because a fixpoint with derivable labels is the least fixpoint "
            f"(integer ranks in Z3 skipped above {RANK_LIMIT} rule nodes: they do not scale)"
        )
    # 4. circular labellings without ranks
    extra: dict[str, Any] | None = None
    if circular is not None:
        enc, pending = circular
        out = pending.result()
        if out.status is SatStatus.SAT and out.model is not None:
            alt = enc.decode(out.model)
            ch = np.flatnonzero(alt != idx)[:50]
            extra = {g.name(int(i)): NAMES[int(alt[i]) - 1] for i in ch}
    return result(
        NAME,
        Verdict.CONFIRMED,
        f"{who}: " + "; ".join(notes),
        t0,
        solvers=list(ans.solvers),
        maximal=True,
        circular_solution_without_ranks=extra,
        integer_ranks=bool(rules.n <= RANK_LIMIT),
    )


def _circular(
    sys: OrderSystem, idx: IntArray, unk: NDArray[np.bool_], options: Options
) -> tuple[Encoding, Pending]:
    """Z3 asked for a labelling of the unknown nodes that differs and satisfies the rules."""
    near = unk | predecessors_of(sys.graph, unk)
    enc = Encoding.build(sys, eq=near, var=unk, fixed=idx)
    enc.differs(np.flatnonzero(unk), idx)
    return enc, submit(enc.cnf, options, want_model=True, memo=True)


@check(NAME, [Semantics.NORMAL], order=40)
def check_won_lost_rules(ctx: CheckContext) -> list[CheckResult]:
    """Ranked won/lost rules and maximality for each distinct LABEL answer."""
    found = answers(ctx, View.LABEL)
    if not found:
        raise NotApplicable("no solver answered with won/lost labels")
    sys = OrderSystem.normal(ctx.case.graph)
    return [won_lost(sys, a, ctx.options) for a in found]
