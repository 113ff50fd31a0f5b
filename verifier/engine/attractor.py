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
from numpy.typing import NDArray

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

__all__ = ["EngineAttractor", "attacker_mask", "attractor_move_keys", "attractor_numpy"]


@dataclass(frozen=True, eq=False)
class EngineAttractor(AttractorResult):
    """Player 0's winning region W with layers and both players' strategies, and the rounds."""

    rounds: int
    scalar_rounds: int


def attacker_mask(g: GameGraph) -> NDArray[np.bool_]:
    """Player 0's nodes of a ``reachability`` graph; ``ValueError`` names the first node with
    moves that is neither a target nor owned by player 0 or 1."""
    owner = g.owner
    bad = ~g.is_terminal & ~g.target & (owner != PLAYER0) & (owner != PLAYER1)
    if bad.any():
        x = int(np.flatnonzero(bad)[0])
        raise ValueError(f"node {g.name(x)!r} has moves but no owner 0 or 1")
    out: NDArray[np.bool_] = owner == PLAYER0
    return out


def attractor_move_keys(
    layer: NDArray[np.int64], attacker: NDArray[np.bool_], target: NDArray[np.bool_]
) -> NDArray[np.int64]:
    """``want`` for ``first_match_per_source`` with ``code = layer``: the strategies.

    Player 0 in W \\ G moves one layer down (its least-layer successor); player 1 outside W
    stays outside (layer -1); every other node wants -2, which no layer takes (no move).
    """
    want = np.full(len(layer), -2, dtype=np.int64)
    p0 = attacker & (layer >= 0) & ~target
    want[p0] = layer[p0] - 1
    want[~attacker & (layer < 0) & ~target] = -1
    return want


def attractor_numpy(g: GameGraph) -> EngineAttractor:
    """Solve a ``reachability`` game: player 0's attractor of the targets, O(n + m) vectorized.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["a"], "c": []},
    ...     semantics=Semantics.REACHABILITY, owner={"a": 0, "b": 1}, target=["c"])
    >>> r = attractor_numpy(g)
    >>> r.win.tolist(), r.layer.tolist(), r.move.tolist()
    ([True, True, True], [1, 2, 0], [2, -1, -1])
    """
    g.expect_semantics(Semantics.REACHABILITY)
    attacker = attacker_mask(g)
    # player 0: one successor in W suffices; player 1: all its moves must lead into W
    prop = attractor_propagation(predecessor_csr(g), g.out_degree, attacker)
    prop.run(np.flatnonzero(g.target), IN, keep=False)  # W_0 = G
    layer = prop.layer.astype(np.int64)
    win = layer >= 0
    move = first_match_per_source(
        successor_csr(g), attractor_move_keys(layer, attacker, g.target), layer
    )
    return EngineAttractor(
        win=win,
        layer=layer,
        move=move,
        rounds=prop.rounds,
        scalar_rounds=prop.scalar_rounds,
        edges_scanned=prop.edges,
    )
