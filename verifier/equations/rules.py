"""The ranked rules as monotone Boolean systems (rank-free: their least fixpoints).

- ``derivation_system``: Knuth's won/lost rules on 2n Boolean nodes, ``2x`` = "x is won",
  ``2x + 1`` = "x is lost": won if some successor is lost, lost if every successor is won (inner
  nodes), terminals by their label. Its least fixpoint with layers is retrograde analysis with
  remoteness; its layers are the ranks that forbid circular reasoning.
- ``region_system``: the attractor rules of a reachability game (threshold 1 of its
  ``OrderSystem``): targets in, player 0 needs one successor in, player 1 all of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.equations.fixpoints import BoolSystem, attractor
from verifier.equations.system import AND, CONST, OR, OrderSystem
from verifier.model.describe import describe
from verifier.model.graph import GameGraph, IntArray
from verifier.model.semantics import Semantics

__all__ = ["derivation_system", "derived_labels", "labelled_nodes", "region_system"]


def derivation_system(g: GameGraph) -> BoolSystem:
    """Won/lost derivation rules of a ``normal`` graph on nodes ``2x`` (won), ``2x+1`` (lost)."""
    n = g.n
    deg = g.out_degree
    term = g.is_terminal
    lab = np.where(np.isnan(g.value), -1.0, g.value)
    deg2 = np.repeat(deg, 2)
    ptr = np.zeros(2 * n + 1, dtype=np.int64)
    np.cumsum(deg2, out=ptr[1:])
    idx = np.empty(int(ptr[-1]), dtype=np.int64)
    src = g.edge_src
    off = g.succ_ptr[src]
    e = np.arange(g.m, dtype=np.int64)
    dst = g.succ_idx.astype(np.int64)  # 2 * id + 1 may pass int32
    idx[ptr[2 * src] + e - off] = 2 * dst + 1  # won(x) <- lost(y)
    idx[ptr[2 * src + 1] + e - off] = 2 * dst  # lost(x) <- won(y) for all y
    kind = np.empty(2 * n, dtype=np.int8)
    kind[0::2] = np.where(term, CONST, OR)
    kind[1::2] = np.where(term, CONST, AND)
    const = np.zeros(2 * n, dtype=np.bool_)
    const[0::2] = term & (lab == 1)
    const[1::2] = term & (lab == -1)
    return BoolSystem(ptr, idx, kind, const)


def labelled_nodes(labels: NDArray[Any]) -> NDArray[np.bool_]:
    """The nodes of ``derivation_system`` a labelling claims: ``2x`` where x is won, ``2x + 1``
    where x is lost (``normal``'s description says which labels those are)."""
    d = describe(Semantics.NORMAL)
    out = np.zeros(2 * len(labels), dtype=np.bool_)
    out[0::2] = d.wins(labels)
    out[1::2] = d.loses(labels)
    return out


def derived_labels(g: GameGraph) -> tuple[IntArray, IntArray]:
    """Labels (+1 / -1 / 0) and remoteness (-1 for unknown) by the least fixpoint."""
    layer = attractor(derivation_system(g))
    won, lost = layer[0::2], layer[1::2]
    labels = np.where(won >= 0, 1, np.where(lost >= 0, -1, 0)).astype(np.int64)
    rem = np.where(won >= 0, won, lost)
    return labels, rem


def region_system(g: GameGraph) -> BoolSystem:
    """The attractor rules of a ``reachability`` graph."""
    return BoolSystem.threshold(OrderSystem.reachability(g), 1)
