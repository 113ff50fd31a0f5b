"""Least and greatest fixpoints of the equations, computed directly by propagation.

A monotone Boolean system (``BoolSystem``: constants, ``OR`` nodes, ``AND`` nodes over a CSR
edge list) has a least fixpoint: the attractor of the true constants, where an ``OR`` node joins
when one successor is in and an ``AND`` node when all are (ICO notes, layers W_i, good-neighbour
counters). Its greatest fixpoint is the complement of the dual attractor (false constants, the
roles of ``OR`` and ``AND`` swapped).

For a monotone ``OrderSystem`` threshold ``k`` is such a Boolean system (``g(x, k) = s(x) >= k``
with the constants ``const >= k``), so

    lfp(x) = #{k : x in lfp_k},    gfp(x) = #{k : x in gfp_k}.

Every solution s lies between them (Knaster-Tarski: the operator is monotone on the finite
lattice K^V), the solution is unique iff lfp = gfp, and Kars' draw score is
``clamp(0, lfp, gfp) = max(lfp, min(gfp, 0))`` (proof in ``docs/smt.md``).

All loops are over frontiers (vectorized with numpy), never over nodes in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.distinct import distinct
from verifier.equations.system import AND, CONST, OR, OrderSystem
from verifier.model.graph import IdArray, IntArray

__all__ = [
    "BoolSystem",
    "attractor",
    "gather",
    "gfp",
    "greatest",
    "kars_clamp",
    "least",
    "lfp",
    "reach_backward",
]


@dataclass(frozen=True, eq=False)
class BoolSystem:
    """A monotone Boolean equation system x = const | OR(succ) | AND(succ)."""

    ptr: IntArray
    """CSR row pointers (length n + 1)."""
    idx: IdArray
    """CSR successor ids (a graph's own ``succ_idx``: int32 when ids fit)."""
    kind: NDArray[np.int8]
    """``CONST`` / ``OR`` / ``AND`` per node (an ``AND`` node must have a successor)."""
    const: NDArray[np.bool_]
    """Value of the ``CONST`` nodes."""

    @property
    def n(self) -> int:
        return len(self.ptr) - 1

    @classmethod
    def threshold(cls, sys: OrderSystem, k: int) -> BoolSystem:
        """Threshold ``k`` (1..T) of a monotone order system: ``g(x, k) = s(x) >= k``."""
        if sys.negamax:
            raise ValueError("a negamax system is not monotone: it has no threshold systems")
        g = sys.graph
        return cls(g.succ_ptr, g.succ_idx, sys.kind, (sys.kind == CONST) & (sys.const >= k))

    def restrict(self, move: IntArray) -> BoolSystem:
        """Keep only the edge ``x -> move[x]`` at every ``OR`` node with ``move[x] >= 0``."""
        n = self.n
        deg = np.diff(self.ptr)
        chosen = (self.kind == OR) & (move >= 0)
        new_deg = np.where(chosen, 1, deg)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(new_deg, out=ptr[1:])
        idx = np.empty(int(ptr[-1]), dtype=np.int64)
        keep = ~np.repeat(chosen, deg)
        idx[~np.repeat(chosen, new_deg)] = self.idx[keep]
        idx[ptr[:-1][chosen]] = move[chosen]
        return BoolSystem(ptr, idx, self.kind, self.const)

    def dual(self) -> BoolSystem:
        """The system of the negations: false constants become the targets, OR <-> AND."""
        kind = np.where(self.kind == OR, AND, np.where(self.kind == AND, OR, CONST))
        return BoolSystem(self.ptr, self.idx, kind.astype(np.int8), ~self.const)

    def pred(self) -> tuple[IntArray, IntArray]:
        """Predecessor CSR (``ptr``, ``idx``)."""
        n = self.n
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.ptr))
        order = np.argsort(self.idx, kind="stable")
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.idx, minlength=n), out=ptr[1:])
        return ptr, src[order]


def gather(ptr: IntArray, idx: IdArray, rows: IdArray) -> IdArray:
    """Concatenation of ``idx[ptr[r]:ptr[r+1]]`` over ``rows`` (vectorized)."""
    starts = ptr[rows]
    lens = ptr[rows + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offs = np.repeat(starts - np.cumsum(lens) + lens, lens)
    return idx[offs + np.arange(total, dtype=np.int64)]


def attractor(sys: BoolSystem, pred: tuple[IntArray, IntArray] | None = None) -> IntArray:
    """Least fixpoint of ``sys`` with its layers: layer per node, -1 outside.

    Layer 0 are the true constants; an ``OR`` node joins at 1 + the least layer of its
    successors inside, an ``AND`` node at 1 + the greatest, once all of them are inside.
    """
    n = sys.n
    pptr, pidx = pred if pred is not None else sys.pred()
    layer = np.full(n, -1, dtype=np.int64)
    count = np.diff(sys.ptr).astype(np.int64)
    is_or = sys.kind == OR
    is_and = sys.kind == AND
    frontier = np.flatnonzero((sys.kind == CONST) & sys.const)
    layer[frontier] = 0
    depth = 0
    while len(frontier):
        depth += 1
        p = gather(pptr, pidx, frontier)
        p = p[layer[p] < 0]
        joined_or = p[is_or[p]]
        ands = p[is_and[p]]
        if len(ands):
            u, c = np.unique(ands, return_counts=True)
            count[u] -= c
            joined_and = u[count[u] == 0]
        else:
            joined_and = ands
        frontier = distinct(np.concatenate([joined_or, joined_and]))
        layer[frontier] = depth
    return layer


def _levels(sys: OrderSystem, greatest_fp: bool) -> IntArray:
    g = sys.graph
    pred = (g.pred_ptr, g.pred_idx)
    out = np.zeros(sys.n, dtype=np.int64)
    for k in range(1, sys.top + 1):
        b = BoolSystem.threshold(sys, k)
        if greatest_fp:
            out += attractor(b.dual(), pred) < 0
        else:
            out += attractor(b, pred) >= 0
    return out


def lfp(sys: OrderSystem) -> IntArray:
    """Value indices of the least solution of a monotone order system."""
    return _levels(sys, greatest_fp=False)


def gfp(sys: OrderSystem) -> IntArray:
    """Value indices of the greatest solution of a monotone order system."""
    return _levels(sys, greatest_fp=True)


def least(sys: BoolSystem) -> NDArray[np.bool_]:
    """The least fixpoint of a Boolean system as a mask."""
    return attractor(sys) >= 0


def greatest(sys: BoolSystem) -> NDArray[np.bool_]:
    """The greatest fixpoint of a Boolean system as a mask."""
    return attractor(sys.dual()) < 0


def kars_clamp(sys: OrderSystem, lo: IntArray, hi: IntArray) -> IntArray:
    """``max(lfp, min(gfp, 0))``: Kars' draw score, the solution closest to the draw."""
    return np.maximum(lo, np.minimum(hi, sys.zero))


def reach_backward(pptr: IntArray, pidx: IntArray, start: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Nodes from which some node of ``start`` is reachable (``start`` included)."""
    seen = start.copy()
    frontier = np.flatnonzero(start)
    while len(frontier):
        p = distinct(gather(pptr, pidx, frontier))
        p = p[~seen[p]]
        seen[p] = True
        frontier = p
    return seen
