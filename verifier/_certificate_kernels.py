"""The compiled queue of the array certificate checker (numba, imported only when used).

``forced`` is ``certificates.forced_region`` as machine code, written apart from the engine's
kernels so that the checker shares no code with the solvers it checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["forced"]

Array = Any


@njit(cache=True)
def forced(ptr: Array, idx: Array, owner: Array, move: Array, good: Array, side: int) -> Array:
    """Nodes from which ``side`` playing ``move`` forces reaching a ``good`` terminal.

    ``side``'s nodes keep only their move (none if it is -1); the others keep every move and
    join when all of them lead inside; a terminal is inside iff it is good (a FIFO queue over
    the predecessors of the restricted graph, built by counting)."""
    n = len(ptr) - 1
    pptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        a, b = ptr[x], ptr[x + 1]
        if owner[x] == side and b > a:
            y = move[x]
            if 0 <= y < n:
                pptr[y + 1] += 1
        else:
            for e in range(a, b):
                pptr[idx[e] + 1] += 1
    for y in range(n):
        pptr[y + 1] += pptr[y]
    at = pptr[:-1].copy()
    pidx = np.empty(pptr[n], dtype=np.int64)
    for x in range(n):
        a, b = ptr[x], ptr[x + 1]
        if owner[x] == side and b > a:
            y = move[x]
            if 0 <= y < n:
                pidx[at[y]] = x
                at[y] += 1
        else:
            for e in range(a, b):
                y = idx[e]
                pidx[at[y]] = x
                at[y] += 1
    count = np.empty(n, dtype=np.int64)
    inside = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for x in range(n):
        count[x] = ptr[x + 1] - ptr[x]
        if count[x] == 0 and good[x]:
            inside[x] = True
            queue[tail] = x
            tail += 1
    head = 0
    while head < tail:
        y = queue[head]
        head += 1
        for e in range(pptr[y], pptr[y + 1]):
            x = pidx[e]
            if inside[x]:
                continue
            if owner[x] == side:
                inside[x] = True
                queue[tail] = x
                tail += 1
            else:
                count[x] -= 1
                if count[x] == 0:
                    inside[x] = True
                    queue[tail] = x
                    tail += 1
    return inside
