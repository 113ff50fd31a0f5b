"""Which free positions really vary, and which values each takes over all solutions (the
backbone of the solution CNF, ``verifier.research.cnf``): one SAT call (python-sat, CaDiCaL)
per value not yet seen in a model, under the assumption that the position takes it; every model
found marks the values of all positions at once. A position whose values are all decided is
*decided*; the calls stop at the deadline, leaving the rest undecided.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from verifier.research.cnf import SolutionCnf

__all__ = ["CONFLICTS", "Backbone", "backbone"]

CONFLICTS = 200_000
"""Conflicts per SAT call before the position is left undecided."""


@dataclass(frozen=True)
class Backbone:
    attained: dict[int, tuple[int, ...]]
    """Per decided free position, every value it takes in some solution."""
    first: dict[int, int] | None
    """One solution's values at the free positions; None when there is no solution."""
    complete: bool
    """Every free position decided."""
    calls: int
    seconds: float


def backbone(cnf: SolutionCnf, deadline: float | None = None) -> Backbone:
    """The values each free position takes (see the module docstring); ``deadline`` on
    ``time.monotonic``."""
    from pysat.solvers import Solver  # type: ignore[import-untyped]

    t0 = time.perf_counter()
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:
        calls = 1
        if not s.solve():
            return Backbone({}, None, True, calls, time.perf_counter() - t0)
        first = cnf.decode(frozenset(s.get_model()))
        seen = {x: {k} for x, k in first.items()}
        attained: dict[int, tuple[int, ...]] = {}
        for x, vals in zip(cnf.nodes, cnf.values, strict=True):
            decided = True
            for k, lits in vals:
                if k in seen[x]:
                    continue
                if deadline is not None and time.monotonic() > deadline:
                    return Backbone(attained, first, False, calls, time.perf_counter() - t0)
                s.conf_budget(CONFLICTS)
                calls += 1
                found = s.solve_limited(assumptions=list(lits))
                if found:
                    for y, v in cnf.decode(frozenset(s.get_model())).items():
                        seen[y].add(v)
                elif found is None:
                    decided = False
            if decided:
                attained[x] = tuple(sorted(seen[x]))
        complete = len(attained) == len(cnf.nodes)
        return Backbone(attained, first, complete, calls, time.perf_counter() - t0)
