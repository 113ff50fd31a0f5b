"""Helpers shared by the game generators: exploring a game, building its case, lazy names.

Every generator builds a ``normal`` game graph (the player to move alternates, labels from the
mover's view): a position where the previous player has just won is a terminal lost for the
mover (the default label -1), a drawn end is a terminal labelled 0.

Small games (tic-tac-toe, the L-game) are explored position by position with :func:`explore`;
large ones (Connect Four, the chess endgames) build numpy arrays of ids themselves and name their
nodes with :class:`LazyNames`, which decodes a name only when somebody asks for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.model import NOBODY, Case, GameGraph, Semantics

__all__ = [
    "DRAW",
    "LOST",
    "LazyNames",
    "explore",
    "normal_case",
    "sorted_csr",
    "square_map",
    "square_symmetries",
    "unique_inverse",
    "unique_keys",
]

LOST = -1.0
"""Terminal label: the player to move has lost (the opponent has just won, or cannot move)."""
DRAW = 0.0
"""Terminal label: the game ended drawn (full board, stalemate, bare kings)."""

S = TypeVar("S", bound=Hashable)


def explore(
    roots: Iterable[S], moves: Callable[[S], Iterable[S]]
) -> tuple[list[S], NDArray[np.int64], NDArray[np.int64]]:
    """Every position reachable from ``roots``, in breadth-first order, and the moves.

    Returns ``(positions, src, dst)``: ``positions[i]`` is the position with id ``i`` (the roots
    come first), and the moves are the parallel id arrays ``src -> dst``, one per distinct
    successor (a move list that names a successor twice yields one edge).
    """
    ids: dict[S, int] = {}
    positions: list[S] = []
    for r in roots:
        if r not in ids:
            ids[r] = len(positions)
            positions.append(r)
    src: list[int] = []
    dst: list[int] = []
    queue = deque(range(len(positions)))
    while queue:
        i = queue.popleft()
        seen: set[int] = set()
        for y in moves(positions[i]):
            j = ids.get(y)
            if j is None:
                j = ids[y] = len(positions)
                positions.append(y)
                queue.append(j)
            if j not in seen:
                seen.add(j)
                src.append(i)
                dst.append(j)
    return positions, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def square_symmetries(n: int) -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of an n x n board as cell permutations (cells ``r * n + c``).

    ``perm[i]`` is the cell whose content lands on cell ``i``: the image of a board ``b`` is
    ``[b[perm[i]] for i in range(n * n)]``. The identity comes first.
    """
    return tuple(
        tuple(_flat(square_map(g, r, c, n - 1), n) for r in range(n) for c in range(n))
        for g in range(8)
    )


def _flat(rc: tuple[int, int], n: int) -> int:
    return rc[0] * n + rc[1]


def square_map(g: int, r: int, c: int, m: int) -> tuple[int, int]:
    """The image of cell ``(r, c)`` under the ``g``-th symmetry (0..7) of the square
    ``[0, m] x [0, m]``: the four rotations, then the four reflections."""
    images = (
        (r, c),
        (c, m - r),
        (m - r, m - c),
        (m - c, r),
        (r, m - c),
        (m - r, c),
        (c, r),
        (m - c, m - r),
    )
    return images[g]


def unique_keys(keys: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """The distinct keys in increasing order, and for each the index of one occurrence.

    Same result as ``numpy.unique(keys, return_index=True)`` up to which occurrence is named,
    but a plain sort: ``numpy.unique`` is many times slower on millions of integers (numpy 2.4).
    """
    order, ordered, first = _sorted_runs(keys)
    return ordered[first], order[first].astype(np.int64)


def _sorted_runs(keys: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[Any], NDArray[np.bool_]]:
    """``(order, keys[order], first)``: the sorting permutation (equal keys by increasing
    index), the sorted keys, and where each run of equal keys starts."""
    n = len(keys)
    key_bits = int(keys.max()).bit_length() if n else 0
    index_bits = max(n - 1, 0).bit_length()
    if n and keys.dtype.kind in "iu" and int(keys.min()) >= 0 and key_bits + index_bits <= 64:
        # key and index packed in one uint64, then a plain sort: numpy's sort of 10^7-10^8
        # integers is about 5x faster than its argsort (measured: 1.3 s against 6.2 s on 5e7)
        packed = keys.astype(np.uint64)
        packed <<= np.uint64(index_bits)
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        ordered = (packed >> np.uint64(index_bits)).astype(keys.dtype, copy=False)
        packed &= np.uint64((1 << index_bits) - 1)
        order = packed.view(np.intp)  # in place: a new array of 10^8 items costs page faults
    else:
        order = np.argsort(keys)
        ordered = keys[order]
    first = np.ones(len(ordered), dtype=np.bool_)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return order, ordered, first


def unique_inverse(
    keys: NDArray[Any],
) -> tuple[NDArray[Any], NDArray[np.int64], NDArray[np.int64]]:
    """:func:`unique_keys` and, for each key, the index of its value among the distinct keys
    (``distinct[inverse] == keys``): the ranks come from the one sort, in linear time, instead
    of a binary search per key (``searchsorted``, a cache miss per step on 10^8 keys).

    >>> d, one, inv = unique_inverse(np.array([30, 10, 30, 20]))
    >>> d.tolist(), inv.tolist()
    ([10, 20, 30], [2, 0, 2, 1])
    """
    order, ordered, first = _sorted_runs(keys)
    distinct = ordered[first]
    del ordered
    rank = np.cumsum(first, dtype=np.int64)
    rank -= 1
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[order] = rank
    return distinct, order[first].astype(np.int64), inverse


def normal_case(
    names: Sequence[str] | int,
    src: ArrayLike,
    dst: ArrayLike,
    value: ArrayLike,
    *,
    case_id: str,
    source: str,
    root: int | None = None,
    description: str | None = None,
) -> Case:
    """A ``normal``-semantics case; ``value`` holds terminal labels (NaN on inner nodes).

    Labels given on nodes that turn out to have moves are dropped (NaN), so a generator may
    label positions by their board alone (e.g. a full board is a draw) without caring whether
    a move is left; terminals without a label get the default, lost (-1).
    """
    s = np.asarray(src, dtype=np.int64)
    n = names if isinstance(names, int) else len(names)
    ptr, idx = sorted_csr(n, s, np.asarray(dst, dtype=np.int64))
    return normal_case_csr(
        names, ptr, idx, value, case_id=case_id, source=source, root=root, description=description
    )


def normal_case_csr(
    names: Sequence[str] | int,
    ptr: NDArray[np.int64],
    idx: NDArray[np.int64],
    value: ArrayLike,
    *,
    case_id: str,
    source: str,
    root: int | None = None,
    description: str | None = None,
) -> Case:
    """:func:`normal_case` from CSR arrays a generator built sorted itself (layer by layer)."""
    n = names if isinstance(names, int) else len(names)
    val = np.array(value, dtype=np.float64)
    inner = ptr[1:] > ptr[:-1]
    val[inner] = np.nan
    val[~inner & np.isnan(val)] = LOST  # the default label, written out as the loader does
    graph = GameGraph(
        semantics=Semantics.NORMAL,
        succ_ptr=ptr,
        succ_idx=idx,
        owner=np.full(n, NOBODY, dtype=np.int8),
        value=val,
        target=np.zeros(n, dtype=np.bool_),
        names=() if isinstance(names, int) else _frozen_names(names),
    )
    return Case(graph=graph, id=case_id, root=root, source=source, description=description)


def _frozen_names(names: Sequence[str]) -> Sequence[str]:
    return names if isinstance(names, LazyNames | tuple) else tuple(names)


def sorted_csr(
    n: int, src: NDArray[np.int64], dst: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """CSR arrays ``(succ_ptr, succ_idx)`` of the moves ``src -> dst``, sorted by (src, dst).

    What ``GameGraph.from_edges`` builds, with one sort of the combined key ``src * n + dst``
    instead of a two-key ``lexsort`` (several times faster on millions of moves). A repeated
    move is a bug in a generator: ``ValueError``.
    """
    if len(src) and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
        raise ValueError("move endpoint out of range")
    key = np.sort(src * n + dst)
    if len(key) > 1 and (key[1:] == key[:-1]).any():
        k = int(key[1:][key[1:] == key[:-1]][0])
        raise ValueError(f"repeated move {k // n} -> {k % n}")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // n, minlength=n), out=ptr[1:])
    return ptr, key % n


class LazyNames(Sequence[str]):
    """Node names computed on demand from an array of position codes.

    ``decode(code)`` turns one code into its readable name; nothing is materialised until a
    name is read, so a graph of millions of positions is built at numpy speed.
    """

    def __init__(
        self,
        codes: NDArray[Any],
        decode: Callable[[int], str],
        decode_all: Callable[[NDArray[Any]], NDArray[np.bytes_]] | None = None,
        codec: str | None = None,
        lookup: Callable[[object], int | None] | None = None,
    ) -> None:
        self._codes = codes
        self.lookup = lookup
        """A name's index found without building a dict of every name (the game parses the
        name), if the game gives one; ``GameGraph.id_of`` uses it."""
        self._decode = decode
        self._decode_all = decode_all
        self.codec = codec
        """The name of the codec that decodes the codes (``verifier.games.name_codecs``), if
        any: a file may then store the codes instead of the names."""

    def __iter__(self) -> Iterator[str]:
        """Every name in id order (decoded a chunk at a time where ``decode_all`` was given)."""
        if self._decode_all is None:
            yield from (self._decode(int(c)) for c in self._codes)
            return
        for start in range(0, len(self._codes), 1 << 16):
            chunk = self._decode_all(self._codes[start : start + (1 << 16)])
            yield from (x.decode("ascii") for x in chunk.tolist())

    def __len__(self) -> int:
        return len(self._codes)

    def encoded(self, start: int, stop: int) -> NDArray[np.bytes_] | None:
        """The names of ids ``start .. stop-1`` as ASCII bytes, decoded at numpy speed
        (``None`` without a whole-array decoder)."""
        if self._decode_all is None:
            return None
        return self._decode_all(self._codes[start:stop])

    @property
    def codes(self) -> NDArray[Any]:
        """The position code of every node, indexed by id."""
        return self._codes

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self._decode(int(c)) for c in self._codes[i]]
        return self._decode(int(self._codes[i]))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyNames) and other._decode is self._decode:
            return bool(np.array_equal(self._codes, other._codes))
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
