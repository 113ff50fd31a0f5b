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

Streaming, for products too large to build (``stream_sum``; acyclic components only). The
positions reachable from the start tuple are exactly the Cartesian product of the positions
reachable from each start in its own component (``component``), so they are enumerated by a
mixed-radix index, in chunks, without storing the product. At each product position
``(x_1, ..., x_k)`` with claimed component values ``v``, the check computes
``X = v(x_1) xor ... xor v(x_k)`` and the XOR values of its successors: moving in component
``i`` to ``y`` gives ``X xor v(x_i) xor v(y)``; it requires ``mex(successors) == X``. For speed
the successor set moving in component ``i`` is read from a table indexed by ``x_i`` and
``c = X xor v(x_i)`` (the bit set ``{c xor v(y) : y an option of x_i}``, built once per
component when it fits ``MAX_TABLE``; otherwise the successor values are listed and flagged per
chunk). Memory is bounded by the chunk (``CHUNK_CELLS``) and the tables; time is linear in the
number of product positions (times the number of components, and the degree without tables).

Why it suffices: the product of finite acyclic games is finite and acyclic, so its Grundy
function is the unique function ``G`` with ``G(p) = mex{G(q) : q an option of p}`` at every
position (induction on the height of ``p``: if a function ``F`` satisfies the same equation at
every position, and ``F = G`` on the options of ``p``, which are lower, then
``F(p) = mex{F(q)} = mex{G(q)} = G(p)``). The check verifies that the XOR of the claimed values
satisfies the equation at *every* reachable product position; hence it is the Grundy function
there, and in particular the sum's value is the XOR at the start tuple. Nothing about the claimed
component values is trusted: a wrong value makes the equation fail at some product position,
which is reported (``MexFailure``) with its component positions. (Taking the other components at
terminal positions, the product check contains the components' own mex equations.) Cyclic
components are refused (``ValueError``): their generalized values need Fraenkel's counter
function on the product, which is not streamed.

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
from numpy.typing import NDArray

from verifier.model import GameGraph, Semantics
from verifier.solvers.loopy_grundy import GValue, LoopyGrundy

__all__ = [
    "CHUNK_CELLS",
    "MAX_PRODUCT",
    "MAX_STREAMED",
    "MAX_TABLE",
    "Component",
    "MexFailure",
    "Product",
    "Streamed",
    "component",
    "product_game",
    "product_size",
    "stream_sum",
    "sum_value",
    "sum_values",
]

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


MAX_STREAMED = 50_000_000
"""Largest product (positions) the streamed check walks when the product is too large to build."""

CHUNK_CELLS = 2_000_000
"""Successor values held at once by the streamed check (its memory bound, in 8-byte cells)."""


MAX_TABLE = 64_000_000
"""Largest flag table (bytes) built for one component's shifted successor sets (``_tables``)."""


@dataclass(frozen=True)
class Component:
    """The positions reachable from one start position, with local successor values."""

    nodes: NDArray[np.int64]
    """Node ids (of the summed graph) of the local positions; local 0 is the start."""
    values: NDArray[np.int64]
    """The claimed value of each local position."""
    succ: NDArray[np.int64]
    """Claimed values of each local position's successors, padded with -1 (rows = positions)."""


@dataclass(frozen=True)
class MexFailure:
    """A product position whose XOR value is not the mex of its successors' XOR values."""

    state: tuple[int, ...]
    """Its component positions (node ids)."""
    xor: int
    """The XOR of the component values there."""
    mex: int
    """The mex of the XOR values of its successors."""


@dataclass(frozen=True)
class Streamed:
    """Outcome of the streamed check of a sum (``stream_sum``)."""

    positions: int
    """Product positions checked (all of them when ``failure`` is None)."""
    value: int
    """The XOR of the claimed values at the start tuple."""
    failure: MexFailure | None


def component(g: GameGraph, start: int, values: Sequence[int]) -> Component:
    """The positions reachable from ``start`` and their claimed values.

    Raises ``ValueError`` when the reachable part has a cycle or a position has no claimed value
    (negative); the streamed check's induction needs a finite acyclic game with finite values.
    """
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    local = {start: 0}
    order = [start]
    for x in order:
        for y in idx[ptr[x] : ptr[x + 1]]:
            if y not in local:
                local[y] = len(order)
                order.append(y)
    rows = [[local[y] for y in idx[ptr[x] : ptr[x + 1]]] for x in order]
    if not _acyclic(rows):
        raise ValueError(f"the component from {g.name(start)} has a cycle")
    vals = np.array([values[x] for x in order], dtype=np.int64)
    if len(vals) and int(vals.min()) < 0:
        raise ValueError(f"a position reachable from {g.name(start)} has no finite value")
    width = max((len(r) for r in rows), default=0)
    succ = np.full((len(order), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        succ[i, : len(r)] = vals[r]
    return Component(np.array(order, dtype=np.int64), vals, succ)


def _acyclic(rows: Sequence[Sequence[int]]) -> bool:
    """Kahn's algorithm on local successor lists."""
    indeg = [0] * len(rows)
    for r in rows:
        for y in r:
            indeg[y] += 1
    ready = [x for x, d in enumerate(indeg) if d == 0]
    seen = 0
    while ready:
        x = ready.pop()
        seen += 1
        for y in rows[x]:
            indeg[y] -= 1
            if indeg[y] == 0:
                ready.append(y)
    return seen == len(rows)


def product_size(parts: Sequence[Component]) -> int:
    """Number of product positions: the product of the components' sizes."""
    size = 1
    for c in parts:
        size *= len(c.nodes)
    return size


def stream_sum(parts: Sequence[Component], cells: int = CHUNK_CELLS) -> Streamed:
    """Check the XOR rule at every product position, in chunks (module docstring).

    Stops at the first position (in mixed-radix order, first component most significant) whose
    XOR value is not the mex of its successors' XOR values.
    """
    sizes = [len(c.nodes) for c in parts]
    total = product_size(parts)
    start = 0
    for c in parts:
        start ^= int(c.values[0])
    top = 1 << max((int(c.values.max()) for c in parts), default=0).bit_length()
    tables = _tables(parts, top) if _table_cells(parts, top) <= MAX_TABLE else None
    width = sum(c.succ.shape[1] for c in parts) if tables is None else len(parts) * _bits(top) // 64
    chunk = max(1, cells // max(1, width))
    for lo in range(0, total, chunk):
        digits = _digits(np.arange(lo, min(total, lo + chunk), dtype=np.int64), sizes)
        xor = np.zeros(len(digits[0]), dtype=np.int64)
        for c, d in zip(parts, digits, strict=True):
            xor ^= c.values[d]
        if tables is None:
            succ = np.concatenate(
                [_shifted(c, d, xor) for c, d in zip(parts, digits, strict=True)], 1
            )
            mex = _mex(succ, top)
        else:
            mex = _mex_tables(parts, tables, digits, xor)
        bad = np.flatnonzero(mex != xor)
        if len(bad):
            i = int(bad[0])
            state = tuple(int(c.nodes[d[i]]) for c, d in zip(parts, digits, strict=True))
            return Streamed(lo + i, start, MexFailure(state, int(xor[i]), int(mex[i])))
    return Streamed(total, start, None)


def _digits(index: NDArray[np.int64], sizes: Sequence[int]) -> list[NDArray[np.int64]]:
    """Mixed-radix digits of product indices (first component most significant)."""
    out: list[NDArray[np.int64]] = []
    rest = index
    for n in reversed(sizes):
        out.append(rest % n)
        rest = rest // n
    return out[::-1]


def _shifted(c: Component, d: NDArray[np.int64], xor: NDArray[np.int64]) -> NDArray[np.int64]:
    """XOR values of the successors moving in component ``c`` (-1 where there is none)."""
    s = c.succ[d]
    others = (xor ^ c.values[d])[:, None]
    out: NDArray[np.int64] = np.where(s >= 0, s ^ others, -1)
    return out


def _mex(succ: NDArray[np.int64], width: int) -> NDArray[np.int64]:
    """The mex of each row's non-negative values (all below ``width``): a flag table per chunk."""
    rows, cols = np.nonzero(succ >= 0)
    flags = np.zeros((succ.shape[0], width + 1), dtype=bool)
    flags[rows, succ[rows, cols]] = True
    mex: NDArray[np.int64] = np.argmin(flags, axis=1).astype(np.int64)
    return mex


def _table_cells(parts: Sequence[Component], top: int) -> int:
    """Bytes of flags needed to build the largest component's table (``_tables``)."""
    return max(int((c.succ >= 0).sum()) * top + len(c.nodes) * top * _bits(top) for c in parts)


def _bits(top: int) -> int:
    """Bits of a successor set with values below ``top``: whole words, one bit spare (the mex)."""
    return (top // 64 + 1) * 64


def _tables(parts: Sequence[Component], top: int) -> list[NDArray[np.uint64]]:
    """Per component, the bit set {c ^ v : v a successor value of d} for every (d, c).

    Shape (positions, top, words) of 64-bit words; one spare word so the mex (<= top) is a 0 bit.
    """
    shift = np.arange(top, dtype=np.int64)
    out: list[NDArray[np.uint64]] = []
    for c in parts:
        flags = np.zeros((len(c.nodes), top, _bits(top)), dtype=bool)
        d, j = np.nonzero(c.succ >= 0)
        v = c.succ[d, j]
        flags[d[:, None], shift[None, :], v[:, None] ^ shift[None, :]] = True
        packed = np.packbits(flags, axis=2, bitorder="little")
        out.append(np.ascontiguousarray(packed).view(np.uint64))
    return out


def _mex_tables(
    parts: Sequence[Component],
    tables: Sequence[NDArray[np.uint64]],
    digits: Sequence[NDArray[np.int64]],
    xor: NDArray[np.int64],
) -> NDArray[np.int64]:
    """The mex of every product position's successor XOR values, from the tables: lowest 0 bit."""
    mask = np.zeros((len(xor), tables[0].shape[2]), dtype=np.uint64)
    for c, t, d in zip(parts, tables, digits, strict=True):
        mask |= t[d, xor ^ c.values[d]]
    free = ~mask
    word = np.argmax(free != 0, axis=1)
    w = free[np.arange(len(xor)), word]
    low = w & (~w + np.uint64(1))
    mex: NDArray[np.int64] = word.astype(np.int64) * 64 + np.log2(low).astype(np.int64)
    return mex
