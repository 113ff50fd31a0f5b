"""A DRUP proof that normal play's won/lost rules have no solution but ours (docs/certificates.md,
*Uniqueness*): the CNF below, which the standalone checker builds again from the case file, is
unsatisfiable; a proof-logging SAT solver (CaDiCaL through python-sat) writes the proof and the
checker replays it by reverse unit propagation.

Position ``x`` (its index in the case file) has two variables, ``W(x) = 2x + 1`` (won) and
``L(x) = 2x + 2`` (lost); drawn is neither. The clauses are the rules without ranks, and one
clause saying the labelling differs from the certified one somewhere:

>>> import numpy as np
>>> won_lost_cnf(np.array([0, 1, 1]), np.array([1]), np.array([np.nan, np.nan]), [1, -1])
[[-1, -2], [-1, 4], [-4, 1], [2, -3], [-2, 3], [-3, -4], [-3], [4], [-1, -4]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DRUP_MAX_CLAUSES", "DrupResult", "won_lost_cnf", "won_lost_proof"]

DRUP_MAX_CLAUSES = 4_000_000
"""Above this many clauses (about 2 per position and 4 per move) the claim is left to Z3: the
checker's clauses and reverse unit propagation are pure Python (the L-game's 415,089 clauses:
built and a 1,261-position witness checked in 0.5 s)."""

CONFLICT_BUDGET = 1_000_000
"""The SAT solver's conflicts before it gives up (the claim then rests on Z3)."""


def won_lost_cnf(
    ptr: NDArray[Any], idx: NDArray[Any], value: NDArray[np.float64], labels: Sequence[int]
) -> list[list[int]]:
    """The rules of normal play over ``W``/``L`` and the clause "differs from ``labels``"."""
    cnf: list[list[int]] = []
    for x in range(len(ptr) - 1):
        w, lo = 2 * x + 1, 2 * x + 2
        ys = [int(y) for y in idx[ptr[x] : ptr[x + 1]]]
        cnf.append([-w, -lo])  # not both
        if not ys:  # a terminal: its label (unlabelled: lost)
            v = value[x]
            cnf += [[w if v == 1 else -w], [lo if v != v or v == -1 else -lo]]
            continue
        cnf.append([-w, *(2 * y + 2 for y in ys)])  # won only with a lost successor
        cnf += [[-(2 * y + 2), w] for y in ys]  # a lost successor makes it won
        cnf.append([lo, *(-(2 * y + 1) for y in ys)])  # every successor won: lost
        cnf += [[-lo, 2 * y + 1] for y in ys]  # lost only if every successor is won
    differs: list[int] = []
    for x, v in enumerate(labels):  # won: not W; lost: not L; drawn: W or L
        w, lo = 2 * x + 1, 2 * x + 2
        differs += [-w] if v == 1 else [-lo] if v == -1 else [w, lo]
    cnf.append(differs)
    return cnf


class DrupResult:
    """What the SAT solver found: ``proof`` (DRUP lines, the claim holds), ``other`` (a second
    labelling, +1/-1/0 per position), or neither (``why`` says why not)."""

    def __init__(
        self, proof: list[str] | None = None, other: list[int] | None = None, why: str = ""
    ) -> None:
        self.proof, self.other, self.why = proof, other, why


def won_lost_proof(
    ptr: NDArray[Any], idx: NDArray[Any], value: NDArray[np.float64], labels: Sequence[int]
) -> DrupResult:
    """Ask the SAT solver for another labelling; its proof that there is none, if none."""
    n = len(ptr) - 1
    if 2 * n + 4 * (int(ptr[-1]) + n) > DRUP_MAX_CLAUSES:
        return DrupResult(why=f"more than {DRUP_MAX_CLAUSES:,} clauses")
    try:
        from pysat.solvers import Solver  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - a dependency of the package
        return DrupResult(why="python-sat is not installed")
    cnf = won_lost_cnf(ptr, idx, value, labels)
    with Solver(name="cadical195", bootstrap_with=cnf, with_proof=True) as s:
        if not s.propagate(assumptions=[])[0]:  # unit propagation alone refutes it
            return DrupResult(proof=[])
        s.conf_budget(CONFLICT_BUDGET)
        found = s.solve_limited()
        if found is None:
            return DrupResult(why=f"the SAT solver gave up after {CONFLICT_BUDGET:,} conflicts")
        if found:
            model = set(s.get_model() or ())
            other = [1 if 2 * x + 1 in model else -1 if 2 * x + 2 in model else 0 for x in range(n)]
            return DrupResult(other=other)
        return DrupResult(proof=list(s.get_proof() or ()))
