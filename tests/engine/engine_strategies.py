"""Random game graphs for the engine's property tests (hypothesis strategies and a seeded
numpy generator): cycles, self-loops, dead ends and isolated nodes all occur."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from verifier.model import MAX, MIN, NOBODY, GameGraph, Semantics


def build(
    semantics: Semantics,
    n: int,
    edges: set[tuple[int, int]] | list[tuple[int, int]],
    labels: list[int],
    acyclic: bool = False,
) -> GameGraph:
    """A graph of ``semantics`` from an edge set and one small integer per node.

    ``labels[x]`` decides the per-node data: the owner (its parity) and, on terminals, the
    value (``minimax``: ``labels[x] - 3``; ``normal``: -1 / 0 / +1), or target membership.
    """
    es = sorted({(a, b) for a, b in edges if not acyclic or a < b})
    src = [a for a, _ in es]
    dst = [b for _, b in es]
    deg = np.bincount(np.array(src, dtype=np.int64), minlength=n)
    term = deg == 0
    lab = np.array(labels, dtype=np.int64)
    owner = np.full(n, NOBODY, dtype=np.int8)
    value = np.full(n, np.nan)
    target = np.zeros(n, dtype=np.bool_)
    if semantics is Semantics.MINIMAX:
        owner[~term] = np.where(lab[~term] % 2 == 0, MAX, MIN)
        value[term] = lab[term] - 3
    elif semantics is Semantics.NORMAL:
        value[term] = (lab[term] % 3) - 1
    elif semantics is Semantics.REACHABILITY:
        target = lab % 3 == 0
        owner = np.where(~term & ~target, lab % 2, NOBODY).astype(np.int8)
    return GameGraph.from_edges(
        n, src, dst, semantics=semantics, owner=owner, value=value, target=target
    )


@st.composite
def graphs(
    draw: Any, semantics: Semantics, max_nodes: int = 12, acyclic: bool = False
) -> GameGraph:
    """A hypothesis strategy: a random graph of ``semantics`` with up to ``max_nodes`` nodes."""
    n = draw(st.integers(1, max_nodes))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    edges = draw(st.sets(pairs, max_size=3 * n))
    labels = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    return build(semantics, n, edges, labels, acyclic)


def random_graph(
    rng: np.random.Generator, semantics: Semantics, max_nodes: int = 20, acyclic: bool = False
) -> GameGraph:
    """The same distribution with a seeded numpy generator (for loops over thousands)."""
    n = int(rng.integers(1, max_nodes + 1))
    m = int(rng.integers(0, 3 * n + 1))
    edges = set(zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist(), strict=True))
    return build(semantics, n, edges, rng.integers(0, 7, n).tolist(), acyclic)


FRONTIER_PATHS = [(0, 0), (0, 10**9), (10**9, 0)]
"""(SCALAR_FRONTIER, SCAN_FACTOR) pairs that force every frontier through one code path: numpy
with de-duplicated hits, numpy with a scan of the layer array, the scalar loop."""


def force_frontier_path(monkeypatch: Any, scalar: int, scan: int) -> None:
    """Send every frontier of the engine through one path, in tiny chunks of edges."""
    from verifier.engine import frontier

    monkeypatch.setattr(frontier, "SCALAR_FRONTIER", scalar)
    monkeypatch.setattr(frontier, "CHUNK_EDGES", 3)
    monkeypatch.setattr(frontier, "SCAN_FACTOR", scan)  # 0: de-duplicate hits; huge: scan
