"""Results of solvers and checks: frozen dataclasses and three-valued verdicts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model.columns import LOOPY, MOVE, REMOTENESS, VALUE, Column

__all__ = [
    "AGREE",
    "ANSWER",
    "EXPECT",
    "OWN_CHECKS",
    "SOLVER",
    "AttractorResult",
    "CheckResult",
    "RetrogradeResult",
    "SolverResult",
    "Verdict",
    "View",
    "by_check",
    "checks_proving",
]


class Verdict(StrEnum):
    """Outcome of one check (CrossHair's three values)."""

    CONFIRMED = "confirmed"
    """The property was proved (by Z3 or by an exhaustive independent check)."""
    REFUTED = "refuted"
    """The property is false; the check carries a witness."""
    UNKNOWN = "unknown"
    """Undecided (Z3 ``unknown``, resource limit, timeout); never counted as success."""


class View(StrEnum):
    """What a solver's per-node ``values`` mean; solvers with the same view are compared."""

    SCORE = "score"
    """Kars' minimax score (draw = 0), float."""
    LABEL = "label"
    """Won (+1) / lost (-1) / unknown (0) from the mover's view (``normal``)."""
    REGION = "region"
    """1 if player 0 wins from the node (it lies in the attractor W), else 0."""
    GRUNDY = "grundy"
    """Sprague-Grundy value; loopy values are encoded by the solver (see its ``extra``)."""


@dataclass(frozen=True, eq=False)
class SolverResult:
    """What one solver computed for one case."""

    solver: str
    """Registered name of the solver, e.g. ``retrograde`` or ``kars-iteration``."""
    view: View
    values: NDArray[Any]
    """One value per node id (meaning given by ``view``)."""
    seconds: float = 0.0
    covered: NDArray[np.bool_] | None = None
    """Nodes whose value was computed (``None`` = all). Root-only solvers cover fewer."""
    remoteness: NDArray[np.int64] | None = None
    """Plies to the end under optimal play, or attractor layer; -1 where undefined."""
    move: NDArray[np.int64] | None = None
    """An optimal move (successor id) per node; -1 where there is none or it does not matter."""
    work: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """How much work the solver did: rounds, nodes visited, edges scanned, ..."""
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Anything else worth reporting (JSON-serialisable)."""
    loopy: Mapping[int, tuple[int, ...]] | None = None
    """``GRUNDY``: the set K of every node whose value is infinite (Smith's inf_K); ``values``
    holds -1 there."""
    more: Mapping[str, Column] = field(default_factory=lambda: MappingProxyType({}))
    """Further named columns (registered in ``verifier.model.columns``) beyond the four above."""

    def with_columns(self, arrays: Mapping[str, NDArray[np.int64] | None]) -> SolverResult:
        """This result with the answer columns ``arrays`` (by registered name, -1 = not given)
        in place: remoteness and move in their fields, the others in ``more``."""
        fields: dict[str, Any] = {}
        more = dict(self.more)
        for name, a in arrays.items():
            if name in (REMOTENESS, MOVE):
                fields[name] = a
            elif a is None:
                more.pop(name, None)
            else:
                more[name] = Column.where(a, a >= 0)
        return replace(self, more=MappingProxyType(more), **fields)

    def covered_mask(self) -> NDArray[np.bool_]:
        if self.covered is None:
            return np.ones(len(self.values), dtype=np.bool_)
        return self.covered

    @cached_property
    def columns(self) -> Mapping[str, Column]:
        """This answer as named, masked columns: the only form read past the solver layer.

        ``value`` is given on the covered nodes (less the infinite Grundy values, which are in
        ``loopy``), ``remoteness`` and ``move`` where the solver set them (the -1 of the fields
        above becomes a masked entry), then the ``more`` columns."""
        cov = self.covered_mask()
        cols: dict[str, Column] = {}
        value_given = cov
        if self.loopy:
            inf = Column.sparse(len(cov), {int(u): tuple(k) for u, k in self.loopy.items()})
            cols[LOOPY] = inf.restrict(cov)
            value_given = cov & ~inf.given
        cols[VALUE] = Column(np.asarray(self.values), value_given)
        if self.remoteness is not None:
            cols[REMOTENESS] = Column(self.remoteness, cov & (self.remoteness >= 0))
        if self.move is not None:
            cols[MOVE] = Column(self.move, cov & (self.move >= 0))
        for name, col in self.more.items():
            cols[name] = col.restrict(cov)
        return MappingProxyType(cols)


@dataclass(frozen=True)
class CheckResult:
    """One check of the report: a name, a verdict, and what backs it."""

    name: str
    verdict: Verdict
    detail: str = ""
    """One or two sentences a person can read."""
    witness: Mapping[str, Any] | None = None
    """Where refuted (or a finding like non-uniqueness): the evidence, JSON-serialisable."""
    seconds: float = 0.0
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Structured findings (e.g. ``unique``, ``intervals``), JSON-serialisable."""
    check: str = ""
    """The registered name of the check that made it, stamped by the pipeline (``agree`` and
    ``expect`` for the pipeline's own comparisons, ``answers`` for an answer file's verdict):
    what programs select by. ``name`` is for people and may say more (``moves (kars-levels)``)."""
    proves: frozenset[str] | None = None
    """The answer columns this result vouches for when confirmed; ``None``: what its check's
    registration says (``@check(..., proves=...)``), stamped by the pipeline."""
    judged: frozenset[str] = frozenset()
    """The results (by solver name) this result judges, set by the check that made it: what
    programs select by (``claims`` picks the results about an answer file's claims), never the
    words of ``name`` or ``detail``."""

    def proving(self, column: str) -> bool:
        """Does this result, confirmed, vouch for ``column``?"""
        return self.verdict is Verdict.CONFIRMED and column in (self.proves or ())


@dataclass(frozen=True, eq=False)
class RetrogradeResult:
    """Labels, remoteness and optimal moves of a ``normal`` game graph (retrograde analysis:
    the reference solver's result; the engine's adds its round counts)."""

    label: NDArray[np.int8]
    """+1 won, -1 lost, 0 unknown (draw terminals included), from the view of the player to
    move."""
    remoteness: NDArray[np.int64]
    """0 on won/lost terminals; won: 1 + least remoteness of a lost successor; lost: 1 +
    greatest remoteness of a successor; -1 on unknown nodes (draw terminals included)."""
    move: NDArray[np.int64]
    """Won: a lost successor of least remoteness; lost: a successor of greatest remoteness;
    unknown: the first successor that is unknown too (a move that does not lose), -1 if there
    is none; terminals -1. Remaining ties go to the smallest id."""
    edges_scanned: int

    def solver_result(self, name: str, seconds: float, work: Mapping[str, int]) -> SolverResult:
        """This result as solver ``name``'s answer: view LABEL with remoteness and moves."""
        return SolverResult(
            solver=name,
            view=View.LABEL,
            values=self.label,
            seconds=seconds,
            remoteness=self.remoteness,
            move=self.move,
            work=work,
        )


@dataclass(frozen=True, eq=False)
class AttractorResult:
    """The winning region of player 0 with layers and both players' strategies (the
    reference solver's result; the engine's adds its round counts)."""

    win: NDArray[np.bool_]
    """Membership of W: player 0 wins from the node."""
    layer: NDArray[np.int64]
    """The least i with the node in W_i; -1 outside W."""
    move: NDArray[np.int64]
    """Player 0 inside W (off G): a successor of least layer (ties: smallest id). Player 1
    outside W: a successor outside W (smallest id; -1 at a dead end). -1 elsewhere (targets,
    player 0 outside W, player 1 inside W: every move is as good as any other)."""
    edges_scanned: int

    def solver_result(self, name: str, seconds: float, work: Mapping[str, int]) -> SolverResult:
        """This result as solver ``name``'s answer: view REGION, remoteness = layer, move =
        the strategies."""
        return SolverResult(
            solver=name,
            view=View.REGION,
            values=self.win.astype(np.int8),
            seconds=seconds,
            remoteness=self.layer,
            move=self.move,
            work=work,
        )


def by_check(checks: Iterable[CheckResult], name: str) -> list[CheckResult]:
    """The results of the check registered as ``name`` (``CheckResult.check``), in order."""
    return [c for c in checks if c.check == name]


def checks_proving(checks: Iterable[CheckResult], column: str) -> list[CheckResult]:
    """The confirmed results that vouch for ``column`` (``CheckResult.proving``), in order."""
    return [c for c in checks if c.proving(column)]


AGREE = "agree"
"""``CheckResult.check`` of the pipeline's agreement between solvers."""
EXPECT = "expect"
"""``CheckResult.check`` of the pipeline's comparison with the case's ``expect``."""
ANSWER = "answer"
"""``CheckResult.check`` of the pipeline's "no solver answered"."""
SOLVER = "solver"
"""``CheckResult.check`` of a crashed solver."""
OWN_CHECKS = frozenset({AGREE, EXPECT, ANSWER, SOLVER})
"""The pipeline's own results, not registered checks (``verifier.claims`` adds ``answers``)."""
