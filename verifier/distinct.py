"""The distinct values of an integer array, by one sort.

numpy 2.3+ answers ``np.unique(a)`` on an integer array (no ``return_*`` flag) with a hash
table, and so do ``np.union1d``, ``np.intersect1d`` and ``np.setdiff1d`` (which call it): on
arrays with many distinct values this is 20 to 100 times slower than sorting
(``benchmarks/bench_distinct.py`` measures both in one run: 1.8 s against 0.03 s for 10^6
random uint64 with numpy 2.4.6). Generation, the frontiers of the fixpoints and the checks
de-duplicate millions of codes and node ids, so they call :func:`distinct` instead.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["distinct", "distinct_union"]

G = TypeVar("G", bound=np.generic)


def distinct(values: NDArray[G]) -> NDArray[G]:
    """The sorted distinct values of ``values`` (``np.unique(values)`` for integers; a NaN
    is not equal to itself here, so keep floats to ``np.unique``)."""
    s = np.sort(values, axis=None)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=np.bool_)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def distinct_union(a: NDArray[G], b: NDArray[G]) -> NDArray[G]:
    """``np.union1d(a, b)``: the sorted distinct values of both."""
    return distinct(np.concatenate([a, b]))
