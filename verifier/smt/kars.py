"""Check 3: Kars' draw score is a solution of (T+MM) and the least one in Kars' order <=_1.

Kars Def. 5.1: ``a <=_1 b`` iff ``b <= a < 0`` or ``a = 0`` or ``0 < a <= b`` (values grow away
from the draw). For each distinct SCORE answer Z3 confirms (T+MM) and that no solution s' has
NOT (kars <=_V s'), i.e. none is closer to the draw anywhere. A least element of a partial
order is unique, so the number of solutions closest to the draw is one.

When the answer is max(lfp, min(gfp, 0)) and Z3 has proved that no solution leaves
[lfp, gfp] (``uniqueness.intervals``, shared with smt-uniqueness, asked once per graph), that
proof is the "no solution" part: where the answer is > 0 it equals lfp <= s', where < 0 it
equals gfp >= s'. Otherwise Z3 is asked directly, batched in reverse topological order of the
SCCs: a batch's successors outside it were proved in earlier batches to satisfy kars <=_1 s',
so they are constrained that way (``docs/smt.md``).
"""

from __future__ import annotations

import time

import numpy as np

from verifier.checks.common import about
from verifier.equations.fixpoints import gfp, kars_clamp, lfp
from verifier.equations.system import OrderSystem
from verifier.model.columns import VALUE
from verifier.model.describe import describe
from verifier.model.graph import IntArray
from verifier.model.results import CheckResult, Verdict
from verifier.model.semantics import Semantics
from verifier.model.words import count
from verifier.registry import CheckContext, Options, check
from verifier.smt.cnf import SatOutcome, SatStatus, solve
from verifier.smt.common import (
    Answer,
    BatchResult,
    answers,
    batches,
    component_order,
    culprit,
    names_of,
    node_witness,
    pin_check,
    result,
    run_batches,
    screen,
    successors_of,
)
from verifier.smt.encode import Encoding
from verifier.smt.uniqueness import NAME as UNIQUENESS
from verifier.smt.uniqueness import Intervals, intervals

__all__ = ["check_kars_least", "closer_query", "kars_least"]

NAME = "smt-kars-least"


def _partial_least(
    sys: OrderSystem, ans: Answer, idx: IntArray, options: Options, t0: float
) -> CheckResult:
    """A partial answer (Alg. 6.7 / 7.2 from some roots, or a capped search) is judged on the
    nodes it covers: each must carry Kars' score there, max(lfp, min(gfp, 0)), with [lfp, gfp]
    proved by Z3 (``uniqueness.intervals``, shared with smt-uniqueness)."""
    g = sys.graph
    cov = ans.covered
    iv = intervals(sys, options)
    if iv.verdict is not Verdict.CONFIRMED:
        why = f"the solution intervals are not proved ({iv.detail})"
        return result(NAME, Verdict.UNKNOWN, f"{ans.label}: {why}", t0)
    kars = iv.kars
    diff = np.flatnonzero(cov & (idx != kars))
    if len(diff):
        i = int(diff[0])
        return result(
            NAME,
            Verdict.REFUTED,
            f"{ans.label}: {g.name(i)!r} is not Kars' score ({len(diff)} covered node(s) in all)",
            t0,
            node_witness(
                g,
                i,
                "not max(lfp, min(gfp, 0))",
                value=float(ans.values[i]),
                kars=float(sys.levels[kars[i]]),
                interval=[float(sys.levels[iv.lo[i]]), float(sys.levels[iv.hi[i]])],
            ),
        )
    return result(
        NAME,
        Verdict.CONFIRMED,
        f"{ans.label}: the {int(cov.sum())} covered node(s) carry Kars' score "
        "max(lfp, min(gfp, 0)), [lfp, gfp] proved by Z3",
        t0,
    )


def kars_least(sys: OrderSystem, ans: Answer, options: Options) -> CheckResult:
    """Z3: the answer satisfies (T+MM) and is the least solution in Kars' order <=_V."""
    t0 = time.perf_counter()
    kars, early = screen(
        NAME,
        sys,
        ans,
        t0,
        partial=None,
        bad="{node!r} has a value outside t(F) ∪ {{0}}",
        reason="value outside the value set",
    )
    if early is not None:
        return early
    if not ans.covered.all():
        return _partial_least(sys, ans, kars, options, t0)
    pin = _solution(sys, ans, kars, options, t0)
    if isinstance(pin, CheckResult):
        return pin
    iv = intervals(sys, options)
    if iv.verdict is Verdict.CONFIRMED and np.array_equal(kars, iv.kars):
        return _least_by_intervals(ans, pin, iv, t0)
    br, alt = _least_query(sys, ans, kars, options)
    if br.status is SatStatus.UNKNOWN:
        return result(NAME, Verdict.UNKNOWN, f"{ans.label}: Z3 unknown ({br.reason})", t0)
    if br.status is SatStatus.SAT:
        assert alt is not None
        return _closer(sys, ans, kars, alt, t0)
    return result(
        NAME,
        Verdict.CONFIRMED,
        f"{ans.label}: Z3 confirms (T+MM) and that no solution is closer to the draw "
        f"({count(pin.queries + br.queries, 'query')}); the least solution in <=_1 is unique",
        t0,
        solvers=list(ans.solvers),
        least=True,
        least_solutions=1,
    )


def _solution(
    sys: OrderSystem, ans: Answer, kars: IntArray, options: Options, t0: float
) -> CheckResult | BatchResult:
    """Z3 pins the answer in (T+MM): its batches, or the result that ends the check."""
    g = sys.graph
    who = ans.label
    pin = pin_check(sys, kars, options, f"{NAME} ({who}): (T+MM)")
    if pin.status is SatStatus.UNKNOWN:
        return result(NAME, Verdict.UNKNOWN, f"{who}: Z3 unknown ({pin.reason})", t0)
    if pin.status is SatStatus.SAT:
        return pin
    viol = sys.violations(kars)
    if len(viol) == 0:
        return result(NAME, Verdict.UNKNOWN, f"{who}: Z3 and evaluation disagree", t0)
    i = culprit(g, viol)
    return result(
        NAME,
        Verdict.REFUTED,
        f"{who}: not a solution of (T+MM) at {g.name(i)!r}",
        t0,
        node_witness(
            g,
            i,
            "equation fails",
            failing_nodes=names_of(g, viol, first=i),
            differs_from_least=_off(sys, kars),
        ),
    )


def _least_by_intervals(ans: Answer, pin: BatchResult, iv: Intervals, t0: float) -> CheckResult:
    """Least from Z3's interval proof (shared with smt-uniqueness), when the answer is the
    clamp max(lfp, min(gfp, 0))."""
    # Z3 proved every solution s' lies in [lfp, gfp]; the answer is max(lfp, min(gfp, 0)),
    # so where it is > 0 it is lfp <= s', where < 0 it is gfp >= s': kars <=_1 s'.
    return result(
        NAME,
        Verdict.CONFIRMED,
        f"{ans.label}: Z3 confirms (T+MM) ({count(pin.queries, 'query')}) and that no solution "
        f"leaves [lfp, gfp] ({count(iv.queries, 'query')}, shared with {UNIQUENESS}); the "
        "answer is max(lfp, min(gfp, 0)), so no solution is closer to the draw; the least solution "
        "in <=_1 is unique",
        t0,
        solvers=list(ans.solvers),
        least=True,
        least_solutions=1,
    )


def _least_query(
    sys: OrderSystem, ans: Answer, kars: IntArray, options: Options
) -> tuple[BatchResult, IntArray | None]:
    """Z3 looks for a solution s' with NOT (kars <=_1 s'), batch by batch of whole SCCs in
    reverse topological order (the successors outside a batch satisfy kars <=_1 s'); its
    status and the solution it found, if any."""
    g = sys.graph
    _, rank, _ = component_order(g)
    found: dict[str, IntArray] = {}

    def query(part: IntArray) -> SatOutcome:
        enc = closer_query(sys, kars, part)
        out = solve(enc.cnf, options, want_model=True)
        if out.status is SatStatus.SAT and out.model is not None:
            found["alt"] = enc.decode(out.model)
        return out

    parts = list(batches(g, np.arange(g.n, dtype=np.int64), key=rank))
    br = run_batches(parts, query, options, f"{NAME} ({ans.label}): least in <=_1")
    return br, found.get("alt")


def closer_query(sys: OrderSystem, kars: IntArray, part: IntArray) -> Encoding:
    """Z3 question for one batch ``part`` (whole SCCs): a solution s' of the batch's equations,
    its successors outside the batch above ``kars`` in <=_1 (proved by earlier batches), with
    NOT (kars <=_1 s') at some node of the batch (``UNSAT``: none is closer to the draw)."""
    g = sys.graph
    mask = np.zeros(g.n, dtype=np.bool_)
    mask[part] = True
    boundary = successors_of(g, mask) & ~mask
    enc = Encoding.build(sys, eq=mask, var=mask | boundary, fixed=kars)
    enc.above_kars(np.flatnonzero(boundary), kars)
    enc.not_above_kars(part, kars)
    return enc


def _closer(sys: OrderSystem, ans: Answer, kars: IntArray, alt: IntArray, t0: float) -> CheckResult:
    """Refuted: Z3's solution ``alt`` is closer to the draw than the answer at some node."""
    g = sys.graph
    z = sys.zero
    closer = ((kars > z) & (alt < kars)) | ((kars < z) & (alt > kars))
    i = int(np.flatnonzero(closer)[0])
    return result(
        NAME,
        Verdict.REFUTED,
        f"{ans.label}: another solution s' has NOT (kars <=_1 s') at {g.name(i)!r}",
        t0,
        node_witness(
            g,
            i,
            "another solution is not above it in Kars' order <=_1",
            value=float(sys.levels[kars[i]]),
            other_value=float(sys.levels[alt[i]]),
            differs_from_least=_off(sys, kars),
        ),
        solvers=list(ans.solvers),
    )


def _off(sys: OrderSystem, kars: IntArray) -> list[str]:
    """Nodes where the answer differs from max(lfp, min(gfp, 0)), the least solution by the
    theory of ``docs/smt.md`` (computed by propagation; Z3's refutation stands on its own)."""
    least = kars_clamp(sys, lfp(sys), gfp(sys))
    return names_of(sys.graph, np.flatnonzero(least != kars))


@check(NAME, [Semantics.MINIMAX], order=30, proves={VALUE})
def check_kars_least(ctx: CheckContext) -> list[CheckResult]:
    """Kars' score of every SCORE solver (or the fixpoint clamp if none ran) is least in <=_1."""
    g = ctx.case.graph
    sys = OrderSystem.minimax(g)
    found = answers(ctx, describe(g.semantics).view)
    if not found:
        clamp = sys.to_values(kars_clamp(sys, lfp(sys), gfp(sys)))
        found = [Answer.of(("fixpoint-clamp",), clamp, np.ones(g.n, dtype=np.bool_))]
    return [about(kars_least(sys, a, ctx.options), *a.solvers) for a in found]
