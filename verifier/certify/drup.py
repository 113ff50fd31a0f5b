"""A DRUP proof that normal play's won/lost rules have no solution but ours (docs/certificates.md,
*Uniqueness*): the CNF below, which the standalone checker builds again from the case file, is
unsatisfiable; a proof-logging SAT solver (CaDiCaL through python-sat) writes the proof and the
checker replays it by reverse unit propagation.

Position ``x`` (its index in the case file) has two variables, ``W(x) = 2x + 1`` (won) and
``L(x) = 2x + 2`` (lost); drawn is neither. The clauses are the rules without ranks, and one
clause saying the labelling differs from the certified one somewhere, over the drawn positions
only (a won and a lost label is forced by its rank). A drawn self-loop 0, a won 1, a lost 2:

>>> import numpy as np
>>> won_lost_cnf(np.array([0, 1, 2, 2]), np.array([0, 2]), [0, 1, -1])
[[-1, -2], [-1, 2], [2, -1], [1, -2], [-2, 1], [1, 2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from checker.drup import Z3_LIMIT, clauses

__all__ = ["DRUP_MAX_CLAUSES", "DrupResult", "clause_count", "won_lost_cnf", "won_lost_proof"]

DRUP_MAX_CLAUSES = Z3_LIMIT
"""Above this many clauses (about 2 per position and 4 per move, counted as the checker counts
them: ``checker.drup.clauses``) the claim is left to Z3, and only there does the checker accept
a claim without a proof: its clauses and reverse unit propagation are pure Python (the L-game's
415,089 clauses: built and a 1,261-position witness checked in 0.5 s)."""

CONFLICT_BUDGET = 1_000_000
"""The SAT solver's conflicts before it gives up (the claim then rests on Z3)."""


def won_lost_cnf(
    ptr: NDArray[Any], idx: NDArray[Any], labels: Sequence[int], *, differs: bool = True
) -> list[list[int]]:
    """The rules of normal play over ``W``/``L`` and the clause "differs from ``labels``", over
    the drawn positions only: the won and lost labels are forced by their ranks (N2/N3, which
    the checker checks first), so they are constants and every clause they satisfy is left out;
    a drawn position's successors outside are won (none is lost). ``differs=False``: the rules
    alone, whose models are the labellings of the drawn positions (the solution counter's)."""
    lab = np.asarray(labels, dtype=np.int8)
    cnf: list[list[int]] = []
    others: list[int] = []
    for x in np.flatnonzero(lab == 0).tolist():
        w, lo = 2 * x + 1, 2 * x + 2
        ys = idx[ptr[x] : ptr[x + 1]]
        drawn = ys[lab[ys] == 0].tolist()
        cnf.append([-w, -lo])  # not both
        if not len(ys):  # a drawn terminal: neither
            cnf += [[-w], [-lo]]
        else:
            cnf.append([-w, *(2 * y + 2 for y in drawn)])  # won only with a lost successor
            cnf.append([lo, *(-(2 * y + 1) for y in drawn)])  # every successor won: lost
            cnf += [[w, -(2 * y + 2)] for y in drawn]  # a lost successor makes it won
            cnf += [[-lo, 2 * y + 1] for y in drawn]  # lost only if every successor is won
        others += [w, lo]  # drawn: W or L
    if differs:
        cnf.append(others)
    return cnf


def clause_count(sem: str, ptr: NDArray[Any], among: NDArray[Any] | None = None) -> int:
    """The clauses of the proof's CNF as the checker counts them (``among``: the positions it
    is built over, normal play's drawn ones; default all)."""
    deg = np.diff(ptr).astype(np.int64)
    deg = deg if among is None else deg[among]
    count = clauses(sem, len(deg), int(deg.sum()), int((deg * deg).sum()))
    assert count is not None
    return count


class DrupResult:
    """What the SAT solver found: ``proof`` (DRUP lines, the claim holds), ``other`` (a second
    labelling, +1/-1/0 per position), or neither (``why`` says why not)."""

    def __init__(
        self, proof: list[str] | None = None, other: list[int] | None = None, why: str = ""
    ) -> None:
        self.proof, self.other, self.why = proof, other, why


def won_lost_proof(ptr: NDArray[Any], idx: NDArray[Any], labels: Sequence[int]) -> DrupResult:
    """Ask the SAT solver for another labelling; its proof that there is none, if none."""
    drawn = np.flatnonzero(np.asarray(labels) == 0)
    clauses = clause_count("normal", ptr, drawn)  # U1's, as the checker counts them
    if clauses > DRUP_MAX_CLAUSES:
        return DrupResult(why=f"more than {DRUP_MAX_CLAUSES:,} clauses")
    found, model, proof = _sat(won_lost_cnf(ptr, idx, labels))
    if found is None:
        return DrupResult(why=f"the SAT solver gave up after {CONFLICT_BUDGET:,} conflicts")
    if found:  # the won and lost labels are forced: another labelling moves only draws
        other = [int(v) for v in labels]
        for x in drawn.tolist():
            other[x] = 1 if 2 * x + 1 in model else -1 if 2 * x + 2 in model else 0
        return DrupResult(other=other)
    return DrupResult(proof=proof)


def _sat(cnf: list[list[int]]) -> tuple[bool | None, set[int], list[str]]:
    """CaDiCaL on ``cnf``: satisfiable (with the model's true literals), unsatisfiable (with a
    DRUP proof; empty where unit propagation alone refutes it, as the checker replays it), or
    ``None`` (gave up)."""
    from pysat.solvers import Solver  # type: ignore[import-untyped]

    from checker.drup import refuted  # the replay the checker runs: no proof where it needs none

    if refuted(cnf, []):  # unit propagation alone refutes it
        return False, set(), []
    with Solver(name="cadical195", bootstrap_with=cnf, with_proof=True) as s:
        s.conf_budget(CONFLICT_BUDGET)
        found = s.solve_limited()
        if not found:
            return found, set(), list(s.get_proof() or ()) if found is False else []
        return True, set(s.get_model() or ()), []


def mex_cnf(
    ptr: NDArray[Any], idx: NDArray[Any], other_than: Sequence[int] | None = None
) -> list[list[int]]:
    """The mex equations in one-hot form (docs/certificates.md, U3): ``V(x, k)``, "position
    ``x``'s Grundy value is ``k``" for ``k = 0..d(x)``, numbered from 1 in position order; with
    ``other_than``, the clause "some value differs from it"."""
    deg = np.diff(ptr).tolist()
    first = np.concatenate([[1], 1 + np.cumsum(np.asarray(deg) + 1)]).tolist()
    cnf: list[list[int]] = []
    for x in range(len(deg)):
        ys = [int(y) for y in idx[ptr[x] : ptr[x + 1]]]
        own = [first[x] + k for k in range(deg[x] + 1)]
        cnf.append(own)  # some value
        cnf += [[-own[j], -own[k]] for k in range(len(own)) for j in range(k)]  # at most one
        for k, v in enumerate(own):
            cnf += [[-v, -(first[y] + k)] for y in ys if k <= deg[y]]  # no option has it
            for j in range(k):  # every smaller value is an option's
                cnf.append([-v, *(first[y] + j for y in ys if j <= deg[y])])
    if other_than is not None:
        cnf.append([-(first[x] + v) for x, v in enumerate(other_than)])
    return cnf


def mex_solutions(ptr: NDArray[Any], idx: NDArray[Any]) -> tuple[list[list[int]], list[str] | None]:
    """Up to two solutions of the mex equations (value lists by position) and, where there are
    fewer, the DRUP proof that there is no other; ``([], None)`` where the solver gave up or
    the equations are above :data:`DRUP_MAX_CLAUSES`."""
    deg = np.diff(ptr).tolist()
    clauses = clause_count("impartial", ptr)  # U3's, as the checker counts them
    if clauses > DRUP_MAX_CLAUSES:
        return [], None
    first = [1, *(1 + np.cumsum(np.asarray(deg) + 1)).tolist()]
    found: list[list[int]] = []
    while len(found) < 2:
        sat, model, proof = _sat(mex_cnf(ptr, idx, found[0] if found else None))
        if sat is None:
            return [], None
        if not sat:
            return found, proof
        found.append(
            [next(k for k in range(d + 1) if first[x] + k in model) for x, d in enumerate(deg)]
        )
    return found, None
