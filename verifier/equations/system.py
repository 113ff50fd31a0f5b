"""The equations a solver's answer must satisfy, over a finite chain of values.

Every semantics becomes one ``OrderSystem``: a value index per node in ``0..T`` (the sorted value
set ``levels``), and per node a kind: a constant, the maximum (``OR``) or the minimum (``AND``) of
its successors' values. ``negamax`` systems (``normal``) take the maximum of the successors'
*negated* values (the mover's view), so they are not monotone.

- ``minimax``: levels t(F) ∪ {0} (Kars' (T+MM)); terminals constant, Max nodes ``OR``, Min ``AND``.
- ``normal``: levels {-1, 0, 1}; terminals constant (their label), inner nodes negamax.
- ``reachability``: levels {0, 1}; targets constant 1, other dead ends 0, player 0 ``OR``,
  player 1 ``AND``; the winning region is the least solution.

In the Boolean order encoding a value index ``i`` is the chain ``g(x, k) = (i >= k)`` for
``k = 1..T``; threshold ``k`` of a monotone system is a ``BoolSystem`` (see ``fixpoints``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.model.describe import describe
from verifier.model.graph import GameGraph, IntArray
from verifier.model.rows import edge_buffer, reduce_rows
from verifier.model.semantics import MAX, MIN

__all__ = ["AND", "CONST", "OR", "OrderSystem"]

CONST = 0
"""Kind of a node whose value is fixed (a terminal, a target)."""
OR = 1
"""Kind of a node whose value is the maximum over its successors (Max, player 0)."""
AND = 2
"""Kind of a node whose value is the minimum over its successors (Min, player 1)."""


@dataclass(frozen=True, eq=False)
class OrderSystem:
    """(T+MM)-style equations of one graph over the value chain ``levels``."""

    graph: GameGraph
    levels: NDArray[np.float64]
    """The sorted finite value set; node values are indices into it."""
    kind: NDArray[np.int8]
    """``CONST`` / ``OR`` / ``AND`` per node."""
    const: IntArray
    """Value index of ``CONST`` nodes (-1 elsewhere)."""
    negamax: bool = False
    """``OR`` over negated successor values (``normal``); such systems are not monotone."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def for_graph(cls, g: GameGraph) -> OrderSystem:
        """The system of the graph's own semantics, built by the constructor its description
        names (``Description.equations``; ``impartial`` has none here)."""
        name = describe(g.semantics).equations
        if name is None:
            raise ValueError(f"no order system for {g.semantics.value} graphs")
        out: OrderSystem = getattr(cls, name)(g)
        return out

    @classmethod
    def minimax(cls, g: GameGraph) -> OrderSystem:
        """Kars' (T+MM): s = t on leaves, max at Max nodes, min at Min nodes."""
        term = g.is_terminal
        vals = np.where(term & np.isnan(g.value), 0.0, g.value)
        levels = g.value_levels()
        inner = ~term
        bad = inner & (g.owner != MAX) & (g.owner != MIN)
        if bad.any():
            raise ValueError(f"inner node {g.name(int(np.flatnonzero(bad)[0]))!r} has no owner")
        kind = np.where(term, CONST, np.where(g.owner == MAX, OR, AND)).astype(np.int8)
        const = np.where(term, np.searchsorted(levels, np.where(term, vals, 0.0)), -1)
        return cls(g, levels, kind, const.astype(np.int64))

    @classmethod
    def normal(cls, g: GameGraph) -> OrderSystem:
        """Negamax: v(x) = max over successors of -v(y); terminals carry their label."""
        term = g.is_terminal
        kind = np.full(g.n, OR, dtype=np.int8)
        kind[term] = CONST
        const = np.full(g.n, -1, dtype=np.int64)
        lab = g.value[term]  # a dead end's label; none (NaN) is lost, index 0
        const[term] = np.where(np.isnan(lab), 0.0, lab + 1)
        return cls(g, np.array([-1.0, 0.0, 1.0]), kind, const, negamax=True)

    @classmethod
    def reachability(cls, g: GameGraph) -> OrderSystem:
        """Region equations: targets 1, non-target dead ends 0, player 0 OR, player 1 AND."""
        fixed = g.target | g.is_terminal
        kind = np.where(fixed, CONST, np.where(g.owner == MIN, AND, OR)).astype(np.int8)
        const = np.where(fixed, g.target.astype(np.int64), -1)
        return cls(g, np.array([0.0, 1.0]), kind, const)

    # ------------------------------------------------------------------ values
    @property
    def n(self) -> int:
        return self.graph.n

    @property
    def top(self) -> int:
        """T: the largest value index (the number of thresholds)."""
        return len(self.levels) - 1

    @property
    def zero(self) -> int:
        """Index of the draw value 0 (for ``reachability`` the bottom, 0 = lost)."""
        return int(np.searchsorted(self.levels, 0.0))

    def to_index(self, values: ArrayLike) -> tuple[IntArray, NDArray[np.bool_]]:
        """Value indices of an answer, and a mask of values that are not in ``levels``."""
        ints = np.asarray(values)
        lo = float(self.levels[0]) if len(self.levels) else 0.5
        steps = lo + np.arange(len(self.levels))
        exact = ints.dtype.kind == "i" or (ints.dtype.kind == "u" and ints.dtype.itemsize < 8)
        if exact and lo.is_integer() and (self.levels == steps).all():
            idx = ints.astype(np.int64)  # consecutive integer levels: an offset, no search
            idx -= int(lo)
            out = (idx < 0) | (idx > self.top)
            np.clip(idx, 0, self.top, out=idx)
            return idx, out
        v = np.asarray(values, dtype=np.float64)
        idx = np.searchsorted(self.levels, v).astype(np.int64, copy=False)
        np.minimum(idx, self.top, out=idx)  # in place: one index array per node, no copies
        bad = self.levels[idx] != v  # exact: a score is one of the t(F) or 0
        bad |= np.isnan(v)
        return idx, bad

    def to_values(self, idx: IntArray) -> NDArray[np.float64]:
        return self.levels[idx]

    def with_fixed(self, mask: NDArray[np.bool_], idx: IntArray) -> OrderSystem:
        """The same system with the nodes of ``mask`` turned into constants ``idx``."""
        kind = self.kind.copy()
        kind[mask] = CONST
        const = self.const.copy()
        const[mask] = idx[mask]
        return OrderSystem(self.graph, self.levels, kind, const, self.negamax)

    def apply(self, idx: IntArray) -> IntArray:
        """One application of the operator: the right-hand sides at ``idx``.

        One gather over the edges in the smallest integer type that holds the value indices,
        and one ``reduceat`` per kind present (negamax: max of -v = -(min of v))."""
        g = self.graph
        out = np.where(self.kind == CONST, self.const, 0).astype(np.int64, copy=False)
        is_or, is_and = self.kind == OR, self.kind == AND
        if g.m == 0 or not (is_or.any() or is_and.any()):
            return out
        small = np.int16 if self.top < 2**15 else np.int64
        succ_vals = edge_buffer(g, small)
        succ_vals[: g.m] = np.asarray(idx).astype(small)[g.succ_idx]  # (np.take widens int32 ids)

        if self.negamax:  # v(x) = max over y of (top - v(y)) = top - min over y of v(y)
            least = reduce_rows(g, np.minimum, succ_vals, 0)
            np.subtract(self.top, least, out=least)
            np.copyto(out, least, where=is_or)
            return out
        if is_or.any():
            np.copyto(out, reduce_rows(g, np.maximum, succ_vals, 0), where=is_or)
        if is_and.any():
            np.copyto(out, reduce_rows(g, np.minimum, succ_vals, 0), where=is_and)
        return out

    def violations(self, idx: IntArray) -> IntArray:
        """Ids of nodes whose equation ``idx`` does not satisfy."""
        return np.flatnonzero(self.apply(idx) != idx)
