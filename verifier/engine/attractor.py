"""The attractor of a reachability game (ICO notes) on the numpy engine, one layer at a time.

``W_0 = G`` is the first frontier. A player-0 predecessor of the frontier joins at once (OR: one
move into W suffices); a player-1 predecessor counts down the moves not yet known to lead into W
and joins when none is left (AND: all moves must). Both join the next layer, so ``W_i`` is
exactly the frontier of layer ``i`` together with the earlier ones. A non-target node without
moves never joins: it is never a predecessor. Same region, layers and strategies as the
reference ``verifier.solvers.attractor``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verifier.engine.frontier import (
    IN,
    attractor_propagation,
    first_match_per_source,
    predecessor_csr,
    successor_csr,
)
from verifier.model.graph import GameGraph
from verifier.model.results import AttractorResult
from verifier.model.semantics import PLAYER0, PLAYER1, Semantics

__all__ = ["EngineAttractor", "attractor_numpy"]


@dataclass(frozen=True, eq=False)
class EngineAttractor(AttractorResult):
    """Player 0's winning region W with layers and both players' strategies, and the rounds."""

    rounds: int
    scalar_rounds: int


def attractor_numpy(g: GameGraph) -> EngineAttractor:
    """Solve a ``reachability`` game: player 0's attractor of the targets, O(n + m) vectorized.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["a"], "c": []},
    ...     semantics=Semantics.REACHABILITY, owner={"a": 0, "b": 1}, target=["c"])
    >>> r = attractor_numpy(g)
    >>> r.win.tolist(), r.layer.tolist(), r.move.tolist()
    ([True, True, True], [1, 2, 0], [2, -1, -1])
    """
    g.expect_semantics(Semantics.REACHABILITY)
    owner, target = g.owner, g.target
    bad = ~g.is_terminal & ~target & (owner != PLAYER0) & (owner != PLAYER1)
    if bad.any():
        x = int(np.flatnonzero(bad)[0])
        raise ValueError(f"node {g.name(x)!r} has moves but no owner 0 or 1")
    attacker = owner == PLAYER0
    # player 0: one successor in W suffices; player 1: all its moves must lead into W
    prop = attractor_propagation(predecessor_csr(g), g.out_degree, attacker)
    prop.run(np.flatnonzero(target), IN, keep=False)  # W_0 = G
    layer = prop.layer.astype(np.int64)
    win = layer >= 0
    # strategies: player 0 in W \ G lowers the layer by one; player 1 outside W stays outside
    want = np.full(g.n, -2, dtype=np.int64)  # -2: no layer has it, no move
    p0 = attacker & win & ~target
    want[p0] = layer[p0] - 1
    want[~attacker & ~win & ~target] = -1
    move = first_match_per_source(successor_csr(g), want, layer)
    return EngineAttractor(
        win=win,
        layer=layer,
        move=move,
        rounds=prop.rounds,
        scalar_rounds=prop.scalar_rounds,
        edges_scanned=prop.edges,
    )
