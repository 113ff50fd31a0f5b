"""The ranked rules with integer ranks in Z3 (small graphs only).

For a monotone Boolean rule system (``fixpoints.BoolSystem``) a set S is its least fixpoint iff

- *derivable*: there are integer ranks r with, for every x in S, x a true constant, or an ``OR``
  node with a successor y in S of smaller rank, or an ``AND`` node all of whose successors are in
  S with smaller rank (no circular reasoning); and
- *maximal*: no ranked derivation (free labels b, free ranks r, same rules) labels a node
  outside S.

Integer ranks do not scale (research note: 1.4 s at 10^3 nodes, 7.7 s at 3x10^3, unfinished at
10^4), so callers use this up to ``RANK_LIMIT`` rule nodes and otherwise the rank-free Boolean
queries of ``encode.prefixpoint_cnf`` plus the linear certificate checker.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import z3
from numpy.typing import NDArray

from verifier.equations.fixpoints import BoolSystem
from verifier.equations.system import AND, CONST, OR
from verifier.registry import Options
from verifier.smt.cnf import SatOutcome, SatStatus

__all__ = ["RANK_LIMIT", "ranked_derivable", "ranked_maximal"]

RANK_LIMIT = 3000
"""Largest rule system (number of Boolean nodes) given to Z3 with integer ranks."""


def _rules(sys: BoolSystem, b: list[Any], r: list[Any]) -> list[Any]:
    out: list[Any] = []
    ptr, idx = sys.ptr.tolist(), sys.idx.tolist()
    for x in range(sys.n):
        ys = idx[ptr[x] : ptr[x + 1]]
        if sys.kind[x] == CONST:
            body = z3.BoolVal(bool(sys.const[x]))
        elif sys.kind[x] == OR:
            body = z3.Or([z3.And(b[y], r[y] < r[x]) for y in ys]) if ys else z3.BoolVal(False)
        else:
            assert sys.kind[x] == AND
            body = z3.And([z3.And(b[y], r[y] < r[x]) for y in ys]) if ys else z3.BoolVal(False)
        out.append(z3.Implies(b[x], body))
    return out


def _run(constraints: list[Any], options: Options) -> tuple[SatOutcome, Any]:
    s = z3.Solver()
    s.set("random_seed", options.seed)
    s.set("rlimit", options.rlimit)
    s.add(constraints)
    res = s.check()
    if res == z3.sat:
        return SatOutcome(SatStatus.SAT), s.model()
    if res == z3.unsat:
        return SatOutcome(SatStatus.UNSAT), None
    return SatOutcome(SatStatus.UNKNOWN, s.reason_unknown()), None


def ranked_derivable(sys: BoolSystem, s: NDArray[np.bool_], options: Options) -> SatOutcome:
    """Z3 looks for integer ranks deriving every node of ``s`` (sat = derivable)."""
    r = [z3.Int(f"r{x}") for x in range(sys.n)]
    b = [z3.BoolVal(bool(v)) for v in s]
    out, _ = _run([*_rules(sys, b, r), *(ri >= 0 for ri in r)], options)
    return out


def ranked_maximal(
    sys: BoolSystem, s: NDArray[np.bool_], options: Options
) -> tuple[SatOutcome, int | None]:
    """Z3 looks for a ranked derivation labelling a node outside ``s`` (unsat = maximal).

    Returns the outcome and, when sat, a node outside ``s`` that the derivation labels."""
    r = [z3.Int(f"r{x}") for x in range(sys.n)]
    b = [z3.Bool(f"b{x}") for x in range(sys.n)]
    outside = [b[x] for x in np.flatnonzero(~s).tolist()]
    out, model = _run([*_rules(sys, b, r), z3.Or(outside) if outside else False], options)
    if model is None:
        return out, None
    for x in np.flatnonzero(~s).tolist():
        if z3.is_true(model.eval(b[x], model_completion=True)):
            return out, int(x)
    return out, None
