"""Sprague-Grundy values of an acyclic impartial game graph on the numpy engine.

``G(x) = mex{G(y) : x -> y}`` (the Sprague-Grundy seed). Nodes are grouped by *height* (0 for
positions without moves, else 1 + the greatest height of a successor), computed by the kernel's
AND propagation: a node joins when all of its successors have. All successors of a node of
height ``h`` have smaller heights, so the values of a whole height class follow from values
already known, with one vectorized mex per class (``mex_rows``). A graph with a cycle has nodes
that never join; ``CycleError`` then names one cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verifier.engine.frontier import (
    SCALAR_FRONTIER,
    Csr,
    gather,
    height_classes,
    predecessor_csr,
    successor_csr,
)
from verifier.errors import CycleError
from verifier.model.graph import GameGraph, IntArray
from verifier.model.topology import find_cycle

__all__ = ["EngineGrundy", "grundy_numpy", "mex_rows"]


@dataclass(frozen=True, eq=False)
class EngineGrundy:
    """Grundy value and height of every node."""

    value: IntArray
    """The Sprague-Grundy value G(x)."""
    height: IntArray
    """Length of the longest play from x (0 at positions without moves)."""
    rounds: int
    scalar_rounds: int
    edges_scanned: int


def mex_rows(values: IntArray, counts: IntArray) -> IntArray:
    """The mex of each row of a ragged array (``values`` concatenated, ``counts`` per row).

    No sort: row ``i`` gets ``counts[i] + 1`` slots of a flat Boolean array, the values below
    ``counts[i]`` mark theirs (larger values cannot change the mex), and the mex is the first
    unmarked slot, found for all rows at once with ``np.minimum.reduceat``. The last slot of a
    row is never marked, so every row has one. O(len(values) + len(counts)).
    """
    rows = len(counts)
    if rows == 0:
        return np.zeros(0, dtype=np.int64)
    width = counts.astype(np.int64) + 1
    start = np.cumsum(width) - width
    total = int(start[-1] + width[-1])
    v = values.astype(np.int64)
    small = v < np.repeat(counts, counts)
    present = np.zeros(total, dtype=np.bool_)
    present[(np.repeat(start, counts) + v)[small]] = True
    slot = np.where(present, total, np.arange(total, dtype=np.int64))
    mex: IntArray = np.minimum.reduceat(slot, start) - start
    return mex


def grundy_numpy(g: GameGraph) -> EngineGrundy:
    """Grundy values of every position of an acyclic graph (any semantics: moves only).

    >>> from verifier.model import Semantics
    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["c"], "c": []},
    ...                               semantics=Semantics.IMPARTIAL)
    >>> grundy_numpy(g).value.tolist()
    [2, 1, 0]
    """
    pred = predecessor_csr(g)
    prop, classes = height_classes(pred, g.out_degree)
    if prop.layer.min(initial=0) < 0:
        cycle = find_cycle(g, np.flatnonzero(prop.layer < 0))
        raise CycleError([g.name(i) for i in cycle])
    succ = successor_csr(g)
    value = np.zeros(g.n, dtype=np.int64)
    scalar = 0
    for xs in classes[1:]:  # height 0 has value 0
        if len(xs) <= SCALAR_FRONTIER:
            scalar += 1
            _mex_scalar(succ, value, xs)
        else:
            ys, counts = gather(succ, xs)
            value[xs] = mex_rows(value[ys], counts)
    return EngineGrundy(
        value=value,
        height=prop.layer.astype(np.int64),
        rounds=len(classes),
        scalar_rounds=scalar,
        edges_scanned=prop.edges,
    )


def _mex_scalar(succ: Csr, value: IntArray, xs: IntArray) -> None:
    for x in xs.tolist():
        seen = set(value[succ.idx[succ.ptr[x] : succ.ptr[x + 1]]].tolist())
        m = 0
        while m in seen:
            m += 1
        value[x] = m
