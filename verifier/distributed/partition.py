"""Cut a game graph into node ranges: the unit of work and of data placement on a cluster.

Kars (sec. 5) puts one processor on every position, with a link from ``p_w`` to ``p_v`` for every
move ``(v, w)``. Here one *partition* plays the part of all processors of a contiguous range of
node ids ``[lo, hi)``: it holds the moves out of its nodes (a CSR slice, whose edges are the
global edge ids ``[edge_lo, edge_hi)`` because the CSR is sorted by source) and, for sending, the
moves *into* its nodes (the global edge ids of the reversed links). A message is addressed to an
edge: ``(global edge id, value of the edge's head)``; the partition that owns the edge's source
is found from the edge-id ranges alone, so no node-to-partition table is needed.

Examples
--------
>>> from verifier.model import GameGraph, Semantics
>>> g = GameGraph.from_edges(4, [0, 0, 2, 2], [1, 2, 3, 0], semantics=Semantics.NORMAL)
>>> parts = partition_graph(g, 2)
>>> [(p.lo, p.hi, p.edge_lo, p.edge_hi) for p in parts]
[(0, 2, 0, 2), (2, 4, 2, 4)]
>>> parts[0].in_edge.tolist()  # moves into nodes 0 and 1: 2 -> 0 (edge 2), 0 -> 1 (edge 0)
[2, 0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from verifier.model.graph import GameGraph, IntArray
from verifier.model.semantics import Semantics

__all__ = ["Messages", "PartitionData", "node_ranges", "partition_graph"]


class Messages(NamedTuple):
    """A batch of messages: the value of the head of each addressed edge (Kars' link)."""

    edge: IntArray
    """Global edge ids (positions in the graph's ``succ_idx``)."""
    value: NDArray[np.float64]
    """The new value of ``succ_idx[edge]``, the node that changed."""

    @staticmethod
    def empty() -> Messages:
        """A batch of no messages."""
        return Messages(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64))

    @property
    def size(self) -> int:
        """Number of messages (``len`` stays the tuple's length, which Dask relies on)."""
        return len(self.edge)


@dataclass(frozen=True, eq=False)
class PartitionData:
    """The read-only slice of the graph one partition owns (scattered to a worker once)."""

    index: int
    """Partition number ``0..P-1``."""
    semantics: Semantics
    lo: int
    """First node id owned."""
    hi: int
    """One past the last node id owned."""
    edge_lo: int
    """First global edge id owned (moves out of ``lo``)."""
    edge_hi: int
    succ_ptr: IntArray
    """Local CSR row pointers (length ``hi - lo + 1``, starting at 0)."""
    edge_src: IntArray
    """Local source row of every owned edge (length ``edge_hi - edge_lo``)."""
    in_ptr: IntArray
    """Local row pointers into ``in_edge`` (length ``hi - lo + 1``)."""
    in_edge: IntArray
    """Global ids of the edges into the owned nodes (the reversed links), grouped by head."""
    edge_bounds: IntArray
    """``edge_lo`` of every partition plus the total edge count: routes a global edge id."""
    owner: NDArray[np.int8]
    value: NDArray[np.float64]
    target: NDArray[np.bool_]
    names: tuple[str, ...] | None
    """The owned nodes' names, or ``None`` when the graph has none (names are the ids)."""

    @property
    def n(self) -> int:
        """Number of owned nodes."""
        return self.hi - self.lo

    @property
    def out_degree(self) -> IntArray:
        """The number of moves out of every owned node."""
        return np.diff(self.succ_ptr)

    def name(self, local: int) -> str:
        """The name of owned node ``lo + local`` (its id when the graph has no names)."""
        return self.names[local] if self.names is not None else str(self.lo + local)

    def destination(self, edge: IntArray) -> IntArray:
        """The partition owning the source of each global edge id."""
        return np.searchsorted(self.edge_bounds, edge, side="right").astype(np.int64) - 1


def node_ranges(n: int, parts: int) -> IntArray:
    """Boundaries ``b`` of ``parts`` near-equal node ranges ``[b[i], b[i+1])``."""
    if parts < 1:
        raise ValueError(f"need at least one partition, got {parts}")
    return np.linspace(0, n, parts + 1).round().astype(np.int64)


def partition_graph(graph: GameGraph, parts: int) -> list[PartitionData]:
    """Split ``graph`` into ``parts`` partitions of contiguous node ranges."""
    bounds = node_ranges(graph.n, parts)
    ebounds = graph.succ_ptr[bounds]
    # reversed links: global edge ids sorted by head (stable, so by source within a head)
    by_head = np.argsort(graph.succ_idx, kind="stable").astype(np.int64)
    in_ptr_global = np.zeros(graph.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph.succ_idx, minlength=graph.n), out=in_ptr_global[1:])
    has_names = isinstance(graph.names, tuple | list)
    out: list[PartitionData] = []
    for i in range(parts):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        elo, ehi = int(ebounds[i]), int(ebounds[i + 1])
        ptr = graph.succ_ptr[lo : hi + 1] - elo
        iptr = in_ptr_global[lo : hi + 1]
        out.append(
            PartitionData(
                index=i,
                semantics=graph.semantics,
                lo=lo,
                hi=hi,
                edge_lo=elo,
                edge_hi=ehi,
                succ_ptr=ptr,
                edge_src=np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(ptr)),
                in_ptr=iptr - iptr[0],
                in_edge=by_head[iptr[0] : iptr[-1]].copy(),
                edge_bounds=ebounds.copy(),
                owner=graph.owner[lo:hi].copy(),
                value=graph.value[lo:hi].copy(),
                target=graph.target[lo:hi].copy(),
                names=tuple(graph.names[lo:hi]) if has_names else None,
            )
        )
    return out
