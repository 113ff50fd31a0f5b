"""The obvious networkx implementations a user would write (benchmark baselines only).

Each takes a ``networkx.DiGraph`` whose nodes are ``0..n-1`` plus the per-node arrays of the
``GameGraph`` it was built from, and returns the same per-node answer as the engine (labels,
region, scores, Grundy values, a condensation order), so the benchmark can check them. They
follow the seeds literally with networkx's adjacency views (``G.pred``, ``G.succ``,
``G.out_degree``): Knuth's queue for retrograde analysis, the notes' counters for the
attractor, Def. 4.1 iterated to its limit for Kars' score, ``nx.topological_sort`` and mex for
Grundy values, and ``nx.condensation`` for the SCCs.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import networkx as nx
import numpy as np
from numpy.typing import NDArray

from verifier.model import GameGraph

__all__ = [
    "nx_attractor",
    "nx_condensation_order",
    "nx_grundy",
    "nx_kars",
    "nx_retrograde",
    "to_networkx",
]


def to_networkx(g: GameGraph) -> Any:
    """The graph as a ``networkx.DiGraph`` on nodes ``0..n-1`` (what a user would build)."""
    h = nx.DiGraph()
    h.add_nodes_from(range(g.n))
    h.add_edges_from(zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True))
    return h


def nx_retrograde(h: Any, terminal_label: NDArray[np.int8]) -> tuple[list[int], list[int]]:
    """Knuth's retrograde analysis with a deque over ``h.pred``: (labels, remoteness)."""
    label = terminal_label.tolist()
    rem = [0 if v else -1 for v in label]
    count = dict(h.out_degree())
    queue = deque(x for x in h if label[x] != 0)
    while queue:
        y = queue.popleft()
        for x in h.pred[y]:
            if label[x] != 0:
                continue
            if label[y] == -1:
                label[x], rem[x] = 1, rem[y] + 1
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    label[x], rem[x] = -1, rem[y] + 1
                    queue.append(x)
    return label, rem


def nx_attractor(h: Any, owner: NDArray[np.int8], target: NDArray[np.bool_]) -> list[int]:
    """Player 0's attractor of the targets with good-neighbour counts: the layer of each node."""
    layer = [0 if t else -1 for t in target.tolist()]
    own = owner.tolist()
    count = dict(h.out_degree())
    queue = deque(x for x in h if layer[x] == 0)
    while queue:
        y = queue.popleft()
        for x in h.pred[y]:
            if layer[x] >= 0:
                continue
            if own[x] == 0:
                layer[x] = layer[y] + 1
                queue.append(x)
            else:
                count[x] -= 1
                if count[x] == 0:
                    layer[x] = layer[y] + 1
                    queue.append(x)
    return layer


def nx_kars(h: Any, owner: NDArray[np.int8], value: NDArray[np.float64]) -> list[float]:
    """Kars' Def. 4.1 iterated with ``h.succ`` until it stops changing."""
    own = owner.tolist()
    t = value.tolist()
    leaf = [h.out_degree(x) == 0 for x in h]
    s = [0.0] * len(leaf)
    while True:
        nxt = [
            t[x] if leaf[x] else (max if own[x] == 0 else min)(s[y] for y in h.succ[x]) for x in h
        ]
        if nxt == s:
            return s
        s = nxt


def nx_grundy(h: Any) -> list[int]:
    """Grundy values: mex over successors in reverse topological order."""
    g = [0] * h.number_of_nodes()
    for x in reversed(list(nx.topological_sort(h))):
        seen = {g[y] for y in h.succ[x]}
        m = 0
        while m in seen:
            m += 1
        g[x] = m
    return g


def nx_condensation_order(h: Any) -> tuple[int, list[int]]:
    """SCCs with ``nx.condensation`` and a topological order of it, sinks first."""
    c = nx.condensation(h)
    order = list(reversed(list(nx.topological_sort(c))))
    return c.number_of_nodes(), order
