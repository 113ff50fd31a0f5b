"""Nim (Bouton): single heaps, and the explicit product graph of a position of several heaps.

A move takes one or more counters from one heap. By Bouton's theorem (the seed) a position is a
P-position iff the XOR of its heap sizes is 0, and its Grundy value is that XOR.

Examples
--------
>>> case = nim_position([1, 2])
>>> case.graph.n, case.graph.name(case.root or 0), case.expect.grundy[case.root or 0]
(6, '1,2', 3)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import reduce
from operator import xor

import numpy as np

from verifier.games.heaps import DEFAULT_MAX_NODES, heap_case
from verifier.model import Case, Expect, GameGraph, Semantics

__all__ = ["nim_heaps", "nim_position", "nim_rule"]


def nim_rule(n: int) -> list[tuple[int, ...]]:
    """Options of one nim heap of size ``n``: any smaller heap (``()`` is the empty heap)."""
    return [()] + [(k,) for k in range(1, n)] if n > 0 else []


def nim_heaps(upto: int) -> Case:
    """Single nim heaps ``0..upto`` (heap ``n`` is node ``n``; its Grundy value is ``n``)."""
    return heap_case(
        nim_rule,
        upto,
        case_id=f"nim-heaps-{upto}",
        source="Bouton's nim, single heaps (generator verifier.games.nim)",
        expect_values=list(range(upto + 1)),
    )


def nim_position(heaps: Sequence[int], *, max_nodes: int = DEFAULT_MAX_NODES) -> Case:
    """The product graph of the nim position ``heaps`` (heaps kept in order, not as a multiset).

    Nodes are all tuples ``(a_1..a_k)`` with ``0 <= a_i <= heaps[i]``, named ``"a1,a2,.."``; the
    root is ``heaps``. ``expect.grundy`` holds the XOR of the heap sizes for every node (Bouton).
    """
    if not heaps or any(h < 0 for h in heaps):
        raise ValueError(f"nim_position needs one or more heap sizes >= 0, got {list(heaps)!r}")
    size = 1
    for h in heaps:
        size *= h + 1
    if size > max_nodes:
        raise ValueError(f"nim position {list(heaps)!r} has {size} > {max_nodes} nodes")
    positions = list(itertools.product(*(range(h + 1) for h in heaps)))
    strides = [1] * len(heaps)
    for i in range(len(heaps) - 2, -1, -1):
        strides[i] = strides[i + 1] * (heaps[i + 1] + 1)
    src: list[int] = []
    dst: list[int] = []
    for i, pos in enumerate(positions):
        for k, a in enumerate(pos):
            for smaller in range(a):
                src.append(i)
                dst.append(i - (a - smaller) * strides[k])
    graph = GameGraph.from_edges(
        [",".join(map(str, p)) for p in positions],
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        semantics=Semantics.IMPARTIAL,
    )
    grundy = {i: reduce(xor, p, 0) for i, p in enumerate(positions)}
    return Case(
        graph=graph,
        id="nim-" + "-".join(map(str, heaps)),
        root=len(positions) - 1,
        source="Bouton's nim (generator verifier.games.nim); expected values by Bouton's XOR",
        expect=Expect(grundy=grundy, root_value=grundy[len(positions) - 1]),
    )
