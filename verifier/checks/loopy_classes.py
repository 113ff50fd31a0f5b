"""Check ``grundy-loopy-classes``: the generalized Sprague-Grundy function against retrograde
analysis of the same moves, and against Fraenkel's conditions A-C.

P / N / D of the values (``verifier.solvers.loopy_grundy``) must be retrograde's lost / won /
unknown on the game played as a ``normal`` game; the values, with the solver's counter, must
satisfy conditions A, B, C and the definition of K, which certifies them (Smith; Fraenkel and
Yesha).

Up to the reference sizes (``options.use_reference(n, linear=True)``) the check reads the
``grundy-loopy`` answer (or labels the graph afresh) and runs the pure-Python references
(``retrograde``, ``gsg_violations``). Beyond them it reads ``grundy-loopy-compiled``'s answer and
runs the engine: retrograde analysis compiled (numpy where numba is missing) and the conditions
vectorized over the edges (``gsg_bad_nodes``, O(m log m)), so the certificate holds at any size.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.engine import retrograde_numpy
from verifier.engine.compiled import available, retrograde_compiled
from verifier.errors import NotApplicable
from verifier.model import CheckResult, GameGraph, Semantics, Verdict
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import LABEL_WORDS
from verifier.registry import CheckContext, check
from verifier.solvers.loopy_grundy import (
    DRAW,
    LOSS,
    WIN,
    LoopyGrundy,
    gsg_bad_nodes,
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


COMPILED = "grundy-loopy-compiled"
"""The solver whose answer is checked beyond the reference sizes."""


def _loopy_result(ctx: CheckContext, reference: bool) -> LoopyGrundy:
    """The ``grundy-loopy`` solver's labelling, else (``reference``) a fresh one, else the
    compiled solver's; ``NotApplicable`` if there is none."""
    for name in ("grundy-loopy",) if reference else ("grundy-loopy", COMPILED):
        res = ctx.results.get(name)
        if res is not None:
            return read_answer(res)
    if reference:
        return loopy_grundy(ctx.case.graph)
    raise NotApplicable(
        f"reference solvers are off for {ctx.case.graph.n} nodes and {COMPILED} did not run"
    )


def _retrograde_labels(g: GameGraph, reference: bool) -> NDArray[np.int8]:
    """Won / lost / unknown of the moves played as a ``normal`` game: the reference, else the
    compiled queue, else the numpy engine."""
    h = normal_view(g)
    if reference:
        return retrograde(h).label
    return (retrograde_compiled(h) if available() else retrograde_numpy(h)).label


def _violations(g: GameGraph, r: LoopyGrundy, reference: bool) -> tuple[int, list[dict[str, Any]]]:
    """How many nodes violate conditions A-C or K, and the first violation's details."""
    if reference:
        bad = gsg_violations(g, r.values, r.kset, r.counter)
        return len(bad), bad[:1]
    nodes = gsg_bad_nodes(g, r.values, r.kset, r.counter)
    return len(nodes), gsg_violations(g, r.values, r.kset, r.counter, nodes[:1].tolist())


_K = frozenset({LOOPY})
"""Fraenkel's conditions vouch for the infinite values' K sets (the P/N/D result, for values)."""


@check("grundy-loopy-classes", [Semantics.IMPARTIAL], order=30, linear=True, proves={VALUE})
def loopy_classes_check(ctx: CheckContext) -> list[CheckResult]:
    """P / N / D of the generalized Sprague-Grundy function = retrograde's lost / won / unknown
    on the same moves played as a ``normal`` game, and Fraenkel's conditions A-C."""
    g = ctx.case.graph
    reference = ctx.options.use_reference(g.n, linear=True)
    t0 = time.perf_counter()
    r = _loopy_result(ctx, reference)
    classes = outcome_classes(r.values, r.kset)
    labels = _retrograde_labels(g, reference)
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
    count, bad = _violations(g, r, reference)
    s3 = time.perf_counter() - t0
    name = "generalized Sprague-Grundy conditions A-C (Fraenkel)"
    if count:
        detail = f"node {bad[0]['node']!r} violates condition {bad[0]['condition']}"
        if count > 1:
            detail += f" ({count} node(s) in all)"
        out.append(CheckResult(name, Verdict.REFUTED, detail, bad[0], s3, proves=_K))
    else:
        detail = f"A, B (with the solver's counter), C and K hold at all {g.n} nodes"
        out.append(CheckResult(name, Verdict.CONFIRMED, detail, seconds=s3, proves=_K))
    return out
