"""Shared graph helpers every solver may use: topological order, one cycle, SCCs.

All iterative (no Python recursion) and linear in the size of the graph.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CycleError
from verifier.model.graph import GameGraph, IntArray

__all__ = [
    "SCIPY_ACYCLIC_MIN_SIZE",
    "culprit",
    "find_cycle",
    "is_acyclic",
    "reverse_topological_order",
    "sccs",
]


def reverse_topological_order(g: GameGraph) -> IntArray:
    """Node ids ordered so that every node comes after all of its successors (leaves first).

    Kahn's algorithm on the reversed graph, with counters of unprocessed successors. Raises
    ``CycleError`` naming the nodes of one cycle if the graph is not acyclic.
    """
    remaining = g.out_degree.copy()
    order = np.empty(g.n, dtype=np.int64)
    queue = deque(np.flatnonzero(remaining == 0).tolist())
    k = 0
    pred_ptr, pred_idx = g.pred_ptr, g.pred_idx
    while queue:
        y = queue.popleft()
        order[k] = y
        k += 1
        for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]].tolist():
            remaining[x] -= 1
            if remaining[x] == 0:
                queue.append(x)
    if k < g.n:
        cycle = find_cycle(g, np.flatnonzero(remaining > 0))
        raise CycleError([g.name(i) for i in cycle])
    return order


SCIPY_ACYCLIC_MIN_SIZE = 20_000
"""``is_acyclic`` asks scipy's SCCs from this many nodes + moves on; below, Kahn's algorithm in
Python (a few milliseconds) answers without importing scipy.sparse (about 0.1 s)."""


def is_acyclic(g: GameGraph) -> bool:
    """True iff the graph has no directed cycle (self-loops count as cycles)."""
    if g.n + g.m < SCIPY_ACYCLIC_MIN_SIZE:
        return _kahn_count(g) == g.n
    n_comp, _ = sccs(g)
    if n_comp < g.n:
        return False
    src = g.edge_src
    return not bool(np.any(src == g.succ_idx))


def _kahn_count(g: GameGraph) -> int:
    """How many nodes Kahn's algorithm removes (all of them iff the graph is acyclic)."""
    remaining = g.out_degree.tolist()
    queue = [x for x, d in enumerate(remaining) if d == 0]
    pred_ptr, pred_idx = g.pred_ptr.tolist(), g.pred_idx.tolist()
    k = 0
    while k < len(queue):
        y = queue[k]
        k += 1
        for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]]:
            remaining[x] -= 1
            if remaining[x] == 0:
                queue.append(x)
    return k


def find_cycle(g: GameGraph, candidates: NDArray[np.int64] | None = None) -> list[int]:
    """The nodes of one directed cycle, in order, or ``[]`` if there is none.

    ``candidates`` restricts the start of the search (e.g. nodes Kahn's algorithm left over).
    Iterative DFS with colours: white 0, on the current path 1, finished 2.
    """
    colour = np.zeros(g.n, dtype=np.int8)
    starts = range(g.n) if candidates is None else candidates.tolist()
    ptr, idx = g.succ_ptr, g.succ_idx
    for s in starts:
        if colour[s]:
            continue
        path: list[int] = [s]
        cursor: list[int] = [int(ptr[s])]
        colour[s] = 1
        while path:
            x = path[-1]
            c = cursor[-1]
            if c < ptr[x + 1]:
                cursor[-1] = c + 1
                y = int(idx[c])
                if colour[y] == 1:
                    return path[path.index(y) :]
                if colour[y] == 0:
                    colour[y] = 1
                    path.append(y)
                    cursor.append(int(ptr[y]))
            else:
                colour[x] = 2
                path.pop()
                cursor.pop()
    return []


def sccs(g: GameGraph) -> tuple[int, IntArray]:
    """Strongly connected components: ``(count, label per node)`` (linear time).

    Labels are arbitrary component numbers; use ``condensation_order`` style processing by
    sorting components topologically if an order is needed. Graphs under
    ``SCIPY_ACYCLIC_MIN_SIZE`` nodes + moves are decomposed in Python with scipy's own
    algorithm and numbering (``_pearce_sccs``), so a small case does not import scipy.sparse.
    """
    if g.n == 0:
        return 0, np.zeros(0, dtype=np.int64)
    if g.n + g.m < SCIPY_ACYCLIC_MIN_SIZE:
        return _pearce_sccs(g.succ_ptr.tolist(), g.succ_idx.tolist())
    # imported on use: scipy.sparse costs about 0.12 s of start-up that most runs do not need
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    a = csr_matrix((np.ones(g.m, dtype=np.int8), g.succ_idx, g.succ_ptr), shape=(g.n, g.n))
    n_comp, labels = connected_components(a, directed=True, connection="strong")
    return int(n_comp), labels.astype(np.int64)


def _pearce_sccs(ptr: list[int], idx: list[int]) -> tuple[int, IntArray]:
    """Pearce's iterative SCC algorithm ("A space-efficient algorithm for finding strongly
    connected components", 2016) as scipy's ``connected_components(directed=True,
    connection="strong")`` runs it, so the labels are scipy's (a test compares them on random
    graphs): a depth-first stack from which a node visited again is moved to the top, lowlinks
    that become the labels, counted down from ``n - 1`` and turned around at the end."""
    n = len(ptr) - 1
    void, end = -1, -2
    low = [void] * n  # the lowlink of a node not yet in a component, then its label
    ss = [void] * n  # nodes backtracked and waiting for their component's root, linked
    stack_f, stack_b = [void] * n, [void] * n  # the DFS stack, doubly linked
    ss_head = end
    index, label = 0, n - 1
    for start in range(n):
        if low[start] != void:
            continue
        head = start
        stack_f[start] = stack_b[start] = end
        while head != end:
            v = head
            if low[v] == void:  # first visit: number it, push its unvisited successors
                low[v] = index
                index += 1
                for w in idx[ptr[v] : ptr[v + 1]]:
                    if low[w] != void or w == head:  # visited, or pushed by a repeated move
                        continue
                    if stack_f[w] != void:  # already on the stack: excise it
                        f, b = stack_f[w], stack_b[w]
                        if b != end:
                            stack_f[b] = f
                        if f != end:
                            stack_b[f] = b
                    stack_f[w], stack_b[w] = head, end
                    stack_b[head] = w
                    head = w
                continue
            head = stack_f[v]  # every successor done: pop v
            if head >= 0:
                stack_b[head] = end
            stack_f[v] = stack_b[v] = void
            low_v, root = low[v], True
            for w in idx[ptr[v] : ptr[v + 1]]:
                if low[w] < low_v:
                    low_v, root = low[w], False
            low[v] = low_v
            if not root:
                ss[v], ss_head = ss_head, v
                continue
            index -= 1  # v roots a component: it and the backtracked nodes above it
            while ss_head != end and low_v <= low[ss_head]:
                w, ss_head = ss_head, ss[ss_head]
                ss[w] = void
                low[w] = label
                index -= 1
            low[v] = label
            label -= 1
    labels = (n - 1) - np.asarray(low, dtype=np.int64)
    return (n - 1) - label, labels


def culprit(g: GameGraph, failing: IntArray) -> int:
    """The failing node that best explains the others: when one value was corrupted, its own
    equation fails and so may those of its predecessors (which read it). Pick the node whose
    failing predecessors are most numerous, then one whose successors do not fail, then the
    smallest id (the first node when there are too many to compare)."""
    failing = np.asarray(failing, dtype=np.int64)
    if len(failing) > 10_000:
        return int(failing[0])
    bad = np.zeros(g.n, dtype=np.bool_)
    bad[failing] = True
    best: tuple[int, int, int] | None = None
    for x in failing.tolist():
        covered = int(bad[g.predecessors(x)].sum())
        clean = int(not bad[g.successors(x)].any())
        key = (-covered, -clean, x)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2]
