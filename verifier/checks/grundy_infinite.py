"""The contract of infinite Grundy values (Smith's loopy values inf(K)), read from every GRUNDY
solver's ``loopy`` column, in every engine mode:

- a node of infinite value has a successor of infinite value (if every option were finite its
  value would be the finite mex of theirs): so no node of an acyclic graph is infinite, and a
  claimed inf reached only by finite options is refuted;
- K is exactly the set of finite values among its options (Smith; Fraenkel's condition K).

A node infinite in one solver and finite in another is a disagreement
(``agree grundy``); whether a *finite* value is right is the mex check's (``grundy-z3-mex``).
"""

from __future__ import annotations

import time

import numpy as np

from verifier.checks.common import per_solver, result
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import grundy_text
from verifier.model.results import View
from verifier.model.semantics import Semantics
from verifier.registry import CheckContext, check

__all__ = ["NAME", "infinite_faults"]

NAME = "grundy-infinite"


def infinite_faults(g: GameGraph, r: SolverResult) -> list[tuple[int, str]]:
    """``(node, why)`` for every infinite value that breaks the contract, in id order."""
    inf = r.columns.get(LOOPY)
    if inf is None:
        return []
    val = r.columns[VALUE]
    out: list[tuple[int, str]] = []
    for x in np.flatnonzero(inf.given).tolist():
        ys = g.successors(x).tolist()
        if not any(inf.given[y] for y in ys):
            out.append((x, "infinite, but every option is finite (or there is none)"))
            continue
        finite = sorted({int(val.data[y]) for y in ys if val.given[y]})
        if sorted(set(inf.data[x])) != finite:
            out.append((x, f"K must be the finite values of the options, {finite}"))
    return out


@check(NAME, [Semantics.IMPARTIAL], order=35, linear=True, proves={LOOPY})
def check_grundy_infinite(ctx: CheckContext) -> list[CheckResult]:
    """Every GRUNDY solver's infinite values against the contract above."""
    return per_solver(ctx, View.GRUNDY, VALUE, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    faults = infinite_faults(g, r)
    inf = r.columns.get(LOOPY)
    if not faults:
        n = inf.count if inf is not None else 0
        return result(
            name,
            Verdict.CONFIRMED,
            f"{n} infinite value(s), each with an infinite option and K = its finite options",
            t0,
        )
    x, why = faults[0]
    assert inf is not None
    witness = {
        "node": g.name(x),
        "grundy": grundy_text(inf.data[x]),
        "reason": why,
        "options": {
            g.name(int(y)): grundy_text(inf.data[y]) if inf.given[y] else r.columns[VALUE].at(y)
            for y in g.successors(x)
        },
        "faults": len(faults),
    }
    return result(
        name,
        Verdict.REFUTED,
        f"{g.name(x)!r} = {witness['grundy']}: {why} ({len(faults)} node(s) in all)",
        t0,
        witness,
    )
