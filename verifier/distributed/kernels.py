"""Partition-local numpy kernels: the three operations a superstep is made of.

A superstep of a vertex program on one partition is

1. **join** the incoming messages (new values of changed nodes) to the owned edges they concern,
2. **group-by-aggregate** over the sources of those edges (max / min of a row, "any" and
   "count" of the messages a node received),
3. **count changes**: the owned nodes whose value changed, and **emit** one message per move
   into each of them, grouped by the partition that owns the move's source.

The numpy engine's CSR ``gather`` (``verifier.engine.frontier``) collects the moves into the
changed nodes. Every kernel costs time proportional to the messages and the rows they touch
(the frontier), never to the size of the partition.

Examples
--------
>>> ranges_index(np.array([0, 2, 2, 5]), np.array([0, 2])).tolist()
[0, 1, 2, 3, 4]
>>> segment_reduce(np.array([3.0, 1.0, 4.0, 1.0, 5.0]), np.array([2, 3]),
...                np.array([True, False])).tolist()
[3.0, 1.0]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from verifier.distributed.partition import Messages, PartitionData
from verifier.engine.frontier import Csr, gather
from verifier.model.graph import IntArray

__all__ = ["distinct", "emit", "group_count", "join_rows", "ranges_index", "segment_reduce"]


def ranges_index(ptr: IntArray, rows: IntArray) -> IntArray:
    """Concatenated positions ``ptr[r]..ptr[r+1]-1`` for every ``r`` in ``rows`` (in order).

    The positions themselves, where ``verifier.engine.frontier.gather`` returns the entries at
    them: the Kars program reads its per-edge values with these.
    """
    starts = ptr[rows]
    lengths = ptr[rows + 1] - starts
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths  # where each row's run begins in the output
    return np.repeat(starts - offsets, lengths) + np.arange(total, dtype=np.int64)


def segment_reduce(
    values: NDArray[np.float64], lengths: IntArray, take_max: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Max (where ``take_max``) or min of each consecutive non-empty segment of ``values``."""
    if len(lengths) == 0:
        return np.empty(0, dtype=np.float64)
    offsets = np.cumsum(lengths) - lengths
    hi = np.maximum.reduceat(values, offsets)
    lo = np.minimum.reduceat(values, offsets)
    return np.where(take_max, hi, lo)


def join_rows(part: PartitionData, inbox: Messages) -> tuple[IntArray, IntArray]:
    """Join: local edge positions addressed by ``inbox`` and the local source row of each."""
    local = inbox.edge - part.edge_lo
    return local, part.edge_src[local]


def distinct(rows: IntArray) -> IntArray:
    """The distinct values of ``rows``, sorted (by sorting: numpy 2.4's hash-based
    ``np.unique`` is about 100 times slower on 10^5 ids)."""
    s = np.sort(rows).astype(np.int64, copy=False)
    if len(s) < 2:
        return s
    return s[np.concatenate(([True], s[1:] != s[:-1]))]


def group_count(rows: IntArray) -> tuple[IntArray, IntArray]:
    """Group-by: the distinct rows, sorted, and how many messages each received."""
    s = np.sort(rows).astype(np.int64, copy=False)
    first = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1]))) if len(s) else s
    return s[first], np.diff(np.append(first, len(s))).astype(np.int64)


def emit(
    part: PartitionData, changed: IntArray, values: NDArray[np.float64], parts: int
) -> tuple[Messages, ...]:
    """One message per move into each changed node, grouped by destination partition.

    ``changed`` are local node ids, ``values`` their new values; Kars' link from ``p_w`` to
    ``p_v`` for every move ``(v, w)`` is the global edge id of that move.
    """
    gathered, counts = gather(Csr(part.in_ptr, part.in_edge), changed)
    edges: IntArray = gathered.astype(np.int64, copy=False)
    vals = np.repeat(values, counts)
    dest = part.destination(edges)
    order = np.argsort(dest, kind="stable")
    edges, vals = edges[order], vals[order]
    cuts = np.cumsum(np.bincount(dest, minlength=parts))[:-1]
    pieces: list[IntArray] = np.split(edges, cuts)
    return tuple(Messages(e, v) for e, v in zip(pieces, np.split(vals, cuts), strict=True))
