"""The minimum excludant, the one rule of the Sprague-Grundy theory that every layer uses: the
heap games' value tables, the Grundy solvers, the checks, the Z3 encodings and the claims."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["mex"]


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not among ``values`` (seed, mex).

    >>> mex([0, 1, 3]), mex([]), mex([1, 2])
    (2, 0, 0)
    """
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m
