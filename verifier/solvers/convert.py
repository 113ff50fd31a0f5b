"""Conversions from the ``normal`` and ``reachability`` semantics to ``minimax``, so that Kars'
score can check retrograde analysis and the attractor node by node.

``normal`` -> ``minimax``. A normal position has no fixed owner (the mover alternates), so each
position x is split into the two sides to move: x+ (Max to move, id x) and x- (Min to move, id
n + x). A move x -> y becomes x+ -> y- and x- -> y+. A terminal labelled L from the mover's view
is worth L at x+ and -L at x- (a draw 0 at both). Then won / lost / unknown (+1 / -1 / 0) of x is
Kars' score of x+: Max reaching a +1 leaf is exactly Knuth's inductive "won", Min reaching a -1
leaf is "lost", and everything else (cycles, draws) is scored 0. The remoteness of x+ (the
threshold attractor's layer) obeys the same recursion as retrograde remoteness and the move rule
of ``kars_moves`` is the retrograde one, so moves map back too (y- -> y).

``reachability`` -> ``minimax``. Same nodes; player 0 becomes Max and player 1 Min; a target
becomes a leaf worth +1 (play has reached G, its moves no longer matter); every other dead end is
worth -1 (play ended outside G). Player 0 wins iff Kars' score is +1: an infinite play is a draw
(0) for Kars and a loss for player 0, so only +1 counts. The remoteness of a +1 node is its
attractor layer and Max's optimal move is the attractor's player-0 strategy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, IntArray, Semantics, SolverResult
from verifier.model.describe import PerSemantics
from verifier.model.results import View
from verifier.model.semantics import PLAYER0, PLAYER1
from verifier.registry import Options, solver
from verifier.solvers._common import require_reference, timed
from verifier.solvers.kars_levels import kars_levels
from verifier.solvers.retrograde import terminal_labels

__all__ = [
    "Conversion",
    "kars_via_minimax_solver",
    "normal_to_minimax",
    "reachability_to_minimax",
]


class Conversion(NamedTuple):
    """A converted graph and, per original node, the id whose score is that node's value."""

    graph: GameGraph
    node_of: IntArray


def normal_to_minimax(g: GameGraph) -> Conversion:
    """Split every position of a ``normal`` graph into x+ (id x) and x- (id n + x).

    >>> g = GameGraph.from_successors({"a": ["b"], "b": []}, semantics=Semantics.NORMAL)
    >>> h, node_of = normal_to_minimax(g)
    >>> list(h.names), h.successors(0).tolist(), h.value.tolist()[1::2], node_of.tolist()
    (['a+', 'b+', 'a-', 'b-'], [3], [-1.0, 1.0], [0, 1])
    """
    g.expect_semantics(Semantics.NORMAL)
    n = g.n
    src, dst = g.edge_src, g.succ_idx.astype(np.int64)  # dst + n may pass int32
    label = np.array(terminal_labels(g), dtype=np.float64)
    leaf = g.is_terminal
    owner = np.concatenate([np.where(leaf, NOBODY, MAX), np.where(leaf, NOBODY, MIN)])
    value = np.concatenate([np.where(leaf, label, np.nan), np.where(leaf, -label, np.nan)])
    h = GameGraph.from_edges(
        [f"{x}+" for x in g.names] + [f"{x}-" for x in g.names],
        np.concatenate([src, src + n]),  # x+ -> y- and x- -> y+
        np.concatenate([dst + n, dst]),
        semantics=Semantics.MINIMAX,
        owner=owner,
        value=value,
    )
    return Conversion(h, np.arange(n, dtype=np.int64))


def reachability_to_minimax(g: GameGraph) -> Conversion:
    """Player 0 = Max, player 1 = Min, targets are leaves worth +1, other dead ends -1.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["a"], "c": []},
    ...     semantics=Semantics.REACHABILITY, owner={"a": 1, "b": 0}, target=["b"])
    >>> h, node_of = reachability_to_minimax(g)
    >>> h.succ_idx.tolist(), h.owner.tolist(), h.value.tolist()
    ([1, 2], [1, -1, -1], [nan, 1.0, -1.0])
    """
    g.expect_semantics(Semantics.REACHABILITY)
    keep = ~g.target[g.edge_src]  # a target's moves are dropped: it is a leaf now
    src, dst = g.edge_src[keep], g.succ_idx[keep]
    inner = np.bincount(src, minlength=g.n) > 0
    bad = inner & ~np.isin(g.owner, (PLAYER0, PLAYER1))
    if bad.any():
        raise ValueError(f"node {g.name(int(np.flatnonzero(bad)[0]))!r} has moves but no owner")
    owner = np.where(inner, np.where(g.owner == PLAYER0, MAX, MIN), NOBODY)
    value = np.where(inner, np.nan, np.where(g.target, 1.0, -1.0))
    h = GameGraph.from_edges(
        list(g.names), src, dst, semantics=Semantics.MINIMAX, owner=owner, value=value
    )
    return Conversion(h, np.arange(g.n, dtype=np.int64))


_VIA_MINIMAX: PerSemantics[Callable[[GameGraph], SolverResult]] = PerSemantics(
    "conversion", "no conversion from {semantics} to minimax"
)
"""How each semantics' answer comes out of Kars' score on its minimax conversion."""


@solver("kars-via-minimax", [Semantics.NORMAL, Semantics.REACHABILITY], order=60)
def kars_via_minimax_solver(case: Case, options: Options) -> SolverResult:
    """Kars' score (``kars_levels``) through the conversion: view LABEL for ``normal`` cases
    (compared with ``retrograde``), REGION for ``reachability`` (compared with ``attractor``)."""
    sem = case.graph.semantics
    g = require_reference(case, options, sem, linear=True)
    return _VIA_MINIMAX[sem](g)


@_VIA_MINIMAX.register(Semantics.NORMAL)
def _normal_via_minimax(g: GameGraph) -> SolverResult:
    """Labels: Kars' score of the negamax conversion, moves mapped back to ``g``'s nodes."""
    (h, node_of), t_conv = timed(lambda: normal_to_minimax(g))
    r, seconds = timed(lambda: kars_levels(h))
    mv = r.move[node_of]
    return SolverResult(
        solver="kars-via-minimax",
        view=View.LABEL,
        values=r.value[node_of].astype(np.int8),
        seconds=t_conv + seconds,
        remoteness=r.remoteness[node_of],
        move=np.where(mv >= 0, mv % g.n, -1),
        work={**r.work, "converted_nodes": h.n},
    )


@_VIA_MINIMAX.register(Semantics.REACHABILITY)
def _reachability_via_minimax(g: GameGraph) -> SolverResult:
    """The region: Kars' score 1 where player 0 reaches the target, the winner's moves."""
    (h, node_of), t_conv = timed(lambda: reachability_to_minimax(g))
    r, seconds = timed(lambda: kars_levels(h))
    win = r.value[node_of] == 1.0
    p0 = g.owner == PLAYER0
    strategy = (p0 & win & ~g.target) | (~p0 & ~win)
    return SolverResult(
        solver="kars-via-minimax",
        view=View.REGION,
        values=win.astype(np.int8),
        seconds=t_conv + seconds,
        remoteness=np.where(win, r.remoteness[node_of], -1),
        move=np.where(strategy, r.move[node_of], -1),
        work={**r.work, "converted_nodes": h.n},
    )
