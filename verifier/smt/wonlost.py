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
4. without ranks the rules have extra solutions on cycles: a circular labelling of the unknown
   nodes is looked for (in linear time, confirmed by Z3, else by Z3's search:
   ``verifier.smt.circular``) and reported (a finding, not a failure).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.certificate_arrays import checker
from verifier.certificates import Violation
from verifier.checks.common import about
from verifier.equations.fixpoints import BoolSystem
from verifier.equations.rules import derivation_system, labelled_nodes
from verifier.equations.system import OrderSystem
from verifier.errors import NotApplicable
from verifier.model.columns import REMOTENESS, VALUE
from verifier.model.describe import LABEL_WORDS, describe
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, Options, check
from verifier.smt.circular import SecondLabelling
from verifier.smt.cnf import Pending, SatStatus, submit
from verifier.smt.common import (
    Answer,
    answers,
    culprit,
    names_of,
    pin_check,
    refuted_at,
    result,
    screen,
)
from verifier.smt.encode import derivation_cnf
from verifier.smt.ranks import RANK_LIMIT, ranked_derivable, ranked_maximal

__all__ = ["check_won_lost_rules", "won_lost"]

NAME = "smt-won-lost"

Notes = list[str]
"""What a step proved, for the detail of a confirmed check."""


@dataclass(frozen=True, eq=False)
class _Labelling:
    """One LABEL answer under check: its value indices and how its outcomes are written."""

    sys: OrderSystem
    ans: Answer
    idx: IntArray
    t0: float

    @property
    def labels(self) -> IntArray:
        """+1 won, -1 lost, 0 unknown (the negamax system's values)."""
        return self.idx - 1

    def refuted(self, i: int, why: str, **more: Any) -> CheckResult:
        """Refuted at node ``i`` (the witness names its label)."""
        word = LABEL_WORDS[int(self.labels[i])]
        return refuted_at(NAME, self.sys.graph, self.ans, self.t0, i, why, label=word, **more)

    def unknown(self, reason: str) -> CheckResult:
        """Z3 did not decide."""
        return result(
            NAME,
            Verdict.UNKNOWN,
            f"{self.ans.label}: Z3 unknown ({reason})",
            self.t0,
            reason=reason,
        )


def won_lost(sys: OrderSystem, ans: Answer, options: Options) -> CheckResult:
    """Ranked won/lost rules, maximality and the rank-free circular witness for one answer."""
    t0 = time.perf_counter()
    g = sys.graph
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
    run = _Labelling(sys, ans, idx, t0)
    fixpoint = _rules_hold(run, options)
    if isinstance(fixpoint, CheckResult):
        return fixpoint
    rules = derivation_system(g)
    labelled = labelled_nodes(run.labels)
    # independent Z3 questions go to Z3 at once (smt-uniqueness asks the same two: memo);
    # the linear rank certificate is checked meanwhile
    # (derivations through labelled nodes only: the labels are a fixpoint (1.), so every
    # derivable node is labelled and no derivation needs another one)
    asked = submit(derivation_cnf(rules, labelled), options, want_model=True, memo=True)
    unk = run.labels == 0
    circular = SecondLabelling(sys, idx, unk, options) if unk.any() else None
    ranks = ans.ranks
    bad_ranks = [] if ranks is None else list(checker(g.n).iter_won_lost(g, run.labels, ranks))
    derived = _derivable(run, labelled, asked, circular)
    if isinstance(derived, CheckResult):
        return derived
    ranked = _ranks_hold(run, bad_ranks)
    if isinstance(ranked, CheckResult):
        return ranked
    maximal = _maximal(run, rules, labelled, options)
    if isinstance(maximal, CheckResult):
        return maximal
    return result(
        NAME,
        Verdict.CONFIRMED,
        f"{ans.label}: " + "; ".join([*fixpoint, *derived, *ranked, *maximal]),
        t0,
        solvers=list(ans.solvers),
        maximal=True,
        circular_solution_without_ranks=_circular_labelling(run, circular),
        integer_ranks=bool(rules.n <= RANK_LIMIT),
    )


def _rules_hold(run: _Labelling, options: Options) -> CheckResult | Notes:
    """1. The labels are a fixpoint of the rules (negamax form, Z3)."""
    sys, g = run.sys, run.sys.graph
    pin = pin_check(sys, run.idx, options, f"{NAME} ({run.ans.label}): rules hold")
    if pin.status is SatStatus.UNKNOWN:
        return run.unknown(pin.reason)
    if pin.status is SatStatus.UNSAT:
        viol = sys.violations(run.idx)
        if len(viol) == 0:
            return run.unknown("Z3 refutes the rules but no node's rule fails (internal error)")
        i = culprit(g, viol)
        return run.refuted(i, "the won/lost rule fails", failing_nodes=names_of(g, viol, first=i))
    return ["labels are a fixpoint of the rules (Z3)"]


def _derivable(
    run: _Labelling,
    labelled: NDArray[np.bool_],
    asked: Pending,
    circular: SecondLabelling | None,
) -> CheckResult | Notes:
    """2. Every won and lost label is derivable without circular reasoning (Z3, rank-free):
    every closed set of the rules contains them."""
    der = asked.result()
    if der.status is not SatStatus.UNSAT and circular is not None:
        circular.cancel()
    if der.status is SatStatus.UNKNOWN:
        return run.unknown(der.reason)
    if der.status is SatStatus.SAT and der.model is not None:
        ids = np.flatnonzero(labelled)  # derivation_cnf numbers them 2, 3, ...
        closed = der.model[np.arange(len(ids)) + 2]
        i = int(ids[~closed][0]) // 2
        return run.refuted(i, "label is not derivable by the ranked rules (circular reasoning)")
    return ["won/lost derivable (Z3, rank-free)"]


def _ranks_hold(run: _Labelling, bad_ranks: list[Violation]) -> CheckResult | Notes:
    """2'. The solver's remoteness, checked as ranks by the linear certificate checker."""
    ranks = run.ans.ranks
    if ranks is None:
        return []
    if bad_ranks:
        g = run.sys.graph
        ids = np.unique([v.id for v in bad_ranks])
        i = culprit(g, ids)
        why = next(v.reason for v in bad_ranks if v.id == i)
        return run.refuted(i, why, rank=int(ranks[i]), failing_nodes=names_of(g, ids, first=i))
    return ["remoteness checked as ranks (linear certificate)"]


def _maximal(
    run: _Labelling, rules: BoolSystem, labelled: NDArray[np.bool_], options: Options
) -> CheckResult | Notes:
    """3. Maximality: no ranked derivation labels a node the solver left unknown (Z3 with
    integer ranks up to ``RANK_LIMIT`` rule nodes; above, by the theory)."""
    if rules.n > RANK_LIMIT:
        return [
            f"maximal because a fixpoint with derivable labels is the least fixpoint "
            f"(integer ranks in Z3 skipped above {RANK_LIMIT} rule nodes: they do not scale)"
        ]
    rd = ranked_derivable(rules, labelled, options)
    if rd.status is SatStatus.UNKNOWN:
        return run.unknown(rd.reason)
    if rd.status is SatStatus.UNSAT:
        i = int(np.flatnonzero(labelled)[0]) // 2
        return run.refuted(i, "Z3 finds no integer ranks deriving the labels")
    mx, node = ranked_maximal(rules, labelled, options)
    if mx.status is SatStatus.UNKNOWN:
        return run.unknown(mx.reason)
    if mx.status is SatStatus.SAT:
        i = (node or 0) // 2
        return run.refuted(i, "a ranked derivation labels a node the solver left a draw")
    return ["Z3 with integer ranks: ranks exist and no ranked derivation labels more"]


def _circular_labelling(run: _Labelling, circular: SecondLabelling | None) -> dict[str, Any] | None:
    """4. A circular labelling of the unknown nodes, which the rules allow without ranks
    (node name -> label, up to 50 changed nodes; ``None`` if there is none): found in linear
    time and confirmed by Z3, or Z3's."""
    if circular is None:
        return None
    found = circular.result()
    if found.status is not SatStatus.SAT or found.alt is None:
        return None
    g = run.sys.graph
    ch = np.flatnonzero(found.alt != run.idx)[:50]
    return {g.name(int(i)): LABEL_WORDS[int(found.alt[i]) - 1] for i in ch}


@check(NAME, [Semantics.NORMAL], order=40, proves={VALUE, REMOTENESS})
def check_won_lost_rules(ctx: CheckContext) -> list[CheckResult]:
    """Ranked won/lost rules and maximality for each distinct LABEL answer."""
    g = ctx.case.graph
    found = answers(ctx, describe(g.semantics).view)
    if not found:
        raise NotApplicable("no solver answered with won/lost labels")
    sys = OrderSystem.normal(g)
    return [about(won_lost(sys, a, ctx.options), *a.solvers) for a in found]
