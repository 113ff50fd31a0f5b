"""Grundy value sequences of heap games at scale: 10^5-10^6 heaps in seconds.

:func:`verifier.games.heaps.sequence_from_rule` is the reference (a Python loop over every
option of every heap, ``O(N^2)`` for games that split heaps). :func:`heap_values` computes the
same values with compiled kernels (``verifier.engine.sequence_kernels``): the options of a
heap are given by their removals (:class:`HeapMoves`: take the whole heap, leave one heap,
split what is left in two), and for games that split, the search uses the sparse space of
Winning Ways ch. 4 (a mask chosen from the first values makes most heaps *common*, and the
values of the common parity are decided by the few *rare* heaps alone). The mask changes only
the speed, never a value; the tests compare every game family with the reference.

Examples
--------
>>> heap_values(HeapMoves.octal(".77"), 12).tolist()  # Kayles
[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]
>>> heap_values(HeapMoves.grundys_game(), 10).tolist()
[0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.games.octal import OctalCode, octal_rule
from verifier.games.periodicity import Periodicity, find_period

__all__ = [
    "HeapMoves",
    "HeapSequence",
    "SparseSpace",
    "choose_sparse_space",
    "heap_sequence",
    "heap_values",
]

PREFIX = 2048
"""Heaps computed by the plain table before the sparse space is chosen from their values."""

WINDOW = 8192
"""The sparse space is chosen from the values of the latest heaps, this many."""

CHUNK = 1 << 14
"""Heaps per kernel call: progress is reported between calls."""

MAX_MARKS = 1 << 28
"""The largest value table the kernels get (values of heap games grow far slower)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: heaps computed so far, heaps asked for."""


@dataclass(frozen=True)
class HeapMoves:
    """The options of a heap of ``n`` by removals ``j``: ``take_all`` (``n == j``),
    ``leave_one`` (one heap of ``n - j > 0``), ``split`` (two non-empty heaps summing to
    ``n - j``; different sizes if ``unequal``)."""

    take_all: tuple[int, ...] = ()
    leave_one: tuple[int, ...] = ()
    split: tuple[int, ...] = ()
    unequal: bool = False

    @classmethod
    def octal(cls, code: str | OctalCode) -> HeapMoves:
        """The moves of an octal game (bits 1, 2, 4 of digit ``d_j``; ``d_0`` may split)."""
        digits = octal_rule(code).digits
        return cls(
            take_all=tuple(j for j, d in enumerate(digits) if d & 1 and j > 0),
            leave_one=tuple(j for j, d in enumerate(digits) if d & 2 and j > 0),
            split=tuple(j for j, d in enumerate(digits) if d & 4),
        )

    @classmethod
    def subtraction(cls, s: Iterable[int]) -> HeapMoves:
        """Take ``k`` counters for ``k`` in ``s`` (the octal digit 3 at each ``k``)."""
        ks = tuple(sorted(set(s)))
        return cls(take_all=ks, leave_one=ks)

    @classmethod
    def grundys_game(cls) -> HeapMoves:
        """Split a heap into two unequal non-empty heaps."""
        return cls(split=(0,), unequal=True)


@dataclass(frozen=True)
class SparseSpace:
    """A heap ``a`` is *rare* iff ``parity(g(a) & mask) xor (lam * a mod 2) == sigma``."""

    mask: int
    lam: int
    sigma: int

    def rare(self, values: NDArray[np.int64], first: int = 0) -> NDArray[np.int64]:
        """The rare heaps ``a >= 1`` among ``values`` (heaps ``first..``), increasing."""
        heaps = np.arange(first, first + len(values))
        table = np.arange(int(values.max(initial=0)) + 1) & self.mask
        parity = np.zeros(len(table), dtype=np.int64)
        for bit in range(len(table).bit_length()):
            parity ^= (table >> bit) & 1
        cls = parity[values] ^ (self.lam * (heaps & 1))
        rare: NDArray[np.int64] = heaps[(cls == self.sigma) & (heaps >= 1)]
        return rare


WIDE = (1 << 62) - 1
"""The bits a mask may hold: masks are finite ``b`` or the complements ``~b`` of Winning Ways'
infinite bitstrings (all bits but those of ``b``), cut to what an ``int64`` value can have."""


def choose_sparse_space(values: NDArray[np.int64], moves: HeapMoves) -> SparseSpace:
    """The mask (and position parity) making the fewest rare heaps among ``values``.

    A split of ``r`` counters decides the values of parity ``1 xor lam * (r mod 2)`` from the
    rare heaps alone; the common heaps must have values of that parity, which fixes the rare
    class: ``sigma = 0`` without the position parity, ``sigma = j mod 2`` with it (only when
    every split removal ``j`` has the same parity).
    """
    bits = max(int(values.max(initial=0)).bit_length(), 1)
    shapes = [(0, 0)]
    if len({j & 1 for j in moves.split}) == 1:
        shapes.append((1, moves.split[0] & 1))
    best: tuple[int, SparseSpace] | None = None
    for b in range(1 << bits):
        for mask in (b, WIDE & ~b):
            for lam, sigma in shapes:
                space = SparseSpace(mask, lam, sigma)
                count = len(space.rare(values))
                if mask and (best is None or count < best[0]):
                    best = (count, space)
    assert best is not None
    return best[1]


@dataclass(frozen=True)
class HeapSequence:
    """The values of heaps ``0..upto`` and how they were obtained."""

    values: NDArray[np.int64]
    computed: int
    """Heaps ``0..computed-1`` are computed by the mex; the rest follow from ``periodicity``."""
    periodicity: Periodicity | None = None
    """The certified period that gave the heaps beyond ``computed`` (None if none did)."""


def heap_values(moves: HeapMoves, upto: int, progress: Progress | None = None) -> NDArray[np.int64]:
    """Grundy values of single heaps ``0..upto``, every one computed by the mex."""
    return heap_sequence(moves, upto, progress=progress).values


def heap_sequence(
    moves: HeapMoves,
    upto: int,
    *,
    max_removal: int | None = None,
    progress: Progress | None = None,
    prefix: int = PREFIX,
) -> HeapSequence:
    """Grundy values of single heaps ``0..upto``; ``progress`` is called between chunks.

    With ``max_removal`` (``t`` of an octal game), the computation stops as soon as the octal
    periodicity theorem certifies a period (checked at every power of two from 4096 heaps on):
    the theorem then gives every further value. ``prefix``: heaps done by the plain table
    before the sparse space is chosen.
    """
    if upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    total = upto + 1
    run = _Run(moves, total, progress)
    run.plain(total if not moves.split else min(total, max(prefix, 2)))
    check = 4096
    while run.done < total:
        stop = min(total, check) if max_removal is not None else total
        run.sparse(stop)
        if max_removal is not None and run.done == check:
            check *= 2
            per = find_period(run.g[: run.done], max_removal=max_removal)
            if per is not None and per.certified:
                return _extended(run.g, run.done, per, progress)
    return HeapSequence(run.g, total)


def _extended(
    g: NDArray[np.int64], done: int, per: Periodicity, progress: Progress | None
) -> HeapSequence:
    """``g`` beyond ``done`` filled by the certified period (``g(n) = g(n - p)``, ``n >= e``)."""
    p = per.period
    for start in range(done, len(g), p):
        stop = min(len(g), start + p)
        g[start:stop] = g[start - p : stop - p]
    if progress is not None:
        progress(len(g), len(g))
    return HeapSequence(g, done, per)


class _Run:
    """One computation: the values so far, the kernels' work arrays and the sparse space."""

    def __init__(self, moves: HeapMoves, total: int, progress: Progress | None) -> None:
        from verifier.engine import sequence_kernels

        self.k: Any = sequence_kernels  # numba dispatchers: typed by their docstrings
        self.moves = moves
        self.total = total
        self.progress = progress
        self.g = np.zeros(total, dtype=np.int64)
        self.options = tuple(
            np.array(x, dtype=np.int64) for x in (moves.take_all, moves.leave_one, moves.split)
        )
        self.marks = np.zeros(1024, dtype=np.int64)
        self.done = 0
        self.space: SparseSpace | None = None
        self.dense = False
        self.next_choice = 0
        self.rare = np.zeros(total, dtype=np.int64)
        self.n_rare = 0

    def plain(self, stop: int) -> None:
        """The plain table up to heap ``stop`` (exclusive)."""
        while self.done < stop:
            end = min(stop, self.done + CHUNK)
            reached = self.k.naive_values(
                self.g, self.done, end, *self.options, self.moves.unequal, self.marks
            )
            self._advance(reached, end)

    def sparse(self, stop: int) -> None:
        """The sparse-space search up to heap ``stop``. The space is chosen again at every
        power of two, and after a chunk where more than 1 heap in 8 came out rare; while no
        space makes fewer than 1 heap in 4 rare, the plain table is faster and does the work."""
        while self.done < stop:
            if self.space is None or self.done >= self.next_choice:
                self._choose()
            assert self.space is not None
            end = min(stop, self.done + CHUNK)
            if self.dense:
                reached = self.k.naive_values(
                    self.g, self.done, end, *self.options, self.moves.unequal, self.marks
                )
                self._advance(reached, end)
                continue
            before = self.n_rare
            reached, self.n_rare = self.k.sparse_values(
                self.g,
                self.done,
                end,
                *self.options,
                self.moves.unequal,
                self.marks,
                self.rare,
                self.n_rare,
                self.space.mask,
                self.space.lam,
                self.space.sigma,
            )
            if 8 * (self.n_rare - before) > reached - self.done:
                self.next_choice = reached
            self._advance(reached, end)

    def _choose(self) -> None:
        """Choose the sparse space from the latest heaps; list the rare heaps computed so far."""
        window = self.g[max(0, self.done - WINDOW) : self.done]
        self.space = choose_sparse_space(window, self.moves)
        first = max(0, self.done - WINDOW)
        self.dense = 4 * len(self.space.rare(window, first)) > len(window)
        rare = self.space.rare(self.g[: self.done])
        self.rare[: len(rare)] = rare
        self.n_rare = len(rare)
        self.next_choice = 2 * self.done

    def _advance(self, reached: int, end: int) -> None:
        """Record the kernel's progress; twice the room for values if it stopped early."""
        self.done = reached
        if reached < end:
            if len(self.marks) >= MAX_MARKS:
                raise ValueError(f"heap {reached}: a Grundy value beyond {MAX_MARKS}")
            self.marks = np.zeros(2 * len(self.marks), dtype=np.int64)
        elif self.progress is not None:
            self.progress(self.done, self.total)
