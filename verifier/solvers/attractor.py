"""The attractor of a reachability game (ICO training notes, "Solving finite games").

Player 0 wins iff play reaches the target set G; a play that ends elsewhere or never ends is
player 1's. ``W_0 = G``; a player-0 node joins ``W_{i+1}`` when one of its moves leads into
``W_i``; a player-1 node (with at least one move) joins when all of its moves do. The notes' hint
gives O(m): keep at each node a count of its good neighbours and, when a node enters W, notify its
predecessors. Here the count runs downwards (moves not yet known to lead into W, as in Knuth's
retrograde counters), which is the same test "good count equals degree".

``attractor_layers`` is the bare propagation; Kars' threshold method (``kars_levels``) reuses it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

from verifier.model import Case, GameGraph, Semantics, SolverResult
from verifier.model.results import AttractorResult
from verifier.model.semantics import PLAYER0, PLAYER1
from verifier.registry import Options, solver
from verifier.solvers._common import require_reference, timed

__all__ = ["AttractorResult", "attractor", "attractor_layers", "attractor_solver"]


def attractor_layers(
    pred_ptr: Sequence[int],
    pred_idx: Sequence[int],
    out_degree: Sequence[int],
    attacker: Sequence[bool],
    targets: Iterable[int],
) -> tuple[list[int], int]:
    """Layer of every node in the attacker's attractor of ``targets`` (-1 outside), and the
    number of predecessor edges scanned.

    ``attacker[x]`` says the attacker (player 0) moves at ``x``; elsewhere the defender moves.
    A node without moves that is not a target never joins. The FIFO queue hands out layers in
    non-decreasing order, so the first notification of an attacker node comes from a successor
    of least layer and the last one of a defender node from a successor of greatest layer.
    """
    n = len(out_degree)
    layer = [-1] * n
    missing = list(out_degree)  # moves of x not yet known to lead into W
    queue: deque[int] = deque()
    for x in targets:  # W_0 = G
        if layer[x] < 0:
            layer[x] = 0
            queue.append(x)
    scanned = 0
    while queue:
        y = queue.popleft()
        next_layer = layer[y] + 1
        for x in pred_idx[pred_ptr[y] : pred_ptr[y + 1]]:
            scanned += 1
            if layer[x] >= 0:
                continue
            if attacker[x]:  # one good neighbour suffices
                layer[x] = next_layer
                queue.append(x)
            else:  # all neighbours must be good
                missing[x] -= 1
                if missing[x] == 0:
                    layer[x] = next_layer
                    queue.append(x)
    return layer, scanned


def attractor(g: GameGraph) -> AttractorResult:
    """Solve a ``reachability`` game: player 0's attractor of the target set, in O(n + m).

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["a"], "c": []},
    ...     semantics=Semantics.REACHABILITY, owner={"a": 0, "b": 1}, target=["c"])
    >>> r = attractor(g)
    >>> r.win.tolist(), r.layer.tolist(), r.move.tolist()
    ([True, True, True], [1, 2, 0], [2, -1, -1])
    """
    g.expect_semantics(Semantics.REACHABILITY)
    owner = g.owner.tolist()
    target = g.target.tolist()
    deg = g.out_degree.tolist()
    for x in range(g.n):
        if deg[x] and not target[x] and owner[x] not in (PLAYER0, PLAYER1):
            raise ValueError(f"node {g.name(x)!r} has moves but no owner 0 or 1")
    attacker = [o == PLAYER0 for o in owner]
    layer, scanned = attractor_layers(
        g.pred_ptr.tolist(), g.pred_idx.tolist(), deg, attacker, np.flatnonzero(g.target).tolist()
    )
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    move = [-1] * g.n
    for x in range(g.n):
        succ = idx[ptr[x] : ptr[x + 1]]
        if target[x] or not succ:
            continue
        if attacker[x] and layer[x] > 0:  # lower the layer (ids increase: min keeps the first)
            move[x] = min((y for y in succ if layer[y] >= 0), key=lambda y: layer[y])
        elif not attacker[x] and layer[x] < 0:  # stay outside W
            move[x] = next(y for y in succ if layer[y] < 0)
    lay = np.array(layer, dtype=np.int64)
    return AttractorResult(
        win=lay >= 0, layer=lay, move=np.array(move, dtype=np.int64), edges_scanned=scanned
    )


@solver("attractor", [Semantics.REACHABILITY], order=10)
def attractor_solver(case: Case, options: Options) -> SolverResult:
    """Registered wrapper: view REGION, remoteness = layer, move = the strategies."""
    g = require_reference(case, options, Semantics.REACHABILITY, linear=True)
    r, seconds = timed(lambda: attractor(g))
    return r.solver_result("attractor", seconds, {"edges_scanned": r.edges_scanned, "nodes": g.n})
