"""The proof fields of a certificate (docs/certificates.md) that an answer does not carry:
the minimax interval ``[lfp, gfp]`` of all (T+MM) solutions with the ranks of M2, and
Fraenkel's counter of the finite Grundy values (I1).

The ranks are layers of one attractor over the *level-keeping* moves (``lfp(y) = lfp(x)``):
the leaves (and every position at the chain's bottom, which needs no rank) are layer 0, a Max
position joins one layer after its first level-keeping successor, a Min position after the
last of them (its other successors have a greater ``lfp``); mirrored for ``gfp``. Moves of one
level connect positions of one level only, so one propagation covers every level (as the
minimax remoteness does, ``checks/remoteness.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from verifier.equations.fixpoints import BoolSystem, attractor, gfp, lfp
from verifier.equations.system import AND, CONST, OR, OrderSystem
from verifier.model import GameGraph
from verifier.model.semantics import MAX, MIN

__all__ = [
    "CertificateError",
    "MinimaxBounds",
    "ProofGaveUp",
    "fraenkel_counter",
    "kept_layers",
    "minimax_bounds",
]

IntArray = NDArray[np.int64]


class CertificateError(ValueError):
    """Our own answer has no certificate: it is wrong (the message names the position)."""


class ProofGaveUp(Exception):
    """A claim whose proof the SAT solver gave up on, below the size where a claim may rest
    on Z3: not wrong, not certified (the outside check is inconclusive)."""


class MinimaxBounds:
    """Per position: ``lfp`` and ``gfp`` (values of Kars' chain) and their ranks (-1 = none)."""

    def __init__(self, g: GameGraph) -> None:
        sys = OrderSystem.minimax(g)
        lo, hi = lfp(sys), gfp(sys)
        self.levels = sys.levels
        self.lfp = sys.levels[lo]
        self.gfp = sys.levels[hi]
        top = len(sys.levels) - 1
        self.lfp_rank = _ranks(g, lo, MAX, lo == 0, "lfp")
        self.gfp_rank = _ranks(g, hi, MIN, hi == top, "gfp")


def minimax_bounds(g: GameGraph) -> MinimaxBounds:
    """The interval of every position over all solutions of (T+MM), with M2's ranks."""
    return MinimaxBounds(g)


def kept_layers(g: GameGraph, keep: NDArray[np.bool_], ors: NDArray[np.bool_],
                base: NDArray[np.bool_], never: NDArray[np.bool_]) -> IntArray:  # fmt: skip
    """Each position's layer (-1: none) in the attractor of ``base`` over the moves ``keep``
    (a mask over ``g``'s moves in order): an ``ors`` position joins one layer after its first
    kept successor inside, another after the last of them; a position ``never`` (or with no
    kept move) does not join. The ranks of M2, the self-check's minimax ranks and heights."""
    n = g.n
    src = np.repeat(np.arange(n, dtype=np.int64), g.out_degree)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=n), out=ptr[1:])
    idx = np.asarray(g.succ_idx, dtype=np.int64)[keep]
    deg = np.diff(ptr)
    kind = np.where(base | never | (deg == 0), CONST, np.where(ors, OR, AND)).astype(np.int8)
    return attractor(BoolSystem(ptr, idx, kind, base & ~never))


def _ranks(
    g: GameGraph, level: IntArray, climber: int, free: NDArray[np.bool_], what: str
) -> IntArray:
    """Layers of the attractor over the moves that keep ``level``: ``climber`` (Max for lfp,
    Min for gfp) needs one such successor inside, the other side all of them (a position of
    the other side with no move of its level cannot hold it: a wrong bound); leaves are layer
    0; positions at the chain's end (``free``) need no rank (-1)."""
    src = np.repeat(np.arange(g.n, dtype=np.int64), g.out_degree)
    keep = level[src] == level[np.asarray(g.succ_idx, dtype=np.int64)]
    layer = kept_layers(g, keep, g.owner == climber, (g.out_degree == 0) & ~free, free)
    stuck = np.flatnonzero((layer < 0) & ~free)
    if len(stuck):
        x = int(stuck[0])
        raise CertificateError(f"position {g.name(x)!r}: its {what} is not derived (no rank)")
    return layer


def fraenkel_counter(g: GameGraph, finite: NDArray[np.bool_], values: IntArray) -> IntArray:
    """Fraenkel's counter (condition A) for the finite Grundy ``values`` (-1 elsewhere): the
    order in which Fraenkel and Yesha's labelling gives each position its value. The values
    must be the labelling's: otherwise ``CertificateError`` names a position where they differ."""
    from verifier.solvers.loopy_grundy import loopy_grundy

    res = loopy_grundy(g)
    ours = np.asarray(res.values, dtype=np.int64)
    theirs = np.where(finite, values, -1)
    bad = np.flatnonzero(ours != theirs)
    if len(bad):
        x = int(bad[0])
        raise CertificateError(
            f"position {g.name(x)!r}: Grundy value {int(theirs[x])} is not the generalized "
            f"Sprague-Grundy function's ({int(ours[x])})"
        )
    return np.where(finite, np.asarray(res.counter, dtype=np.int64), -1)
