"""A small game graph as SVG, for notebooks: each position with its answer, the witness of a
refuted check highlighted.

Layout: positions in layers by their distance from the root (or from the positions nothing
moves to), left to right within a layer in id order; edges are straight arrows. Only graphs of
at most ``MAX_NODES`` positions are drawn (``graph_svg`` returns ``None`` above).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping
from html import escape
from typing import TYPE_CHECKING

import numpy as np

from verifier.model import GameGraph
from verifier.model.display import displays

if TYPE_CHECKING:
    from verifier.model.solution import Solution

__all__ = ["MAX_NODES", "graph_svg", "solution_svg"]

MAX_NODES = 60
"""The largest graph drawn."""

_DX, _DY, _R = 90, 70, 22


def _layers(g: GameGraph, root: int | None) -> list[int]:
    """Each node's layer: its distance from the sources of the breadth-first search."""
    layer = [-1] * g.n
    sources = [root] if root is not None else [x for x in range(g.n) if g.in_degree[x] == 0]
    queue = deque(sources or [0] if g.n else [])
    for x in queue:
        layer[x] = 0
    while True:
        while queue:
            x = queue.popleft()
            for y in g.successors(x).tolist():
                if layer[y] < 0:
                    layer[y] = layer[x] + 1
                    queue.append(y)
        rest = [x for x in range(g.n) if layer[x] < 0]
        if not rest:
            return layer
        layer[rest[0]] = 0  # a part the sources do not reach: its own first layer
        queue.append(rest[0])


def graph_svg(
    g: GameGraph,
    labels: Mapping[int, str] | None = None,
    highlight: Collection[int] = (),
    root: int | None = None,
) -> str | None:
    """The SVG of ``g`` (``None`` above ``MAX_NODES`` positions): each node a circle with its
    name and ``labels[x]`` (e.g. its value), ``highlight`` nodes in class ``witness``."""
    if g.n > MAX_NODES:
        return None
    layer = _layers(g, root)
    slot: dict[int, tuple[float, float]] = {}
    seen: dict[int, int] = {}
    for x in range(g.n):
        k = seen.get(layer[x], 0)
        seen[layer[x]] = k + 1
        slot[x] = (_DX * k + _DX / 2, _DY * layer[x] + _DY / 2)
    width = _DX * max(seen.values(), default=1)
    height = _DY * (max(layer, default=0) + 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" class="game-graph">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>',
    ]
    for x in range(g.n):
        for y in g.successors(x).tolist():
            (x1, y1), (x2, y2) = slot[x], slot[y]
            if x == y:
                parts.append(
                    f'<path class="move" data-from="{x}" data-to="{y}" fill="none" '
                    f'stroke="#888" d="M{x1 - 8},{y1 - _R} C{x1 - 30},{y1 - 50} '
                    f'{x1 + 30},{y1 - 50} {x1 + 8},{y1 - _R}" marker-end="url(#arrow)"/>'
                )
                continue
            dx, dy = x2 - x1, y2 - y1
            norm = max((dx * dx + dy * dy) ** 0.5, 1e-9)
            ex, ey = x2 - dx / norm * _R, y2 - dy / norm * _R
            parts.append(
                f'<line class="move" data-from="{x}" data-to="{y}" x1="{x1:.1f}" y1="{y1:.1f}" '
                f'x2="{ex:.1f}" y2="{ey:.1f}" stroke="#888" marker-end="url(#arrow)"/>'
            )
    for x in range(g.n):
        cx, cy = slot[x]
        cls = "position witness" if x in highlight else "position"
        stroke = "#d00" if x in highlight else "#333"
        text = escape(g.name(x))
        label = escape(labels.get(x, "")) if labels else ""
        parts.append(
            f'<g class="{cls}" data-node="{x}" data-name="{text}">'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{_R}" fill="white" stroke="{stroke}" '
            f'stroke-width="{3 if x in highlight else 1}"/>'
            f'<text x="{cx:.1f}" y="{cy - 3:.1f}" text-anchor="middle" font-size="11">'
            f"{text}</text>"
            f'<text x="{cx:.1f}" y="{cy + 10:.1f}" text-anchor="middle" font-size="9">'
            f"{label}</text>"
            "</g>"
        )
    parts.append("</svg>")
    return "".join(parts)


@displays("solution_svg")
def solution_svg(sol: Solution, highlight: Collection[int] = ()) -> str | None:
    """``Solution.svg``: the graph with each answered position's value (``None`` above
    ``MAX_NODES`` positions); ``highlight``: positions drawn as a witness."""
    covered = np.flatnonzero(sol.covered).tolist()
    labels = {x: str(sol.value(x)) for x in covered}
    return graph_svg(sol.graph, labels, highlight, sol.root)
