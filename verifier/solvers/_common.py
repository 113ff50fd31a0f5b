"""Helpers shared by the registered solvers: plain-list views of a graph, Kars' result types, the
optimal-move rule for Kars' score, the applicability tests, the timing wrapper, and the
conversions of results into a ``SolverResult``.

The reference solvers are pure Python over plain lists (``ndarray.tolist()`` once, then list
indexing), which keeps each algorithm readable beside its seed and is several times faster than
indexing numpy arrays element by element.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from verifier import registry
from verifier.errors import NotApplicable, VerifierError
from verifier.model import MAX, MIN, Case, GameGraph, IntArray, Semantics, SolverResult
from verifier.model.results import View
from verifier.registry import Options, compiled_available

__all__ = [
    "BudgetExceeded",
    "KarsScores",
    "MinimaxView",
    "RootScore",
    "RootScores",
    "VisitBudgetExceeded",
    "grundy_result",
    "kars_moves",
    "minimax_view",
    "require_compiled",
    "require_engine",
    "require_reference",
    "score_roots",
    "search_roots",
    "timed",
    "timed_unless",
]

T = TypeVar("T")


def _empty() -> Mapping[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True)
class MinimaxView:
    """A ``minimax`` graph as plain Python lists (Kars' V, E, t, V_up, V_down)."""

    n: int
    ptr: list[int]
    """CSR row pointers: the successors of ``p`` are ``idx[ptr[p]:ptr[p + 1]]`` (E p)."""
    idx: list[int]
    is_max: list[bool]
    """True on Max nodes (V_up); False on Min nodes (V_down) and on leaves."""
    is_leaf: list[bool]
    """True on the leaves F (nodes without moves)."""
    t: list[float]
    """The terminal value t(p) on leaves, 0.0 elsewhere."""


def minimax_view(g: GameGraph) -> MinimaxView:
    """Check that ``g`` is a well-formed ``minimax`` graph and return its list view.

    Every inner node must be owned by Max or Min and every leaf must carry a finite value;
    otherwise ``ValueError`` names the first offending node.
    """
    g.expect_semantics(Semantics.MINIMAX)
    leaf = g.is_terminal.tolist()
    owner = g.owner.tolist()
    val = g.value.tolist()
    t = [0.0] * g.n
    for p in range(g.n):
        if leaf[p]:
            if math.isnan(val[p]) or math.isinf(val[p]):
                raise ValueError(f"terminal node {g.name(p)!r} has no finite value")
            t[p] = float(val[p])
        elif owner[p] not in (MAX, MIN):
            raise ValueError(f"inner node {g.name(p)!r} is owned by neither max nor min")
    return MinimaxView(
        n=g.n,
        ptr=g.succ_ptr.tolist(),
        idx=g.succ_idx.tolist(),
        is_max=[not leaf[p] and owner[p] == MAX for p in range(g.n)],
        is_leaf=leaf,
        t=t,
    )


@dataclass(frozen=True)
class RootScore:
    """Kars' score of one root, computed by a search from that root (Alg. 6.7 or 7.2)."""

    value: float
    visits: int
    """Nodes visited: calls of ``s`` (Alg. 6.7) or ``c`` (Alg. 7.2), root included."""


class BudgetExceeded(VerifierError, RuntimeError):
    """A reference solver would need more work than it was allowed."""


class VisitBudgetExceeded(BudgetExceeded):
    """A root search visited more nodes than it was allowed (Alg. 6.7 is exponential)."""

    def __init__(self, root: int, budget: int) -> None:
        self.root = root
        self.budget = budget
        super().__init__(f"the search from node {root} exceeded {budget} visits")


@dataclass(frozen=True, eq=False)
class RootScores:
    """Kars' score of many roots, each computed by its own search (Alg. 6.7 or 7.2)."""

    value: NDArray[np.float64]
    """The score of every covered root; NaN elsewhere."""
    covered: NDArray[np.bool_]
    """Roots whose search finished within the visit budget."""
    visits: IntArray
    """Nodes visited by the search from each root (0 where it was not run or not finished)."""

    @property
    def total_visits(self) -> int:
        return int(self.visits.sum())

    def solver_result(self, name: str, seconds: float) -> SolverResult:
        """These scores as solver ``name``'s answer: view SCORE on the covered roots."""
        return SolverResult(
            solver=name,
            view=View.SCORE,
            values=self.value,
            seconds=seconds,
            covered=self.covered,
            work={"nodes_visited": self.total_visits, "roots": int(self.covered.sum())},
        )


def score_roots(
    n: int, roots: list[int], search: Callable[[int, int | None], RootScore], budget: int | None
) -> RootScores:
    """Run ``search(root, remaining budget)`` for each root in turn until the budget runs out.

    A root whose search exceeds what is left of the budget is not covered, nor are the roots
    after it (the visits it spent before giving up are not counted).
    """
    value = np.full(n, np.nan)
    covered = np.zeros(n, dtype=np.bool_)
    visits = np.zeros(n, dtype=np.int64)
    left = budget
    for r in roots:
        try:
            res = search(r, left)
        except VisitBudgetExceeded:
            break
        value[r], covered[r], visits[r] = res.value, True, res.visits
        if left is not None:
            left -= res.visits
    return RootScores(value=value, covered=covered, visits=visits)


def search_roots(
    g: GameGraph,
    root: int | None,
    *,
    every_root: bool,
    search: Callable[[int, int | None], RootScore],
    search_all: Callable[[int | None], RootScores],
    budget: int,
    too_big: str,
) -> tuple[RootScores, float]:
    """A root-based search (Kars' Alg. 6.7 / 7.2) as a registered solver runs it, timed: every
    node as root when ``every_root``, else the case's ``root`` alone; ``NotApplicable`` when
    neither is allowed (``too_big`` says why) or the budget is spent before a root is scored."""
    if every_root:
        r, seconds = timed(lambda: search_all(budget))
    elif root is not None:
        only = root
        r, seconds = timed(lambda: score_roots(g.n, [only], search, budget))
    else:
        raise NotApplicable(too_big)
    if g.n and not r.covered.any():
        raise NotApplicable(f"the search exceeded {budget} visits")
    return r, seconds


@dataclass(frozen=True, eq=False)
class KarsScores:
    """Kars' score of every node, with remoteness, an optimal move and the work done."""

    value: NDArray[np.float64]
    """The score s(x) of Def. 4.1 (draw = 0)."""
    remoteness: IntArray
    """For s(x) != 0: the length of optimal play (issue 28 item 4): 0 on a leaf; on the moves
    that keep the score (s(y) = s(x)) the side ahead (Max if s > 0, Min if s < 0) takes 1 + the
    least remoteness, the side behind 1 + the greatest. -1 where s(x) = 0. (Not the threshold
    layer, the first n with s_n(x) = s(x) minus one: there Min may concede more than s(x).)"""
    move: IntArray
    """An optimal successor (rule in ``kars_moves``); -1 on leaves."""
    work: Mapping[str, int] = field(default_factory=_empty)

    def solver_result(self, name: str, seconds: float) -> SolverResult:
        """These scores as solver ``name``'s answer: view SCORE, remoteness and optimal moves."""
        return SolverResult(
            solver=name,
            view=View.SCORE,
            values=self.value,
            seconds=seconds,
            remoteness=self.remoteness,
            move=self.move,
            work=self.work,
        )


def kars_moves(v: MinimaxView, value: list[float], remoteness: list[int]) -> IntArray:
    """An optimal move for every inner node, given Kars' scores and remoteness.

    The mover picks a successor ``y`` with ``s(y) = s(x)`` (one exists: s(x) is the max or min
    of the successors' scores). Among those, ties are broken so that the value is realised on
    a graph with cycles: the side ahead (Max when s(x) > 0, Min when s(x) < 0) takes the least
    remoteness (hurries), the side behind the greatest (delays); by the definition of the
    remoteness both are r - 1, so every move lowers it by one and play reaches a leaf worth
    s(x); at s(x) = 0 any such successor keeps the draw. The remaining ties go to the smallest
    id. Leaves get -1.
    """
    move = [-1] * v.n
    for x in range(v.n):
        if v.is_leaf[x]:
            continue
        sx = value[x]
        winner = (sx > 0) == v.is_max[x]
        best, best_r = -1, 0
        for y in v.idx[v.ptr[x] : v.ptr[x + 1]]:  # increasing ids: strict < keeps the smallest
            if value[y] != sx:
                continue
            r = remoteness[y]
            if best < 0 or (sx != 0 and (r < best_r if winner else r > best_r)):
                best, best_r = y, r
        move[x] = best
    return np.array(move, dtype=np.int64)


def _case_graph(case: Case, semantics: Semantics) -> GameGraph:
    g = case.graph
    if g.semantics is not semantics:
        raise NotApplicable(f"needs a {semantics.value} case, got {g.semantics.value}")
    return g


def require_reference(
    case: Case, options: Options, semantics: Semantics, *, linear: bool = False
) -> GameGraph:
    """The case's graph, or ``NotApplicable`` if the semantics or engine choice excludes it
    (``linear``: the solver runs in linear time, so ``auto`` runs it on larger graphs)."""
    g = _case_graph(case, semantics)
    if not options.use_reference(g.n, linear=linear):
        raise NotApplicable(f"reference solvers are off for {g.n} nodes (engine {options.engine})")
    return g


def require_engine(case: Case, options: Options, semantics: Semantics) -> GameGraph:
    """The case's graph, or ``NotApplicable`` if the semantics excludes it or the numpy engine
    is off."""
    g = _case_graph(case, semantics)
    if not options.use_numpy(g.n):
        raise NotApplicable(f"the numpy engine is off (engine {options.engine})")
    return g


def require_compiled(case: Case, options: Options, semantics: Semantics) -> GameGraph:
    """The case's graph, or ``NotApplicable`` if the semantics excludes it, the compiled
    kernels are off, or numba is not installed. Loads the semantics' kernels first (importing
    numba and starting its threads, 0.3-0.6 s once per process), so that the solver's own time
    does not include it."""
    g = _case_graph(case, semantics)
    if not options.use_compiled(g.n):
        if options.engine == "auto" and g.n <= registry.COMPILED_LIMIT and compiled_available():
            raise NotApplicable(
                f"the compiled kernels run above {registry.COMPILED_LIMIT:,} nodes (engine auto)"
            )
        why = "numba is not installed" if options.engine in ("auto", "compiled") else "off"
        raise NotApplicable(f"the compiled kernels are {why} (engine {options.engine})")
    from verifier.engine.compiled import warm_up

    warm_up(semantics)
    return g


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """Run ``fn()`` and return its result with the wall-clock seconds it took."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def timed_unless(fn: Callable[[], T], error: type[Exception], why: str = "") -> tuple[T, float]:
    """``timed(fn)``, where an ``error`` (a cycle, an exceeded budget) makes the solver not
    applicable: ``NotApplicable`` with ``why`` followed by the error's message."""
    try:
        return timed(fn)
    except error as e:
        raise NotApplicable(f"{why}{e}") from e


def grundy_result(
    name: str, values: IntArray, seconds: float, move: IntArray, work: Mapping[str, int]
) -> SolverResult:
    """Grundy values as solver ``name``'s answer: view GRUNDY, with the P/N position counts."""
    p = int(np.sum(values == 0))
    return SolverResult(
        solver=name,
        view=View.GRUNDY,
        values=values,
        seconds=seconds,
        move=move,
        work=work,
        extra={"p_positions": p, "n_positions": len(values) - p},
    )
