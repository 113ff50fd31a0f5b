"""Registered wrappers of the vectorized numpy engine (``verifier.engine``).

They run when ``options.use_numpy(n)`` says so (``--engine auto`` or ``numpy``) and sort after
the seed-faithful reference solvers, so on small and medium graphs the pipeline compares each
engine result with its reference node by node (values, and remoteness where both report it).

| name | semantics | view | remoteness | move |
|---|---|---|---|---|
| ``retrograde-numpy`` | normal | LABEL | plies | optimal move |
| ``attractor-numpy`` | reachability | REGION | attractor layer | strategies |
| ``kars-numpy`` | minimax | SCORE | length of optimal play (*) | optimal move (*) |
| ``grundy-numpy`` | impartial (acyclic) | GRUNDY | -- | move to a P-position |
| ``retrograde-compiled`` | normal | LABEL | plies | optimal move |
| ``attractor-compiled`` | reachability | REGION | attractor layer | strategies |
| ``kars-compiled`` | minimax | SCORE | length of optimal play (*) | optimal move (*) |
| ``grundy-compiled`` | impartial (acyclic) | GRUNDY | -- | move to a P-position |
| ``grundy-loopy-compiled`` | impartial (any) | GRUNDY, ``inf(K)`` | -- | ``grundy-loopy``'s rule |

The ``-compiled`` solvers are the seeds' FIFO queues compiled by numba
(``verifier.engine.compiled``); they run when ``options.use_compiled(n)`` says so.

(*) when the leaves carry at most ``KARS_MOVES_LIMIT`` distinct non-zero values (a limit from
when the remoteness took one attractor per distinct score; it is now one linear pass on the
score-keeping moves, issue 28 item 4, and the limit could go). ``kars-compiled`` picks its
moves from its own scores and remoteness with the numpy engine's rule (``kars_moves_numpy``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.engine import attractor_numpy, grundy_numpy, kars_numpy, retrograde_numpy
from verifier.engine.compiled import (
    CompiledKars,
    CompiledLoopy,
    attractor_compiled,
    first_match_compiled,
    grundy_compiled,
    kars_compiled,
    loopy_grundy_compiled,
    retrograde_compiled,
)
from verifier.engine.frontier import first_match_per_source, successor_csr
from verifier.engine.kars import EngineKars
from verifier.errors import CycleError
from verifier.model import Case, GameGraph, IntArray, Semantics, SolverResult
from verifier.model.results import View
from verifier.model.rows import edge_buffer, reduce_rows
from verifier.registry import Options, solver
from verifier.solvers._common import (
    grundy_result,
    require_compiled,
    require_engine,
    timed,
    timed_unless,
)
from verifier.solvers.grundy import NEEDS_ACYCLIC
from verifier.solvers.loopy_grundy import DRAW, LOSS, WIN, loopy_result

__all__ = [
    "KARS_MOVES_LIMIT",
    "attractor_compiled_solver",
    "attractor_numpy_solver",
    "grundy_compiled_solver",
    "grundy_loopy_compiled_solver",
    "grundy_numpy_solver",
    "kars_compiled_solver",
    "kars_numpy_solver",
    "loopy_classes",
    "loopy_moves",
    "p_position_moves",
    "retrograde_compiled_solver",
    "retrograde_numpy_solver",
]

ORDER = 60
"""After the reference solvers (10-40): they stay the first of their view, the one compared."""

COMPILED_ORDER = 65
"""After the numpy engine: with ``--engine compiled`` it is the first of its view."""

KARS_MOVES_LIMIT = 16
"""Up to this many distinct non-zero leaf values ``kars-numpy`` also reports remoteness/moves."""


def p_position_moves(g: GameGraph, values: IntArray) -> IntArray:
    """For each N-position (value > 0) its smallest successor of value 0, else -1."""
    want = np.where(values > 0, 0, -1)
    return first_match_per_source(successor_csr(g), want, values)


def _propagation_result(
    name: str, g: GameGraph, solve: Callable[[GameGraph], Any], rounds: str
) -> SolverResult:
    """Run a retrograde / attractor ``solve`` and report it as solver ``name``; the work counts
    the edges scanned and the result's ``rounds`` attribute (frontiers or queue layers)."""
    r, seconds = timed(lambda: solve(g))
    work = {"edges_scanned": r.edges_scanned, rounds: getattr(r, rounds), "nodes": g.n}
    out: SolverResult = r.solver_result(name, seconds, work)
    return out


@solver("retrograde-numpy", [Semantics.NORMAL], order=ORDER, linear=True)
def retrograde_numpy_solver(case: Case, options: Options) -> SolverResult:
    """Retrograde analysis on the engine: view LABEL with remoteness and optimal moves."""
    g = require_engine(case, options, Semantics.NORMAL)
    return _propagation_result("retrograde-numpy", g, retrograde_numpy, "rounds")


@solver("attractor-numpy", [Semantics.REACHABILITY], order=ORDER, linear=True)
def attractor_numpy_solver(case: Case, options: Options) -> SolverResult:
    """The attractor on the engine: view REGION, remoteness = layer, move = strategies."""
    g = require_engine(case, options, Semantics.REACHABILITY)
    return _propagation_result("attractor-numpy", g, attractor_numpy, "rounds")


@solver("retrograde-compiled", [Semantics.NORMAL], order=COMPILED_ORDER, linear=True)
def retrograde_compiled_solver(case: Case, options: Options) -> SolverResult:
    """Retrograde analysis by the compiled queue: view LABEL with remoteness and moves."""
    g = require_compiled(case, options, Semantics.NORMAL)
    return _propagation_result("retrograde-compiled", g, retrograde_compiled, "layers")


@solver("attractor-compiled", [Semantics.REACHABILITY], order=COMPILED_ORDER, linear=True)
def attractor_compiled_solver(case: Case, options: Options) -> SolverResult:
    """The attractor by the compiled queue: view REGION, remoteness = layer, move = strategies."""
    g = require_compiled(case, options, Semantics.REACHABILITY)
    return _propagation_result("attractor-compiled", g, attractor_compiled, "layers")


@solver("kars-numpy", [Semantics.MINIMAX], order=ORDER, linear=True)
def kars_numpy_solver(case: Case, options: Options) -> SolverResult:
    """Kars' score of every node on the engine (nested threshold attractors): view SCORE."""
    g = require_engine(case, options, Semantics.MINIMAX)
    r, seconds = timed(lambda: kars_numpy(g, moves=_few_values(g)))
    return _score_result("kars-numpy", g, r, seconds, rounds=r.rounds)


@solver("kars-compiled", [Semantics.MINIMAX], order=COMPILED_ORDER, linear=True)
def kars_compiled_solver(case: Case, options: Options) -> SolverResult:
    """Kars' score of every node by the compiled queue (nested threshold attractors)."""
    g = require_compiled(case, options, Semantics.MINIMAX)
    r, seconds = timed(lambda: kars_compiled(g, moves=_few_values(g)))
    return _score_result("kars-compiled", g, r, seconds)


def _score_result(
    name: str, g: GameGraph, r: EngineKars | CompiledKars, seconds: float, **work: int
) -> SolverResult:
    """Kars' scores (with remoteness and moves when computed) as solver ``name``'s answer."""
    return SolverResult(
        solver=name,
        view=View.SCORE,
        values=r.score,
        seconds=seconds,
        remoteness=r.remoteness,
        move=r.move,
        work={"edges_scanned": r.edges_scanned, **work, "thresholds": r.levels, "nodes": g.n},
    )


def _few_values(g: GameGraph) -> bool:
    """At most ``KARS_MOVES_LIMIT`` distinct non-zero leaf values (remoteness and moves)?"""
    values = g.value[g.is_terminal]
    return len(np.unique(values[values != 0])) <= KARS_MOVES_LIMIT


@solver("grundy-numpy", [Semantics.IMPARTIAL], order=ORDER, linear=True)
def grundy_numpy_solver(case: Case, options: Options) -> SolverResult:
    """Grundy values of an acyclic impartial graph on the engine; ``NotApplicable`` on a cycle."""
    g = require_engine(case, options, Semantics.IMPARTIAL)
    r, seconds = timed_unless(lambda: grundy_numpy(g), CycleError, NEEDS_ACYCLIC)
    work = {"edges_scanned": r.edges_scanned, "rounds": r.rounds, "nodes": g.n}
    return grundy_result("grundy-numpy", r.value, seconds, p_position_moves(g, r.value), work)


@solver("grundy-compiled", [Semantics.IMPARTIAL], order=COMPILED_ORDER)
def grundy_compiled_solver(case: Case, options: Options) -> SolverResult:
    """Grundy values of an acyclic impartial graph by the compiled queue; ``NotApplicable`` on
    a cycle."""
    g = require_compiled(case, options, Semantics.IMPARTIAL)
    r, seconds = timed_unless(lambda: grundy_compiled(g), CycleError, NEEDS_ACYCLIC)
    work = {"edges_scanned": r.edges_scanned, "nodes": g.n}
    return grundy_result("grundy-compiled", r.value, seconds, p_position_moves(g, r.value), work)


def loopy_classes(r: CompiledLoopy) -> NDArray[np.int8]:
    """Per node ``WIN`` (N), ``LOSS`` (P) or ``DRAW`` (D), as ``outcome_classes``: finite
    ``> 0`` is N, ``0`` is P, ``inf(K)`` is N if ``0`` is in ``K``, else D."""
    finite = np.where(r.value > 0, WIN, LOSS)
    infinite = np.where(r.zero_in_k(), WIN, DRAW)
    return np.where(r.value >= 0, finite, infinite).astype(np.int8)


def loopy_moves(g: GameGraph, classes: NDArray[np.int8], counter: IntArray) -> IntArray:
    """``grundy-loopy``'s rule: N: the option in P of least counter (a first P option may go
    round a cycle for ever); D: the first option in D (keeps the draw); P: -1. Counters of
    finite nodes are distinct and >= 0, so the key ``counter`` (P) / -1 (D) / -2 (N) names one
    option."""
    p = classes == LOSS
    code = np.where(p, counter, np.where(classes == DRAW, -1, -2)).astype(np.int64)
    buf = edge_buffer(g, np.int64)
    buf[: g.m] = np.where(p[g.succ_idx], counter[g.succ_idx], -3)
    buf[: g.m][buf[: g.m] < 0] = np.iinfo(np.int64).max
    least = reduce_rows(g, np.minimum, buf, -3)
    want = np.where(classes == WIN, least, np.where(classes == DRAW, -1, -3)).astype(np.int64)
    out: IntArray = first_match_compiled(g, want, code)
    return out


@solver("grundy-loopy-compiled", [Semantics.IMPARTIAL], order=COMPILED_ORDER, linear=True)
def grundy_loopy_compiled_solver(case: Case, options: Options) -> SolverResult:
    """The generalized Sprague-Grundy function of any impartial graph by the compiled
    labelling, published as ``grundy-loopy`` publishes it: finite values, -1 with ``loopy`` =
    {node id: K} on infinite ones, and ``counter``, ``rounds``, ``draws`` in ``extra``."""
    g = require_compiled(case, options, Semantics.IMPARTIAL)
    r, seconds = timed(lambda: loopy_grundy_compiled(g))
    classes = loopy_classes(r)
    return loopy_result(
        "grundy-loopy-compiled",
        g,
        r.value,
        r.kset(),
        r.counter,
        classes,
        loopy_moves(g, classes, r.counter),
        seconds,
        rounds=r.rounds,
        edges_scanned=r.edges_scanned,
    )
