"""Strongly connected components and the topological order of the condensation.

The components come from ``verifier.model.topology.sccs`` (scipy, linear time). The
condensation (one node per component, an edge between components joined by a move) is acyclic;
its components are ordered *sinks first* (every component after all the components it can
reach), by the kernel's AND propagation on the condensation: a component joins when all its
successor components have, at height 1 + their greatest height. Cyclic components (more than one
node, or a self-loop) are the only places where a game's equations can have several solutions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.engine.frontier import Csr, height_classes, successor_csr
from verifier.model.graph import GameGraph, IntArray
from verifier.model.topology import sccs

__all__ = ["Condensation", "condensation"]


@dataclass(frozen=True, eq=False)
class Condensation:
    """The SCCs of a graph and the acyclic graph between them."""

    count: int
    """Number of components."""
    label: IntArray
    """Component of each node."""
    order: IntArray
    """Component ids, sinks first: each component comes after every component it reaches."""
    height: IntArray
    """Per component: 0 for sinks, else 1 + the greatest height of a successor component."""
    size: IntArray
    """Per component: number of nodes."""
    cyclic: NDArray[np.bool_]
    """Per component: it contains a cycle (more than one node, or a self-loop)."""
    succ: Csr
    """Successor CSR of the condensation (distinct component edges, sorted)."""

    def members(self) -> tuple[IntArray, IntArray]:
        """``(ptr, nodes)``: the nodes of component ``c`` are ``nodes[ptr[c]:ptr[c + 1]]``."""
        nodes = np.argsort(self.label, kind="stable")
        ptr = np.zeros(self.count + 1, dtype=np.int64)
        np.cumsum(self.size, out=ptr[1:])
        return ptr, nodes


def _csr(src: IntArray, dst: IntArray, n: int) -> Csr:
    order = np.lexsort((dst, src))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    return Csr(ptr, dst[order])


def condensation(g: GameGraph) -> Condensation:
    """SCC decomposition of ``g`` with the condensation in topological order (sinks first).

    >>> from verifier.model import Semantics
    >>> g = GameGraph.from_successors({"a": ["b"], "b": ["a", "c"], "c": ["c"]},
    ...                               semantics=Semantics.IMPARTIAL)
    >>> c = condensation(g)
    >>> c.count, bool(c.label[0] == c.label[1]), bool(c.order[0] == c.label[2])
    (2, True, True)
    >>> c.cyclic.tolist()
    [True, True]
    """
    k, label = sccs(g)
    size = np.bincount(label, minlength=k).astype(np.int64)
    s = successor_csr(g)
    node_src = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(s.ptr))
    src, dst = label[node_src], label[s.idx]
    cyclic = size > 1
    cyclic[label[node_src[node_src == s.idx]]] = True  # self-loops
    loop = src == dst
    del node_src
    keys = np.sort(src[~loop] * k + dst[~loop])
    if len(keys):
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]  # distinct edges
    csrc, cdst = keys // k, keys % k
    succ = _csr(csrc, cdst, k)
    pred = _csr(cdst, csrc, k)
    prop, frontiers = height_classes(pred, np.diff(succ.ptr))
    order = np.concatenate(frontiers) if frontiers else np.zeros(0, dtype=np.int64)
    return Condensation(
        count=k,
        label=label,
        order=order.astype(np.int64),
        height=prop.layer.astype(np.int64),
        size=size,
        cyclic=cyclic,
        succ=succ,
    )
