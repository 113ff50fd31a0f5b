"""The numba kernels behind ``verifier.games.heap_sequences`` and
``verifier.games.periodicity`` (imported only when used).

``naive_values`` is the classical table ``g(n) = mex { options }`` over every option; the split
options of a heap of ``n`` cost ``O(n)`` each, so ``O(N^2)`` in all. ``sparse_values`` computes
the same values with the *sparse space* of Winning Ways (ch. 4, "Sparse space spells speed")
as described by Flammenkamp: with a mask ``m`` let ``p(v)`` be the parity of the 1-bits of
``v & m``, and give each heap ``a`` the class ``p(g(a)) xor (lam * a) mod 2``. For a split of
``r`` counters into ``a + (r - a)``,

    p(g(a) xor g(r - a)) = class(a) xor class(r - a) xor lam * (r mod 2),

so a value of parity ``1 xor lam * (r mod 2)`` comes only from a pair with one heap in each
class: every such pair has a heap in the class ``sigma`` chosen to be the rare one, and the
kernel enumerates those pairs only (``O(#rare)`` per heap). Values of the other parity are
searched among all pairs only when they are below the least value proved unreachable, and the
search stops as soon as they are all found. The mask only decides the speed: every ``g(n)`` is
the exact mex whatever the mask.

Option lists (all ``int64`` arrays of removals ``j``): ``take_all`` (``n == j``, leaves
nothing), ``leave_one`` (leaves ``n - j > 0``), ``split`` (leaves two non-empty heaps summing to
``n - j``; with ``unequal`` the two must differ, as in Grundy's game).
"""

from __future__ import annotations

from typing import Any

from numba import njit

__all__ = ["least_preperiods", "naive_values", "sparse_values"]

Array = Any
"""numba compiles for whatever numpy arrays come in; the typed wrappers live in the caller."""


@njit(cache=True, nogil=True)
def _parity(v: int, mask: int) -> int:
    """The parity of the 1-bits of ``v & mask``."""
    x = v & mask
    p = 0
    while x:
        x &= x - 1
        p ^= 1
    return p


@njit(cache=True, nogil=True)
def _mark_simple(
    g: Array, n: int, take_all: Array, leave_one: Array, marks: Array, stamp: int
) -> int:
    """Mark the values of the options that leave at most one heap; -1 if ``marks`` is short."""
    for j in take_all:
        if n == j and j > 0:
            marks[0] = stamp
    for j in leave_one:
        if 0 < j < n:
            v = g[n - j]
            if v >= marks.shape[0]:
                return -1
            marks[v] = stamp
    return 0


@njit(cache=True, nogil=True)
def _least_unmarked(marks: Array, stamp: int) -> int:
    """The least value not marked with ``stamp`` (the mex), or -1 if ``marks`` is full."""
    for v in range(marks.shape[0]):
        if marks[v] != stamp:
            return v
    return -1


@njit(cache=True, nogil=True)
def naive_values(
    g: Array,
    start: int,
    stop: int,
    take_all: Array,
    leave_one: Array,
    split: Array,
    unequal: bool,
    marks: Array,
) -> int:
    """Fill ``g[start:stop]`` by the mex over every option; the first heap it could not do
    (``marks`` too short for its values), or ``stop``."""
    for n in range(start, stop):
        stamp = n + 1
        if _mark_simple(g, n, take_all, leave_one, marks, stamp) < 0:
            return n
        for j in split:
            r = n - j
            for a in range(1, r // 2 + 1):
                if unequal and 2 * a == r:
                    continue
                v = g[a] ^ g[r - a]
                if v >= marks.shape[0]:
                    return n
                marks[v] = stamp
        m = _least_unmarked(marks, stamp)
        if m < 0:
            return n
        g[n] = m
    return stop


@njit(cache=True, nogil=True)
def sparse_values(
    g: Array,
    start: int,
    stop: int,
    take_all: Array,
    leave_one: Array,
    split: Array,
    unequal: bool,
    marks: Array,
    rare: Array,
    n_rare: int,
    mask: int,
    lam: int,
    sigma: int,
) -> tuple[int, int]:
    """Fill ``g[start:stop]`` with the sparse-space search (module docstring); ``rare[:n_rare]``
    lists the heaps ``1 <= a < start`` of class ``sigma`` in increasing order and grows with
    the new ones. Returns (the first heap not done, or ``stop``; the new ``n_rare``)."""
    size = marks.shape[0]
    for n in range(start, stop):
        stamp = n + 1
        if _mark_simple(g, n, take_all, leave_one, marks, stamp) < 0:
            return n, n_rare
        # pairs with a rare heap: every value of the "mixed" parity of each split
        for j in split:
            r = n - j
            for k in range(n_rare):
                a = rare[k]
                if a >= r:
                    break
                if unequal and 2 * a == r:
                    continue
                v = g[a] ^ g[r - a]
                if v >= size:
                    return n, n_rare
                marks[v] = stamp
        # the least value no pair of any kind can reach: unmarked, and of the mixed parity of
        # every split (so the enumeration above was complete for it)
        c = -1
        for v in range(size):
            if marks[v] == stamp:
                continue
            exact = True
            for j in split:
                r = n - j
                if r >= 2 and _parity(v, mask) != 1 ^ (lam * (r & 1)):
                    exact = False
                    break
            if exact:
                c = v
                break
        if c < 0:  # no value of an exact parity below size: search for every value
            c = size
        # the unmarked values below c: searched among all pairs, stopping when all are found
        missing = 0
        for v in range(c):
            if marks[v] != stamp:
                missing += 1
        if missing:  # every split at once, smallest heaps first: stop at the first success
            for a in range(1, n // 2 + 1):
                for j in split:
                    r = n - j
                    if 2 * a > r or (unequal and 2 * a == r):
                        continue
                    v = g[a] ^ g[r - a]
                    if v < c and marks[v] != stamp:
                        marks[v] = stamp
                        missing -= 1
                if missing == 0:
                    break
        value = c
        for v in range(c):
            if marks[v] != stamp:
                value = v
                break
        if value == size:  # every value below size is reached: room for more
            return n, n_rare
        g[n] = value
        if n >= 1 and (_parity(value, mask) ^ (lam * (n & 1))) == sigma:
            rare[n_rare] = n
            n_rare += 1
    return stop, n_rare


@njit(cache=True, nogil=True)
def least_preperiods(seq: Array, limit: int, min_repeats: int, out: Array) -> None:
    """``out[p]`` = the least ``e`` with ``seq[n] == seq[n + p]`` for ``e <= n < len - p``, for
    ``1 <= p <= limit``; -1 where the periodic part would cover fewer than ``min_repeats``
    periods or ``e + p`` would not beat the best pair of a smaller ``p``. The scan goes down
    from the end and stops at the first mismatch, so most ``p`` cost a few comparisons."""
    n = seq.shape[0]
    best = n + 1  # the least e + p so far
    for p in range(1, limit + 1):
        out[p] = -1
        most = min(n - min_repeats * p, best - p - 1)  # the largest e worth having
        if most < 0:
            continue
        e = 0
        for i in range(n - p - 1, -1, -1):
            if seq[i] != seq[i + p]:
                e = i + 1
                break
        if e <= most:
            out[p] = e
            best = e + p
