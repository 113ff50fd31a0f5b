"""Small impartial graphs shared by the Sprague-Grundy tests: a hand-worked loopy example and a
hypothesis strategy for random graphs (cycles, self-loops, dead ends, isolated nodes)."""

from __future__ import annotations

from hypothesis import strategies as st

from verifier.model import GameGraph, Semantics

LOOPY = {
    "t": [],
    "s": ["t"],
    "x": ["t", "u"],
    "u": ["u", "s"],
    "y": ["y", "t"],
    "v": ["v"],
    "z": ["y", "v"],
    "p": ["y"],
    "a": ["b"],
    "b": ["a"],
}
"""Hand-worked (docs/sprague-grundy.md): t = 0; s = 1; x = 1 (its option u = inf(1) reverses
through s); u = inf(1), a draw; y = inf(0), a win; v = inf; z = inf (options y, v infinite);
p = 0 (its only option y is a win for the opponent); a = b = inf (a 2-cycle)."""

LOOPY_VALUES = {
    "t": "0",
    "s": "1",
    "x": "1",
    "u": "inf(1)",
    "y": "inf(0)",
    "v": "inf",
    "z": "inf",
    "p": "0",
    "a": "inf",
    "b": "inf",
}


def loopy_graph() -> GameGraph:
    return GameGraph.from_successors(LOOPY, semantics=Semantics.IMPARTIAL)


@st.composite
def impartial_graphs(draw: st.DrawFn, max_nodes: int = 8, acyclic: bool | None = None) -> GameGraph:
    """Random impartial graphs; ``acyclic=None`` draws both kinds."""
    if acyclic is None:
        acyclic = draw(st.booleans())
    n = draw(st.integers(1, max_nodes))
    dead = [draw(st.integers(0, 9)) < 3 for _ in range(n)]
    pairs = [(i, j) for i in range(n) for j in range(n) if not dead[i] and (not acyclic or i < j)]
    density = draw(st.sampled_from([0.15, 0.3, 0.5]))
    edges = [p for p in pairs if draw(st.floats(0, 1)) < density]
    perm = draw(st.permutations(range(n)))
    edges = [(perm[i], perm[j]) for i, j in edges]
    return GameGraph.from_edges(
        n, [i for i, _ in edges], [j for _, j in edges], semantics=Semantics.IMPARTIAL
    )
