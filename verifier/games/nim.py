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

from collections.abc import Sequence
from dataclasses import replace
from functools import reduce

import numpy as np

from verifier.errors import UsageError
from verifier.games.heaps import DEFAULT_MAX_NODES, HeapGame, heap_case
from verifier.games.protocol import Game
from verifier.games.registry import UPTO, BuiltinGame, Example, Option, needs
from verifier.model import Case, Expect, GameGraph, Semantics

__all__ = ["GAME", "MAX_POSITIONS", "Nim", "nim_heaps", "nim_piles", "nim_position", "nim_rule"]


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
    return _product_case(
        list(heaps),
        case_id="nim-" + "-".join(map(str, heaps)),
        source="Bouton's nim (generator verifier.games.nim); expected values by Bouton's XOR",
    )


def nim_piles(piles: int, below: int, *, max_nodes: int = DEFAULT_MAX_NODES) -> Case:
    """Every position of ``piles`` nim heaps of fewer than ``below`` counters each (ordered
    tuples: ``below ** piles`` nodes); the root holds ``below - 1`` counters in every heap."""
    if piles < 1 or below < 1:
        raise ValueError(f"nim needs piles >= 1 and below >= 1, got {piles} and {below}")
    if below**piles > max_nodes:
        raise ValueError(
            f"nim with {piles} piles below {below} has {below**piles} > {max_nodes} positions"
        )
    return _product_case(
        [below - 1] * piles,
        case_id=f"nim-{piles}-piles-below-{below}",
        source=f"Bouton's nim, {piles} piles of 0..{below - 1} counters (generator "
        "verifier.games.nim); expected values by Bouton's XOR",
    )


def _product_case(heaps: list[int], *, case_id: str, source: str) -> Case:
    """The product graph of ``heaps``: a move takes counters from one heap (vectorized)."""
    radix = np.array([h + 1 for h in heaps], dtype=np.int64)
    strides = np.ones(len(heaps), dtype=np.int64)
    for i in range(len(heaps) - 2, -1, -1):
        strides[i] = strides[i + 1] * radix[i + 1]
    ids = np.arange(int(np.prod(radix)), dtype=np.int64)
    digits = [(ids // strides[k]) % radix[k] for k in range(len(heaps))]
    src_parts: list[np.ndarray] = []
    dst_parts: list[np.ndarray] = []
    for k, h in enumerate(heaps):
        for taken in range(1, h + 1):
            src = ids[digits[k] >= taken]
            src_parts.append(src)
            dst_parts.append(src - taken * strides[k])
    src = np.concatenate(src_parts) if src_parts else np.zeros(0, dtype=np.int64)
    dst = np.concatenate(dst_parts) if dst_parts else np.zeros(0, dtype=np.int64)
    columns = [d.astype(str) for d in digits]
    names = reduce(lambda a, b: np.char.add(np.char.add(a, ","), b), columns).tolist()
    graph = GameGraph.from_edges(names, src, dst, semantics=Semantics.IMPARTIAL)
    xors = reduce(np.bitwise_xor, digits)
    grundy = dict(enumerate(xors.tolist()))
    root = len(ids) - 1
    return Case(
        graph=graph,
        id=case_id,
        root=root,
        source=source,
        expect=Expect(grundy=grundy, root_value=grundy[root]),
    )


class Nim(Game):
    """Nim on the game protocol from the position ``heaps`` (``verifier generate
    verifier.games.nim:Nim --param heaps=3,4,5``): the same graph as :func:`nim_position`, which
    stays the fast path (``tests/games/test_protocol_builtin.py``)."""

    semantics = "impartial"

    def __init__(self, heaps: str | int = "1,2,3") -> None:
        self.heaps = tuple(int(h) for h in str(heaps).split(","))
        if not self.heaps or min(self.heaps) < 0:
            raise ValueError(f"heaps must be sizes >= 0 like '3,4,5', got {heaps!r}")

    def initial(self) -> tuple[int, ...]:
        return self.heaps

    def moves(self, heaps: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Take one or more counters from one heap."""
        return [(*heaps[:i], k, *heaps[i + 1 :]) for i, h in enumerate(heaps) for k in range(h)]

    def key(self, heaps: tuple[int, ...]) -> str:
        return ",".join(map(str, heaps))


MAX_POSITIONS = 50_000_000
"""The most positions ``nim --piles --below`` builds (about 40 bytes a move in memory)."""
_FLAT = replace(UPTO, required=False)  # or --piles and --below


def _sizes(upto: int | None, piles: int | None, below: int | None) -> int | tuple[int, int]:
    """``upto`` (single heaps 0..upto), or ``(piles, below)``."""
    if piles is None and below is None:
        if upto is None:
            raise needs("nim", UPTO)
        return upto
    if upto is not None:
        raise UsageError("generator 'nim' does not take --upto")
    if piles is None or below is None:
        raise UsageError("generator 'nim' needs both --piles and --below (or --upto alone)")
    return piles, below


def _generate(upto: int | None = None, piles: int | None = None, below: int | None = None) -> Case:
    """``nim --upto N``: heaps 0..N; ``nim --piles K --below N``: every position of K heaps of
    0..N-1 counters."""
    got = _sizes(upto, piles, below)
    if isinstance(got, int):
        return nim_heaps(got)
    return nim_piles(*got, max_nodes=MAX_POSITIONS)


def _on_protocol(
    upto: int | None = None, piles: int | None = None, below: int | None = None
) -> Game:
    """The same on the protocol: single heaps as a :class:`HeapGame`, or :class:`Nim` from
    ``piles`` heaps of ``below - 1`` counters."""
    got = _sizes(upto, piles, below)
    if isinstance(got, int):
        return HeapGame(nim_rule, got)
    count, bound = got
    return Nim(",".join([str(bound - 1)] * count))


GAME = BuiltinGame(
    "nim",
    "nim heaps 0..upto, or every position of --piles heaps below --below (impartial)",
    _generate,
    options=(
        _FLAT,
        Option("piles", int, "nim: number of heaps."),
        Option("below", int, "nim: each heap holds fewer counters."),
    ),
    protocol=_on_protocol,
    examples=(
        Example("nim-30", "nim", {"upto": 30}),
        Example("nim-3-piles-below-4", "nim", {"piles": 3, "below": 4}, study=False),
    ),
    order=80,
)
