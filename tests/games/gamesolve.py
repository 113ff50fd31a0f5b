"""An independent, deliberately plain solver for the game tests (not the project's solver).

Knuth's retrograde analysis (TAOCP 2.2.3 ex. 28) on a ``normal`` graph with the shared
remoteness definition: terminal won/lost 0; won 1 + min remoteness of the lost successors;
lost 1 + max remoteness of the successors; unknown and draw terminals -1.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

from verifier.model import GameGraph


def retrograde(g: GameGraph) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(labels, remoteness)``: +1 won / -1 lost / 0 unknown, and plies to the end."""
    n = g.n
    label = [0] * n
    rem = [-1] * n
    left = g.out_degree.tolist()
    pred_ptr = g.pred_ptr.tolist()
    pred_idx = g.pred_idx.tolist()
    queue: deque[int] = deque()
    for i, v in enumerate(g.value.tolist()):
        if left[i] == 0 and v == v and v != 0:  # v == v: not NaN
            label[i] = 1 if v > 0 else -1
            rem[i] = 0
            queue.append(i)
        elif left[i] == 0 and v != v:
            label[i], rem[i] = -1, 0
            queue.append(i)
    # Queue in order of remoteness: a node is labelled when its remoteness is final, because
    # nodes leave the queue by increasing remoteness (a breadth-first retrograde).
    while queue:
        y = queue.popleft()
        for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]]:
            if label[x]:
                continue
            if label[y] < 0:
                label[x], rem[x] = 1, rem[y] + 1
                queue.append(x)
            else:
                left[x] -= 1
                if left[x] == 0:
                    label[x], rem[x] = -1, rem[y] + 1
                    queue.append(x)
    return np.array(label, dtype=np.int64), np.array(rem, dtype=np.int64)
