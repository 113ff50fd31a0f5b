"""The mutation harness of the proof contract: corrupt one published field at one node in the
output of *every* solver in the same way (so that agreement between solvers cannot help) and run
the whole pipeline; a check must refute the answer.

``corruptions(case, clean)`` lists the corruptions of a case's clean answer (a verified report):
per node, each field the solvers publish, changed into something the rules of the semantics make
wrong. The oracle for moves is written here from the definitions, not taken from the code under
test (``move_is_optimal``). ``run_corrupted(case, options, c)`` runs the pipeline with every
registered solver wrapped so that its result carries corruption ``c``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from verifier import pipeline
from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.model.columns import LOOPY, MOVE, REMOTENESS, VALUE
from verifier.model.report import CaseReport
from verifier.model.semantics import MAX
from verifier.model.solution import Solution
from verifier.pipeline import run_case
from verifier.registry import Options, SolverSpec
from verifier.smt import common

__all__ = ["Corruption", "corruptions", "move_is_optimal", "run_corrupted"]


@dataclass(frozen=True)
class Corruption:
    """One field of one node, set to ``new`` in every solver that publishes that field."""

    field: str
    """``value``, ``remoteness``, ``move`` or ``loopy`` (a Grundy value made infinite)."""
    kind: str
    """What was done, e.g. ``+1``, ``flip``, ``epsilon``, ``other successor``, ``missing``."""
    node: int
    new: Any
    """The new raw entry (a value, a remoteness, a successor id; -1 = none / infinite)."""

    def label(self, g: GameGraph) -> str:
        return f"{self.field} {self.kind} at {g.name(self.node)!r} -> {self.new!r}"

    def apply(self, r: SolverResult) -> SolverResult:
        """``r`` with this corruption, where ``r`` covers the node and publishes the field."""
        x = self.node
        if not r.covered_mask()[x]:
            return r
        if self.field == VALUE:
            vals = np.array(r.values, copy=True)
            if vals.dtype.kind in "iu" and not float(self.new).is_integer():
                vals = vals.astype(np.float64)
            vals[x] = self.new
            loopy = {k: v for k, v in (r.loopy or {}).items() if k != x} if r.loopy else r.loopy
            return replace(r, values=vals, loopy=loopy)
        if self.field == LOOPY:  # a Grundy value made infinite: inf(K) with K = self.new
            vals = np.array(r.values, copy=True)
            vals[x] = -1
            return replace(r, values=vals, loopy={**(r.loopy or {}), x: tuple(self.new)})
        if self.field == REMOTENESS and r.remoteness is not None:
            rem = r.remoteness.copy()
            rem[x] = self.new
            return replace(r, remoteness=rem)
        if self.field == MOVE and r.move is not None:
            mv = r.move.copy()
            mv[x] = self.new
            return replace(r, move=mv)
        return r


# ---------------------------------------------------------------------- the oracle for moves
def move_is_optimal(case: Case, sol: Solution, x: int, y: int | None) -> bool:
    """Does moving from ``x`` to ``y`` (``None``: no move named) keep the value of ``x`` under
    the rules, with the winner hurrying and the loser delaying where remoteness is defined?

    A position with moves must name one when the semantics publishes a move there: a won or
    lost position (both sides' play is part of the answer) and a draw (a move that keeps it).
    """
    g = case.graph
    succ = [int(s) for s in g.successors(x)]
    if not succ:
        return y is None
    val = sol.columns[VALUE]
    rem = sol.columns.get(REMOTENESS)
    loopy = sol.columns.get(LOOPY)
    sem = case.semantics

    def r(z: int) -> int | None:
        return None if rem is None or not rem.given[z] else int(rem.data[z])

    if y is None:
        return sem is Semantics.REACHABILITY and not _reach_needs_move(g, sol, x)
    if y not in succ:
        return False
    if sem is Semantics.MINIMAX:
        sx, sy = float(val.data[x]), float(val.data[y])
        if sy != sx:
            return False
        rx, ry = r(x), r(y)
        if sx == 0 or rx is None:
            return True
        # the side ahead hurries, the side behind delays, both among the moves that keep the
        # score (a longer line to a worse score is no better: the score comes first); either
        # way one ply down the optimal line (issue 28 item 4)
        return ry == rx - 1
    if sem is Semantics.NORMAL:
        lx, ly = int(val.data[x]), int(val.data[y])
        if lx == 0:
            return ly == 0
        rx, ry = r(x), r(y)
        return ly == -lx and (rx is None or ry == rx - 1)
    if sem is Semantics.REACHABILITY:
        if not _reach_needs_move(g, sol, x):
            return True
        in_w = bool(val.data[x] == 1)
        if in_w:  # player 0 inside W: towards the target, one layer down
            return bool(val.data[y] == 1) and (r(x) is None or r(y) == r(x) - 1)
        return bool(val.data[y] == 0)  # player 1 outside W: stay outside
    # impartial: N moves to P; inf(K) with 0 in K moves to P; a draw (inf(K), 0 not in K)
    # moves to a draw: inf(K') with 0 not in K' (an N option hands the opponent the win)
    if loopy is not None and loopy.given[x]:
        if 0 in loopy.data[x]:
            return bool(val.given[y] and val.data[y] == 0)
        return bool(loopy.given[y]) and 0 not in loopy.data[y]
    gx = int(val.data[x])
    if gx == 0:
        return True  # a P position loses whatever it does
    return bool(val.given[y] and val.data[y] == 0)


def _draw_hands_over(case: Case, sol: Solution, x: int, y: int) -> bool:
    """Is ``x`` a draw and ``y`` a successor won for the player to move there (normal play: a
    won label; impartial: an N position, finite > 0 or inf(K) with 0 in K)?"""
    val = sol.columns[VALUE]
    loopy = sol.columns.get(LOOPY)
    if case.semantics is Semantics.NORMAL:
        return bool(val.data[x] == 0 and val.data[y] == 1)
    if case.semantics is not Semantics.IMPARTIAL or loopy is None:
        return False
    if not loopy.given[x] or 0 in loopy.data[x]:
        return False
    return bool(0 in loopy.data[y]) if loopy.given[y] else bool(val.data[y] > 0)


def _reach_needs_move(g: GameGraph, sol: Solution, x: int) -> bool:
    """Reachability publishes player 0's move inside W (off the target) and player 1's outside."""
    in_w = bool(sol.columns[VALUE].data[x] == 1)
    if g.target[x]:
        return False
    return (int(g.owner[x]) == MAX) == in_w


# ---------------------------------------------------------------------- the corruptions
def corruptions(case: Case, report: CaseReport, nodes: list[int]) -> Iterator[Corruption]:
    """Wrong answers at ``nodes``, one per field and kind (see the module docstring)."""
    sol = report.solution
    assert sol is not None
    g = case.graph
    sem = case.semantics
    rem = sol.columns.get(REMOTENESS)
    mv = sol.columns.get(MOVE)
    loopy = sol.columns.get(LOOPY)
    levels = _levels(case)
    for x in nodes:
        if not sol.covered[x]:
            continue
        yield from _value_corruptions(case, sol, x, levels)
        if rem is not None:
            if rem.given[x]:
                yield Corruption(REMOTENESS, "+1", x, int(rem.data[x]) + 1)
                if rem.data[x] > 0:
                    yield Corruption(REMOTENESS, "-1", x, int(rem.data[x]) - 1)
            elif sem is not Semantics.IMPARTIAL and (loopy is None or not loopy.given[x]):
                yield Corruption(REMOTENESS, "given at a draw", x, 0)
        if mv is not None:
            succ = [int(s) for s in g.successors(x)]
            wrong = [y for y in succ if not move_is_optimal(case, sol, x, y)]
            if wrong:
                yield Corruption(MOVE, "non-optimal successor", x, wrong[-1])
            to_won = [y for y in succ if _draw_hands_over(case, sol, x, y)]
            if to_won and mv.given[x]:
                yield Corruption(MOVE, "draw to a won option", x, to_won[0])
            if succ and not move_is_optimal(case, sol, x, None) and mv.given[x]:
                yield Corruption(MOVE, "missing", x, -1)
            non = [z for z in range(g.n) if z not in succ]
            if non and mv.given[x]:
                yield Corruption(MOVE, "not a move", x, non[0])


def _levels(case: Case) -> list[float]:
    g = case.graph
    if case.semantics is Semantics.MINIMAX:
        return sorted({0.0, *(float(v) for v in g.value_levels())})
    return []


def _value_corruptions(
    case: Case, sol: Solution, x: int, levels: list[float]
) -> Iterator[Corruption]:
    val = sol.columns[VALUE]
    loopy = sol.columns.get(LOOPY)
    sem = case.semantics
    if sem is Semantics.MINIMAX:
        v = float(val.data[x])
        others = [lv for lv in levels if lv != v]
        if others:
            yield Corruption(VALUE, "other level", x, min(others, key=lambda lv: abs(lv - v)))
        eps = _epsilon(levels)
        yield Corruption(VALUE, "epsilon", x, v + eps)
    elif sem is Semantics.NORMAL:
        lab = int(val.data[x])
        for new in (-1, 0, 1):
            if new != lab:
                yield Corruption(VALUE, f"label {lab} -> {new}", x, new)
    elif sem is Semantics.REACHABILITY:
        yield Corruption(VALUE, "winner flip", x, 1 - int(val.data[x]))
    else:
        if loopy is not None and loopy.given[x]:
            k = tuple(loopy.data[x])
            yield Corruption(LOOPY, "K changed", x, (*k, max(k, default=-1) + 1))
            yield Corruption(VALUE, "finite", x, max(k, default=-1) + 1)
        else:
            gx = int(val.data[x])
            yield Corruption(VALUE, "+1", x, gx + 1)
            if gx > 0:
                yield Corruption(VALUE, "-1", x, gx - 1)
            yield Corruption(LOOPY, "inf", x, ())
            yield Corruption(LOOPY, "inf(K)", x, (gx,))


def _epsilon(levels: list[float]) -> float:
    """A change smaller than any gap between values, but far above rounding: 5x the smallest
    non-zero magnitude (so 1e-10 becomes 6e-10)."""
    mags = [abs(v) for v in levels if v != 0]
    small = min(mags) if mags else 1.0
    return 5 * small if small < 1e-6 else math.ldexp(1.0, -20)


# ---------------------------------------------------------------------- running
def run_corrupted(case: Case, options: Options, c: Corruption) -> CaseReport:
    """The pipeline on ``case`` with corruption ``c`` applied to every solver's result."""
    real = pipeline.solvers_for

    def wrapped(sem: Semantics) -> list[SolverSpec]:
        return [replace(s, fn=_corrupting(s.fn, c)) for s in real(sem)]

    common.forget()
    with _patched(pipeline, "solvers_for", wrapped):
        return run_case(case, options)


def _corrupting(
    fn: Callable[[Case, Options], SolverResult], c: Corruption
) -> Callable[[Case, Options], SolverResult]:
    return lambda case, options: c.apply(fn(case, options))


@contextlib.contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)
