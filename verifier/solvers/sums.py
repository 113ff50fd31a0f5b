"""Disjunctive sums of impartial games: the XOR rule and the explicit product game.

A case may declare sums (``Case.sums``): each a list of start positions, one per component. A
move in the sum is a move in exactly one component. The seed's theorem: the value of the sum is
the XOR (nim-sum) of the components' values. For loopy games (Smith; Fraenkel's surveys) the
rule extends to generalized values: ``a + b = a xor b``; ``a + inf(K) = inf(K xor a)`` (every
element of K XOR-ed with a); ``inf(K) + inf(L) = inf()`` (a draw). That is all this module
claims about infinite values.

Here: the rule, and the explicit product game (the positions reachable from the start tuple, up
to ``MAX_PRODUCT`` of them) that the check ``grundy-sums`` (``verifier.checks.sums``) validates
the rule on.

Examples
--------
>>> from verifier.solvers.loopy_grundy import GValue
>>> str(sum_value([GValue(3), GValue(5)])), str(sum_value([GValue(None, frozenset({0, 2})),
...                                                          GValue(1)]))
('6', 'inf(1,3)')
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verifier.model import GameGraph, Semantics
from verifier.solvers.loopy_grundy import GValue, LoopyGrundy

__all__ = ["MAX_PRODUCT", "Product", "product_game", "sum_value", "sum_values"]

MAX_PRODUCT = 50_000
"""Largest product game built for a sum (reachable positions)."""


def sum_value(components: Sequence[GValue]) -> GValue:
    """The value of a disjunctive sum from its components' values (module docstring)."""
    finite = 0
    kset: frozenset[int] | None = None
    infinite = 0
    for v in components:
        if v.finite is not None:
            finite ^= v.finite
        else:
            infinite += 1
            kset = v.k
    if infinite == 0:
        return GValue(finite)
    if infinite == 1 and kset is not None:
        return GValue(None, frozenset(k ^ finite for k in kset))
    return GValue(None, frozenset())


@dataclass(frozen=True, eq=False)
class Product:
    """The explicit product game of a sum: positions are tuples of component positions."""

    graph: GameGraph
    """The product as an ``impartial`` graph; node 0 is the start tuple."""
    states: tuple[tuple[int, ...], ...]
    """The component positions of each product node."""


def product_game(g: GameGraph, positions: Sequence[int], max_nodes: int = MAX_PRODUCT) -> Product:
    """Positions reachable from ``positions`` in the sum of copies of ``g`` (breadth first).

    Raises ``ValueError`` when there are more than ``max_nodes``.
    """
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    start = tuple(int(p) for p in positions)
    ids = {start: 0}
    states = [start]
    src: list[int] = []
    dst: list[int] = []
    queue = deque([0])
    while queue:
        i = queue.popleft()
        state = states[i]
        targets: set[int] = set()
        for k, x in enumerate(state):
            for y in idx[ptr[x] : ptr[x + 1]]:
                nxt = (*state[:k], y, *state[k + 1 :])
                j = ids.get(nxt)
                if j is None:
                    if len(states) >= max_nodes:
                        raise ValueError(f"the product has more than {max_nodes} positions")
                    j = ids[nxt] = len(states)
                    states.append(nxt)
                    queue.append(j)
                targets.add(j)
        for j in sorted(targets):
            src.append(i)
            dst.append(j)
    names = ["(" + ", ".join(g.name(x) for x in s) + ")" for s in states]
    graph = GameGraph.from_edges(
        names,
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        semantics=Semantics.IMPARTIAL,
    )
    return Product(graph, tuple(states))


def sum_values(component: LoopyGrundy, states: Sequence[tuple[int, ...]]) -> list[GValue]:
    """The rule's value of every product position."""
    return [sum_value([component.value(x) for x in s]) for s in states]
