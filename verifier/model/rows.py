"""Per-node reductions over a graph's out-edges (its CSR rows), in the edges' own small type.

A check that asks "per node, the least / greatest / any of something over its moves" gathers
one entry per edge and reduces each row with ``ufunc.reduceat``. Done naively this costs two
arrays of row starts (the rows with moves and their starts, 16 bytes a position) and a result
in int64. Here the per-edge entries live in a buffer of ``m + 1`` entries whose last entry is
the reduction's neutral element, so ``reduceat`` reads the graph's own row pointer as it is
(a dead end's start may be ``m``: it reads the neutral entry, and dead ends get ``empty``
afterwards), and the result keeps the entries' type.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from verifier.model.graph import GameGraph

__all__ = ["edge_buffer", "is_a_move", "reduce_rows"]


def edge_buffer(g: GameGraph, dtype: DTypeLike) -> NDArray[Any]:
    """An uninitialised buffer for one entry per edge (``buf[:g.m]``) and the neutral entry
    that ``reduce_rows`` writes at ``buf[g.m]``."""
    return np.empty(g.m + 1, dtype=dtype)


def _neutral(ufunc: np.ufunc, dtype: np.dtype[Any]) -> Any:
    if dtype == np.bool_:
        if ufunc in (np.logical_or, np.maximum):
            return False
        if ufunc in (np.logical_and, np.minimum):
            return True
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if ufunc is np.maximum:
            return info.min
        if ufunc is np.minimum:
            return info.max
    raise ValueError(f"no neutral element for {ufunc.__name__} over {dtype}")


def reduce_rows(g: GameGraph, ufunc: np.ufunc, buf: NDArray[Any], empty: Any) -> NDArray[Any]:
    """Per node: ``ufunc`` (maximum, minimum, logical_or, logical_and) over its out-edges'
    entries ``buf[succ_ptr[x]:succ_ptr[x + 1]]``, ``empty`` at dead ends; in ``buf``'s type.

    ``buf`` comes from ``edge_buffer`` (``m + 1`` entries); its last entry is overwritten."""
    if len(buf) != g.m + 1:
        raise ValueError(f"an edge buffer holds m + 1 = {g.m + 1} entries, not {len(buf)}")
    buf[g.m] = _neutral(ufunc, buf.dtype)
    # the last row runs to the end of buf: the neutral entry leaves its reduction unchanged
    out: NDArray[Any] = ufunc.reduceat(buf, g.succ_ptr[:-1])
    out[g.is_terminal] = empty
    return out


def is_a_move(g: GameGraph, target: NDArray[np.integer[Any]]) -> NDArray[np.bool_]:
    """Per node: is ``target[x]`` one of its successors (-1: no move)? One pass over the
    edges, in the successor ids' own type (a target outside the ids matches no edge)."""
    inside = (target >= 0) & (target < g.n)
    t = np.where(inside, target, -1).astype(g.succ_idx.dtype)
    hit = edge_buffer(g, np.bool_)
    np.equal(g.succ_idx, np.repeat(t, g.out_degree), out=hit[: g.m])
    return reduce_rows(g, np.logical_or, hit, False)
