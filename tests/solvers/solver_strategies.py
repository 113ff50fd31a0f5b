"""Hypothesis strategies and small helpers shared by the solver tests: random game graphs with
cycles, self-loops, dead ends and isolated nodes, in each semantics."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from verifier.model import MAX, MIN, NOBODY, GameGraph, Semantics


@st.composite
def edge_sets(
    draw: st.DrawFn, max_nodes: int = 7, acyclic: bool = False
) -> tuple[int, list[tuple[int, int]]]:
    """``(n, edges)``: any set of moves among n nodes (self-loops included unless acyclic).

    About a third of the nodes are made dead ends first (so that dense graphs still have
    leaves to score), the others get each possible move with a drawn density.
    """
    n = draw(st.integers(1, max_nodes))
    dead = [draw(st.integers(0, 9)) < 3 for _ in range(n)]
    pairs = [(i, j) for i in range(n) for j in range(n) if not dead[i] and (not acyclic or i < j)]
    density = draw(st.sampled_from([0.2, 0.35, 0.5]))
    edges = [p for p in pairs if draw(st.floats(0, 1)) < density]
    if acyclic:  # hide the topological order behind a random relabelling
        perm = draw(st.permutations(range(n)))
        edges = [(perm[i], perm[j]) for i, j in edges]
    return n, edges


def _out_degree(n: int, edges: list[tuple[int, int]]) -> list[int]:
    deg = [0] * n
    for i, _ in edges:
        deg[i] += 1
    return deg


@st.composite
def minimax_graphs(
    draw: st.DrawFn, max_nodes: int = 7, acyclic: bool = False, values: int = 3
) -> GameGraph:
    """Max/Min owners on inner nodes (any partition), leaf values in -values..values."""
    n, edges = draw(edge_sets(max_nodes, acyclic))
    deg = _out_degree(n, edges)
    owner = [draw(st.sampled_from([MAX, MIN])) if deg[i] else NOBODY for i in range(n)]
    value = [np.nan if deg[i] else float(draw(st.integers(-values, values))) for i in range(n)]
    return GameGraph.from_edges(
        n,
        [e[0] for e in edges],
        [e[1] for e in edges],
        semantics=Semantics.MINIMAX,
        owner=owner,
        value=value,
    )


@st.composite
def normal_graphs(draw: st.DrawFn, max_nodes: int = 8) -> GameGraph:
    """Terminal labels lost (mostly), won or draw; NaN (default lost) now and then."""
    n, edges = draw(edge_sets(max_nodes))
    deg = _out_degree(n, edges)
    labels = st.sampled_from([-1.0, -1.0, 1.0, 0.0, np.nan])
    value = [np.nan if deg[i] else draw(labels) for i in range(n)]
    return GameGraph.from_edges(
        n, [e[0] for e in edges], [e[1] for e in edges], semantics=Semantics.NORMAL, value=value
    )


@st.composite
def reachability_graphs(draw: st.DrawFn, max_nodes: int = 8) -> GameGraph:
    """Owners 0/1 on every node; a random target set (targets may have moves)."""
    n, edges = draw(edge_sets(max_nodes))
    owner = [draw(st.sampled_from([0, 1])) for _ in range(n)]
    target = [draw(st.booleans()) and draw(st.booleans()) for _ in range(n)]
    return GameGraph.from_edges(
        n,
        [e[0] for e in edges],
        [e[1] for e in edges],
        semantics=Semantics.REACHABILITY,
        owner=owner,
        target=target,
    )


def play(g: GameGraph, move: list[int], start: int) -> tuple[int, int]:
    """Follow ``move`` from ``start``: ``(node where play ends, plies)``, or ``(-1, plies)`` if
    the play returns to a node it has seen (it goes on for ever)."""
    seen = {start}
    x, plies = start, 0
    while move[x] >= 0:
        x = move[x]
        plies += 1
        if x in seen:
            return -1, plies
        seen.add(x)
    return x, plies
