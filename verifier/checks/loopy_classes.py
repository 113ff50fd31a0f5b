"""Check ``grundy-loopy-classes``: the generalized Sprague-Grundy function against retrograde
analysis of the same moves, and against Fraenkel's conditions A-C.

P / N / D of the values (``verifier.solvers.loopy_grundy``) must be retrograde's lost / won /
unknown on the game played as a ``normal`` game; the values, with the solver's counter, must
satisfy conditions A, B, C and the definition of K, which certifies them (Smith; Fraenkel and
Yesha).
"""

from __future__ import annotations

import time

import numpy as np

from verifier.errors import NotApplicable
from verifier.model import CheckResult, Semantics, Verdict
from verifier.model.describe import LABEL_WORDS
from verifier.registry import CheckContext, check
from verifier.solvers.loopy_grundy import (
    DRAW,
    LOSS,
    WIN,
    LoopyGrundy,
    gsg_violations,
    loopy_grundy,
    normal_view,
    outcome_classes,
    read_answer,
    render,
)
from verifier.solvers.retrograde import retrograde

__all__ = ["CLASS_WORDS", "loopy_classes_check"]

CLASS_WORDS = {WIN: "N", LOSS: "P", DRAW: "D"}
"""Outcome class -> its name in combinatorial game theory."""


def _loopy_result(ctx: CheckContext) -> LoopyGrundy:
    """The ``grundy-loopy`` solver's labelling, or a fresh one if the solver did not run."""
    res = ctx.results.get("grundy-loopy")
    return loopy_grundy(ctx.case.graph) if res is None else read_answer(res)


@check("grundy-loopy-classes", [Semantics.IMPARTIAL], order=30)
def loopy_classes_check(ctx: CheckContext) -> list[CheckResult]:
    """P / N / D of the generalized Sprague-Grundy function = retrograde's lost / won / unknown
    on the same moves played as a ``normal`` game, and Fraenkel's conditions A-C."""
    g = ctx.case.graph
    if not ctx.options.use_reference(g.n, linear=True):
        raise NotApplicable(f"reference solvers are off for {g.n} nodes")
    t0 = time.perf_counter()
    r = _loopy_result(ctx)
    classes = outcome_classes(r.values, r.kset)
    labels = retrograde(normal_view(g)).label
    seconds = time.perf_counter() - t0
    diff = np.flatnonzero(classes != labels)
    out: list[CheckResult] = []
    name = "grundy P/N/D = retrograde lost/won/unknown"
    if len(diff):
        x = int(diff[0])
        witness = {
            "node": g.name(x),
            "grundy": render(r.value(x)),
            "class": CLASS_WORDS[int(classes[x])],
            "retrograde": LABEL_WORDS[int(labels[x])],
            "disagreements": len(diff),
        }
        detail = (
            f"node {g.name(x)!r}: gamma = {witness['grundy']} ({witness['class']}) but "
            f"retrograde says {witness['retrograde']}"
        )
        out.append(CheckResult(name, Verdict.REFUTED, detail, witness, seconds))
    else:
        counts = {w: int(np.sum(classes == c)) for c, w in CLASS_WORDS.items()}
        detail = f"{g.n} nodes agree (N {counts['N']}, P {counts['P']}, D {counts['D']})"
        out.append(CheckResult(name, Verdict.CONFIRMED, detail, seconds=seconds))
    t0 = time.perf_counter()
    bad = gsg_violations(g, r.values, r.kset, r.counter)
    s3 = time.perf_counter() - t0
    name = "generalized Sprague-Grundy conditions A-C (Fraenkel)"
    if bad:
        detail = f"node {bad[0]['node']!r} violates condition {bad[0]['condition']}"
        out.append(CheckResult(name, Verdict.REFUTED, detail, bad[0], s3))
    else:
        detail = f"A, B (with the solver's counter), C and K hold at all {g.n} nodes"
        out.append(CheckResult(name, Verdict.CONFIRMED, detail, seconds=s3))
    return out
