"""Check 2: does (T+MM) (or the negamax form of the won/lost rules) have another solution?

``minimax``. The least and greatest fixpoints lfp <= gfp are computed by propagation
(``fixpoints``); Z3 confirms that both are solutions and that no solution leaves
[lfp(x), gfp(x)] anywhere (batched in reverse topological order of the SCCs; only cyclic
components and nodes next to free ones need a query, the others are fixed by their equation).
Then the solution is unique iff lfp = gfp. If not, every cyclic component holding free nodes is
asked, with everything outside it fixed to Kars' score, whether it has another solution (only
its free nodes can change: every solution lies in [lfp, gfp], so the query has variables for
them alone); each that does is a *source of freedom*, reported with the nodes that change and
one explicit cycle among them, and the first gives the witness: a second full solution (Z3's
alternative on the component, the nodes above it recomputed), verified by evaluation and by Z3.
The confirmed intervals are remembered for the graph (``common.remember``): smt-kars-least
reads them.

``normal``. Won and lost nodes are the same in every solution (they are derived with ranks; Z3
confirms the derivation without ranks); a solution that differs on the unknown nodes is looked
for (``verifier.smt.circular``: in linear time, confirmed by Z3; else Z3's search). One found is
a circular labelling, the witness.

Non-uniqueness is a finding: the check is refuted only when ``case.expect.unique`` or
``case.expect.intervals`` say otherwise.

The check also judges the solvers (``judge``): one more result, ``smt-bounds``, per distinct
answer of the case's view (``common.answers``), against what the check proved of *every*
solution. ``minimax``: each covered value lies in its node's interval [lfp, gfp] (so equals it
where lfp = gfp). ``normal``: each covered label equals the derived one. Z3 proved the derived
won/lost labels derivable, and that the labelling is a solution of the rules; a solution's
won/lost facts are closed under the derivation rules (a node with a lost successor is won, one
whose successors are all won is lost), so they contain every derivable fact: the won and lost
nodes are exactly the derivable ones and the unknown nodes exactly the others, which is what a
label means. A value outside the bounds is ``refuted`` at the first such node (witness: the
node, the solvers, the value, the proved interval, for labels their words); bounds that Z3 did
not prove make it ``unknown``. The uniqueness result itself is unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import about
from verifier.equations.fixpoints import BoolSystem, gfp, kars_clamp, lfp, reach_backward
from verifier.equations.rules import derivation_system, derived_labels, labelled_nodes
from verifier.equations.system import OrderSystem
from verifier.model.case import Case
from verifier.model.columns import VALUE
from verifier.model.describe import LABEL_WORDS, PerSemantics, describe
from verifier.model.graph import GameGraph, IntArray
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, Options, check
from verifier.smt.circular import SecondLabelling
from verifier.smt.cnf import Pending, SatStatus, solve, submit
from verifier.smt.common import (
    Answer,
    BatchResult,
    answers,
    batches,
    component_order,
    cycle_within,
    names_of,
    node_witness,
    pin_check,
    predecessors_of,
    recall,
    refuted_at,
    remember,
    result,
    run_batches,
)
from verifier.smt.encode import Encoding, derivation_cnf

__all__ = [
    "BOUNDS",
    "MAX_SOURCES",
    "Bounds",
    "Freedom",
    "Intervals",
    "check_uniqueness",
    "intervals",
    "judge",
    "uniqueness",
]

NAME = "smt-uniqueness"
BOUNDS = "smt-bounds"
"""The result judging every solver's answer against what ``NAME`` proved of every solution."""
MAX_SOURCES = 16
"""Cyclic components asked one by one whether they are a source of freedom (at most)."""
SHOW_NODES = 1000
"""Report per-node intervals / solutions in full up to this many nodes."""


@dataclass(frozen=True, eq=False)
class Intervals:
    """lfp and gfp as value indices, and what Z3 said about them."""

    sys: OrderSystem
    lo: IntArray
    hi: IntArray
    verdict: Verdict
    """CONFIRMED when Z3 proved both solutions and that no solution leaves [lo, hi]."""
    detail: str
    queries: int

    @property
    def kars(self) -> IntArray:
        return kars_clamp(self.sys, self.lo, self.hi)


@dataclass(frozen=True)
class Freedom:
    """A cyclic component that has another solution with everything below it fixed."""

    component: tuple[int, ...]
    changed: tuple[int, ...]
    """Nodes whose value differs in Z3's alternative."""
    cycle: tuple[int, ...]
    """One directed cycle among the changed nodes."""


@dataclass(frozen=True, eq=False)
class Bounds:
    """What the check proved of every solution: its value index lies in [lo, hi] at each node."""

    sys: OrderSystem
    lo: IntArray
    hi: IntArray


_BY_SEMANTICS: PerSemantics[Callable[[Case, Options], tuple[CheckResult, Bounds | None]]] = (
    PerSemantics("uniqueness check", "no {purpose} for {semantics} cases here")
)
"""The uniqueness check of each semantics that has one."""


def intervals(sys: OrderSystem, options: Options) -> Intervals:
    """lfp and gfp by propagation, confirmed by Z3 (solutions; nothing leaves [lfp, gfp]).

    A confirmed answer is remembered for these equations (``common.remember``): smt-kars-least
    reads it instead of asking its own universal question again."""
    known = recall("intervals", sys)
    if isinstance(known, Intervals):
        return known
    out = _intervals(sys, options)
    if out.verdict is Verdict.CONFIRMED:
        remember("intervals", sys, out)
    return out


def _intervals(sys: OrderSystem, options: Options) -> Intervals:
    g = sys.graph
    lo, hi = lfp(sys), gfp(sys)
    free = lo != hi
    near = free | predecessors_of(g, free)
    queries = 0
    for what, idx, eq in (("lfp", lo, None), ("gfp", hi, near)):
        br = pin_check(sys, idx, options, f"{NAME}: {what} is a solution", eq)
        queries += br.queries
        if br.status is not SatStatus.SAT:
            verdict = Verdict.UNKNOWN if br.status is SatStatus.UNKNOWN else Verdict.REFUTED
            return Intervals(sys, lo, hi, verdict, f"{what} not confirmed: {br.reason}", queries)
    # every solution s lies in [lfp, gfp]: for each threshold k, [s >= k] is a fixpoint of
    # the threshold system, so it contains lfp_k (derivable) and lies inside gfp_k (the
    # complement of gfp_k is derivable in the dual system); Z3 refutes a closed set missing
    # a derived node, batch by batch of whole SCCs in reverse topological order
    _, rank, _ = component_order(g)
    jobs: list[tuple[BoolSystem, NDArray[np.bool_], IntArray]] = []
    for k in range(1, sys.top + 1):
        b = BoolSystem.threshold(sys, k)
        for rules, target in ((b, lo >= k), (b.dual(), hi < k)):
            jobs.extend((rules, target, part) for part in batches(g, np.flatnonzero(target), rank))

    def query(job: tuple[BoolSystem, NDArray[np.bool_], IntArray]) -> Pending:
        rules, target, part = job
        inside = np.zeros(g.n, dtype=np.bool_)
        inside[part] = True
        return submit(derivation_cnf(rules, target, inside), options)

    br = run_batches(jobs, query, options, f"{NAME}: no solution leaves [lfp, gfp]")
    queries += br.queries
    if br.status is SatStatus.UNSAT:
        return Intervals(
            sys,
            lo,
            hi,
            Verdict.CONFIRMED,
            "Z3 confirms lfp and gfp are solutions and no solution leaves [lfp, gfp]",
            queries,
        )
    if br.status is SatStatus.UNKNOWN:
        return Intervals(sys, lo, hi, Verdict.UNKNOWN, f"Z3 unknown: {br.reason}", queries)
    return Intervals(
        sys,
        lo,
        hi,
        Verdict.REFUTED,
        "Z3 found a solution outside [lfp, gfp] (the propagation is wrong)",
        queries,
    )


def _sources(iv: Intervals, options: Options) -> tuple[list[Freedom], IntArray | None, int, str]:
    """Ask free cyclic components for another solution; build the full witness from the first."""
    sys, g = iv.sys, iv.sys.graph
    kars = iv.kars
    lab, rank, cyclic = component_order(g)
    free = iv.lo != iv.hi
    comp_rank = np.zeros(int(lab.max()) + 1 if len(lab) else 0, dtype=np.int64)
    comp_rank[lab] = rank
    comps = np.unique(lab[free & cyclic])
    comps = comps[np.argsort(comp_rank[comps], kind="stable")]
    found: list[Freedom] = []
    witness: IntArray | None = None
    reason = ""
    asked = 0
    for c in comps[:MAX_SOURCES]:
        options.report(f"{NAME}: sources of freedom", asked, min(len(comps), MAX_SOURCES))
        asked += 1
        comp = lab == c
        # Z3 proved every solution lies in [lfp, gfp], so the component's fixed nodes keep
        # their value in any alternative: variables for its free nodes only, equations for
        # them and their predecessors (the others read constants and hold, kars being a
        # solution), and "differs" over the free nodes.
        var = comp & free
        enc = Encoding.build(sys, eq=comp & (free | predecessors_of(g, var)), var=var, fixed=kars)
        enc.differs(np.flatnonzero(var), kars)
        out = solve(enc.cnf, options, want_model=True)
        if out.status is SatStatus.UNKNOWN:
            reason = out.reason
            continue
        if out.status is SatStatus.UNSAT or out.model is None:
            continue
        alt = enc.decode(out.model)
        changed = alt != kars
        found.append(
            Freedom(
                tuple(np.flatnonzero(comp).tolist()),
                tuple(np.flatnonzero(changed).tolist()),
                tuple(cycle_within(g, changed)),
            )
        )
        if witness is None:
            above = reach_backward(g.pred_ptr, g.pred_idx, comp) & ~comp
            witness = lfp(sys.with_fixed(~above, alt))
    return found, witness, asked, reason


def _expect_clash(case: Case, unique: bool, iv: Intervals | None) -> dict[str, Any] | None:
    e = case.expect
    g = case.graph
    if e is None:
        return None
    if e.unique is not None and e.unique != unique:
        return {"reason": f"the case expects unique={e.unique}", "unique": unique}
    if iv is not None:
        for i, (a, b) in sorted(e.intervals.items()):
            got = (float(iv.sys.levels[iv.lo[i]]), float(iv.sys.levels[iv.hi[i]]))
            if got != (float(a), float(b)):  # exact, like every value on the proof path
                return node_witness(
                    g,
                    i,
                    "interval differs from the case's expect block",
                    expected=[a, b],
                    interval=list(got),
                )
    return None


def _named(g: GameGraph, idx: IntArray, sys: OrderSystem, mask: NDArray[np.bool_]) -> Any:
    ids = np.flatnonzero(mask)[:SHOW_NODES]
    return {g.name(int(i)): float(sys.levels[idx[i]]) for i in ids}


def minimax_uniqueness(case: Case, options: Options) -> CheckResult:
    """Uniqueness of (T+MM), the intervals, the witness and the sources of freedom."""
    return _minimax(case, options)[0]


@_BY_SEMANTICS.register(Semantics.MINIMAX)
def _minimax(case: Case, options: Options) -> tuple[CheckResult, Bounds | None]:
    """``minimax_uniqueness`` and the intervals it proved (``None`` unless Z3 confirmed them)."""
    t0 = time.perf_counter()
    iv = intervals(OrderSystem.minimax(case.graph), options)
    proved = Bounds(iv.sys, iv.lo, iv.hi) if iv.verdict is Verdict.CONFIRMED else None
    return _minimax_result(case, iv, options, t0), proved


def _minimax_result(case: Case, iv: Intervals, options: Options, t0: float) -> CheckResult:
    """The uniqueness result of (T+MM) from its intervals."""
    ivdata = _interval_data(iv)
    free = iv.lo != iv.hi
    if iv.verdict is not Verdict.CONFIRMED:
        return result(NAME, iv.verdict, iv.detail, t0, queries=iv.queries)
    unique = not bool(free.any())
    base: dict[str, Any] = {"unique": unique, "intervals": ivdata, "free_nodes": int(free.sum())}
    if unique:
        clash = _expect_clash(case, True, iv)
        verdict = Verdict.REFUTED if clash else Verdict.CONFIRMED
        return result(
            NAME,
            verdict,
            f"unique: {iv.detail}; lfp = gfp",
            t0,
            clash,
            **base,
            queries=iv.queries,
        )
    return _not_unique(case, iv, base, options, t0)


def _interval_data(iv: Intervals) -> dict[str, list[float]]:
    """Node name -> [lfp, gfp] values: every node of a small graph, else the free ones (up to
    ``SHOW_NODES``)."""
    g, lv = iv.sys.graph, iv.sys.levels
    ids = range(g.n) if g.n <= SHOW_NODES else np.flatnonzero(iv.lo != iv.hi)[:SHOW_NODES]
    return {g.name(int(i)): [float(lv[iv.lo[i]]), float(lv[iv.hi[i]])] for i in ids}


def _not_unique(
    case: Case, iv: Intervals, base: dict[str, Any], options: Options, t0: float
) -> CheckResult:
    """lfp != gfp: the sources of freedom and a second solution, verified, as the witness."""
    sys, g = iv.sys, iv.sys.graph
    free = iv.lo != iv.hi
    found, wit, asked, reason = _sources(iv, options)
    kars = iv.kars
    if wit is None:
        msg = (
            f"Z3 unknown on every source query ({reason})"
            if reason
            else ("lfp != gfp but no cyclic component yielded another solution (internal error)")
        )
        return result(NAME, Verdict.UNKNOWN, msg, t0, **base)
    changed = wit != kars
    pin = _second_solution(sys, wit, changed, options)
    if pin is None:
        return result(
            NAME,
            Verdict.UNKNOWN,
            "the second solution did not verify (internal error)",
            t0,
            **base,
        )
    witness = _witness(sys, wit, kars, changed, found[0])
    clash = _expect_clash(case, False, iv)
    by_level = _solutions_by_level(iv, options) if g.n <= SHOW_NODES else None
    detail = (
        f"not unique: {int(free.sum())} nodes are free in [lfp, gfp]; "
        f"{len(found)} of {asked} free cyclic components asked are sources of freedom; "
        f"witness differs at {int(changed.sum())} nodes (cycle {' -> '.join(witness['cycle'])})"
    )
    return result(
        NAME,
        Verdict.REFUTED if clash else Verdict.CONFIRMED,
        detail,
        t0,
        clash or witness,
        **base,
        freedom=_freedom(g, found),
        components_asked=asked,
        queries=iv.queries + asked + pin.queries,
        solutions_by_level=by_level,
    )


def _second_solution(
    sys: OrderSystem, wit: IntArray, changed: NDArray[np.bool_], options: Options
) -> BatchResult | None:
    """The second solution verified by evaluation and by Z3 (its pin query), or ``None``."""
    g = sys.graph
    viol = sys.violations(wit)
    near = changed | predecessors_of(g, changed)
    pin = pin_check(sys, wit, options, f"{NAME}: witness is a solution", near)
    if len(viol) or not changed.any() or pin.status is not SatStatus.SAT:
        return None
    return pin


def _witness(
    sys: OrderSystem, wit: IntArray, kars: IntArray, changed: NDArray[np.bool_], first: Freedom
) -> dict[str, Any]:
    """The witness of non-uniqueness: where the second solution differs from Kars' score, the
    values of both there, and a cycle of the first source of freedom."""
    g = sys.graph
    witness = {
        "reason": "a second solution of (T+MM)",
        "node": g.name(int(np.flatnonzero(changed)[0])),
        "differs_at": [g.name(int(i)) for i in np.flatnonzero(changed)[:SHOW_NODES]],
        "values": _named(g, wit, sys, changed),
        "kars": _named(g, kars, sys, changed),
        "cycle": [g.name(i) for i in first.cycle],
    }
    if g.n <= SHOW_NODES:
        witness["solution"] = _named(g, wit, sys, np.ones(g.n, dtype=np.bool_))
    return witness


def _freedom(g: GameGraph, found: list[Freedom]) -> list[dict[str, list[str]]]:
    """The sources of freedom by name: component, changed nodes, one cycle."""
    return [
        {
            "component": [g.name(i) for i in f.component[:SHOW_NODES]],
            "changed": [g.name(i) for i in f.changed[:SHOW_NODES]],
            "cycle": [g.name(i) for i in f.cycle],
        }
        for f in found
    ]


def _solutions_by_level(iv: Intervals, options: Options) -> dict[str, Any] | None:
    """For each value v of the chain, the solution max(lfp, min(gfp, v)) on the free nodes,
    each confirmed by Z3: every value of every interval is attained (on Kars' Figure 1,
    a = c = v for every v in [b, d]). ``None`` if Z3 did not confirm one of them."""
    sys, g = iv.sys, iv.sys.graph
    free = iv.lo != iv.hi
    near = free | predecessors_of(g, free)
    out: dict[str, Any] = {}
    for v in range(int(iv.lo[free].min()), int(iv.hi[free].max()) + 1):
        sol = np.maximum(iv.lo, np.minimum(iv.hi, v))
        enc = Encoding.build(sys, eq=near, var=near, fixed=sol)
        enc.pin(sol)
        if solve(enc.cnf, options).status is not SatStatus.SAT:
            return None
        out[f"{sys.levels[v]:g}"] = _named(g, sol, sys, free)
    return out


def normal_uniqueness(case: Case, options: Options) -> CheckResult:
    """Does the negamax form of the won/lost rules have a solution besides the derived one?"""
    return _normal(case, options)[0]


@_BY_SEMANTICS.register(Semantics.NORMAL)
def _normal(case: Case, options: Options) -> tuple[CheckResult, Bounds | None]:
    """``normal_uniqueness`` and the labels it proved (``None`` unless Z3 confirmed both the
    derivation and that the labels are a solution)."""
    t0 = time.perf_counter()
    g = case.graph
    sys = OrderSystem.normal(g)
    labels, _ = derived_labels(g)
    decided = labels != 0
    must = labelled_nodes(labels)
    # the two Z3 questions are independent: both go to Z3 at once (smt-won-lost asks them too)
    asked = submit(derivation_cnf(derivation_system(g), must), options, memo=True)
    idx = labels + 1
    unknown = ~decided
    second = SecondLabelling(sys, idx, unknown, options) if unknown.any() else None
    der = asked.result()
    if der.status is not SatStatus.UNSAT:
        if second is not None:
            second.cancel()
        v = Verdict.UNKNOWN
        return result(NAME, v, f"Z3 did not confirm the derivation ({der.status})", t0), None
    pin = pin_check(sys, idx, options, f"{NAME}: labels are a solution")
    if pin.status is not SatStatus.SAT:
        if second is not None:
            second.cancel()
        return result(NAME, Verdict.UNKNOWN, f"labels not confirmed ({pin.reason})", t0), None
    # derivable labels (der) that are a solution (pin), so closed under the rules: exactly the
    # derivable ones (module docstring)
    proved = Bounds(sys, idx, idx)
    if second is None:
        return _normal_unique(case, "every node is won or lost", t0), proved
    found = second.result()
    if found.status is SatStatus.UNKNOWN:
        why = f"Z3 unknown: {found.reason}"
        return result(NAME, Verdict.UNKNOWN, why, t0, reason=found.reason), proved
    if found.status is SatStatus.UNSAT or found.alt is None:
        why = "Z3 finds no other labelling of the drawn nodes" if found.searched else found.reason
        return _normal_unique(case, why, t0), proved
    alt = found.alt
    changed = alt != idx
    if not changed.any():
        return result(NAME, Verdict.UNKNOWN, "Z3's second solution did not verify", t0), proved
    cyc = cycle_within(g, changed)
    witness = {
        "reason": "a circular labelling also satisfies the rules without ranks",
        "node": g.name(int(np.flatnonzero(changed)[0])),
        "labels": {
            g.name(int(i)): LABEL_WORDS[int(alt[i]) - 1]
            for i in np.flatnonzero(changed)[:SHOW_NODES]
        },
        "cycle": [g.name(i) for i in cyc],
    }
    clash = _expect_clash(case, False, None)
    res = result(
        NAME,
        Verdict.REFUTED if clash else Verdict.CONFIRMED,
        f"not unique: a circular labelling changes {int(changed.sum())} drawn nodes "
        f"(cycle {' -> '.join(witness['cycle'])})",
        t0,
        clash or witness,
        unique=False,
    )
    return res, proved


def _normal_unique(case: Case, why: str, t0: float) -> CheckResult:
    """The labelling is the only solution (``why``), unless the case expects otherwise."""
    clash = _expect_clash(case, True, None)
    verdict = Verdict.REFUTED if clash else Verdict.CONFIRMED
    return result(NAME, verdict, f"unique: {why}", t0, clash, unique=True)


def uniqueness(case: Case, options: Options | None = None) -> CheckResult:
    """The uniqueness check of a ``minimax`` or ``normal`` case (library entry point)."""
    return _uniqueness(case, options or Options())[0]


def _uniqueness(case: Case, options: Options) -> tuple[CheckResult, Bounds | None]:
    """The uniqueness result and the bounds it proved of every solution (``None``: none)."""
    return _BY_SEMANTICS[case.semantics](case, options)


def judge(proved: Bounds | None, ans: Answer) -> CheckResult:
    """``BOUNDS``: every covered value of ``ans`` lies in the bounds the check proved of every
    solution (``None``: not proved, ``unknown``); refuted at the first node that does not."""
    t0 = time.perf_counter()
    who = list(ans.solvers)
    if proved is None:
        why = f"{ans.label}: {NAME} did not prove the bounds of the solutions"
        return result(BOUNDS, Verdict.UNKNOWN, why, t0, solvers=who)
    sys, g = proved.sys, proved.sys.graph
    idx, bad = sys.to_index(ans.values)
    cov = ans.covered
    wrong = cov & (bad | (idx < proved.lo) | (idx > proved.hi))
    what = "label" if sys.negamax else "value"
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        lo, hi = (float(sys.levels[b[i]]) for b in (proved.lo, proved.hi))
        words = _label_words(sys, ans, i, lo, bool(bad[i]))
        if bad[i]:
            why = f"{what} is not one any solution can take"
        elif lo == hi:
            why = f"{what} differs from the one every solution has"
        else:
            why = f"{what} outside the interval [lfp, gfp] of every solution"
        return refuted_at(
            BOUNDS,
            g,
            ans,
            t0,
            i,
            why,
            solvers=who,
            value=float(ans.values[i]),
            interval=[lo, hi],
            **words,
            wrong_nodes=names_of(g, np.flatnonzero(wrong), first=i),
        )
    point = cov & (proved.lo == proved.hi)
    detail = (
        f"{ans.label}: each of the {int(cov.sum())} {what}s lies in the bounds {NAME} proved of "
        f"every solution (a single value at {int(point.sum())} of them)"
    )
    return result(BOUNDS, Verdict.CONFIRMED, detail, t0, solvers=who)


def _label_words(sys: OrderSystem, ans: Answer, i: int, proved: float, bad: bool) -> dict[str, str]:
    """For a labelling (``normal``): the words of the answer's label at ``i`` (unless ``bad``,
    not a label) and of the proved one; nothing for scores."""
    if not sys.negamax:
        return {}
    words = {"proved": LABEL_WORDS[int(proved)]}
    if not bad:
        words["label"] = LABEL_WORDS[int(ans.values[i])]
    return words


@check(NAME, [Semantics.MINIMAX, Semantics.NORMAL], order=20, proves={VALUE})
def check_uniqueness(ctx: CheckContext) -> list[CheckResult]:
    """Uniqueness of the equations, with witness, intervals and sources of freedom; then every
    solver's answer judged against the proved bounds (``BOUNDS``, one result per distinct
    answer)."""
    res, proved = _uniqueness(ctx.case, ctx.options)
    found = answers(ctx, describe(ctx.case.semantics).view)
    # the answers judged against the bounds vouch for their values; uniqueness is the equations'
    return [replace(res, proves=frozenset()), *(about(judge(proved, a), *a.solvers) for a in found)]
