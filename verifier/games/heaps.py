"""Heap games: the shared machinery behind nim, subtraction, octal games and Grundy's game.

A *heap rule* gives the options of one heap of size ``n`` as tuples of the non-empty heaps the
move leaves (``()`` when it leaves nothing). A position of the whole game is a multiset of heaps;
a move replaces one heap by the heaps one of its options leaves (the disjunctive sum of the seed).

Two independent ways to the values:

* :func:`sequence_from_rule`: the classical table ``g(n) = mex { g(a) xor g(b) ... }``, which
  *uses* the XOR rule of the seed for the split heaps;
* :func:`heap_case`: the explicit game graph on multisets of heaps (no XOR rule anywhere), for
  the solvers to work on. Heap ``n`` alone is node id ``n``, so the two can be compared.

Examples
--------
>>> def take_one_or_two(n: int) -> list[tuple[int, ...]]:
...     return [(n - k,) if n > k else () for k in (1, 2) if k <= n]
>>> sequence_from_rule(take_one_or_two, 7)
[0, 1, 2, 0, 1, 2, 0, 1]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from verifier.games.protocol import Game
from verifier.model import Case, Expect, GameGraph, Semantics
from verifier.model.mex import mex

__all__ = [
    "HeapGame",
    "HeapRule",
    "heap_case",
    "multiset_name",
    "sequence_from_rule",
]

HeapRule = Callable[[int], Iterable[tuple[int, ...]]]
"""Options of one heap of size ``n``: each a tuple of the non-empty heaps left behind."""

DEFAULT_MAX_NODES = 200_000
"""Largest multiset graph :func:`heap_case` builds unless told otherwise."""


def sequence_from_rule(rule: HeapRule, upto: int) -> list[int]:
    """Grundy values of single heaps ``0..upto``: ``g(n)`` = mex over options of the XOR of the
    values of the heaps each option leaves (the seed's sum rule applied to the split heaps)."""
    if upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    g: list[int] = []
    for n in range(upto + 1):
        reached: set[int] = set()
        for option in rule(n):
            x = 0
            for h in option:
                if not 0 < h < n:
                    raise ValueError(f"heap rule gives an invalid option {option!r} of heap {n}")
                x ^= g[h]
            reached.add(x)
        g.append(mex(reached))
    return g


def multiset_name(heaps: Sequence[int]) -> str:
    """Node name of a multiset of heaps: ``"0"`` for no heap, else ``"5+2+2"`` (descending)."""
    return "+".join(str(h) for h in heaps) if heaps else "0"


def heap_case(
    rule: HeapRule,
    upto: int,
    *,
    case_id: str,
    source: str,
    description: str | None = None,
    expect_values: Sequence[int] | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Case:
    """The explicit ``impartial`` game graph on multisets of heaps reachable from heaps ``0..upto``.

    Node ``n`` (for ``0 <= n <= upto``) is the single heap of size ``n`` (``"0"`` is the empty
    position). ``expect_values``, if given, become ``expect.grundy`` of those single heaps.
    Raises ``ValueError`` if the graph would exceed ``max_nodes`` nodes.
    """
    if upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    positions: list[tuple[int, ...]] = [()] + [(n,) for n in range(1, upto + 1)]
    ids: dict[tuple[int, ...], int] = {p: i for i, p in enumerate(positions)}
    options_of: dict[int, list[tuple[int, ...]]] = {}
    src: list[int] = []
    dst: list[int] = []
    queue = deque(range(len(positions)))
    while queue:
        i = queue.popleft()
        pos = positions[i]
        targets: set[int] = set()
        for k, h in enumerate(pos):
            if k and pos[k - 1] == h:
                continue  # equal heaps give the same options
            if h not in options_of:
                options_of[h] = [tuple(o) for o in rule(h)]
            rest = pos[:k] + pos[k + 1 :]
            for option in options_of[h]:
                nxt = tuple(sorted(rest + option, reverse=True))
                j = ids.get(nxt)
                if j is None:
                    if len(positions) >= max_nodes:
                        raise ValueError(
                            f"{case_id}: more than {max_nodes} positions; lower upto or raise "
                            "max_nodes"
                        )
                    j = len(positions)
                    ids[nxt] = j
                    positions.append(nxt)
                    queue.append(j)
                targets.add(j)
        for j in sorted(targets):
            src.append(i)
            dst.append(j)
    graph = GameGraph.from_edges(
        [multiset_name(p) for p in positions],
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        semantics=Semantics.IMPARTIAL,
    )
    expect = None
    if expect_values is not None:
        expect = Expect(grundy={n: int(v) for n, v in enumerate(expect_values[: upto + 1])})
    return Case(graph=graph, id=case_id, source=source, description=description, expect=expect)


class HeapGame(Game):
    """A heap game on the game protocol: a position is a multiset of heaps, a move replaces one
    heap by the heaps one of its options leaves, and every single heap ``0..upto`` is a start.
    The same graph as :func:`heap_case` (``tests/games/test_protocol_builtin.py``)."""

    semantics = "impartial"

    def __init__(self, rule: HeapRule, upto: int) -> None:
        self.rule, self.upto = rule, int(upto)

    def initials(self) -> list[tuple[int, ...]]:
        return [()] + [(n,) for n in range(1, self.upto + 1)]

    def moves(self, heaps: tuple[int, ...]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        for k, h in enumerate(heaps):
            if k and heaps[k - 1] == h:
                continue  # equal heaps give the same options
            rest = heaps[:k] + heaps[k + 1 :]
            out += [tuple(sorted(rest + tuple(o), reverse=True)) for o in self.rule(h)]
        return out

    def key(self, heaps: tuple[int, ...]) -> str:
        return multiset_name(heaps)
