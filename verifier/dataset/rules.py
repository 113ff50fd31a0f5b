"""The games a tiered dataset can hold: moves and terminal positions computed from the codes.

A game here is a picklable object sent to the workers with every task. Tier ``K`` holds the
positions reached after ``K`` moves; every move leads from tier ``K`` to tier ``K + 1``, so a
tier is solved from its successor's answers alone (no cycles inside a tier).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.graphs import GraphTiers
from verifier.dataset.outcome import INNER
from verifier.model.semantics import Semantics

__all__ = ["INNER", "Expansion", "TierGame", "game_from_manifest", "tier_games"]


class Expansion(NamedTuple):
    """A shard's positions taken one move further."""

    outcome: NDArray[np.int8]
    """Per position: -1 a terminal lost for the mover, 0 a terminal draw, ``INNER`` else."""
    children: NDArray[np.uint64]
    """The code of every move's target (one per move, duplicates possible)."""
    parent: NDArray[np.intp]
    """The index of every move's source in the shard."""


class TierGame(Protocol):
    """What the tiered generator and solver need of a game."""

    @property
    def name(self) -> str:
        """The game's name in the manifest (``connect4``)."""
        ...

    @property
    def tiers(self) -> int:
        """Number of tiers (the last one has no moves)."""
        ...

    @property
    def semantics(self) -> Semantics:
        """The rules the tiers are solved by (the solver labels won / lost / drawn)."""
        ...

    @property
    def max_moves(self) -> int:
        """At most this many moves per position (sizes the next tier's shards)."""
        ...

    @property
    def acyclic(self) -> bool:
        """Every move leads to a later tier (no cycle anywhere): a table of labels that obeys
        the rules at every position is then the game's values (``check``)."""
        ...

    def parameters(self) -> dict[str, int]: ...

    def root(self) -> int:
        """The code of the start position (tier 0)."""
        ...

    def expand(self, codes: NDArray[np.uint64], tier: int) -> Expansion: ...

    def canonical(self, codes: NDArray[np.uint64]) -> NDArray[np.uint64]:
        """The codes under which the dataset stores these positions (itself, or the class
        representative of a game stored up to symmetry)."""
        ...

    def tier_of(self, codes: NDArray[np.uint64]) -> NDArray[np.int64]:
        """The tier each code would belong to, -1 for a code no position has (a stranger's
        table is routed by it)."""
        ...

    def position_name(self, code: int) -> str:
        """A position in the words of the game (the name the in-memory case gives it)."""
        ...

    def describe(self, label: int, remoteness: int) -> str:
        """The start position's value in the words of the game."""
        ...


def tier_games() -> dict[str, Any]:
    """The games a tiered dataset can hold, by their name in a manifest: each built-in game's
    tiered form (``verifier.games.registry.TieredForm``: its class imported when a dataset of it
    is read) and the stored graph (``GraphTiers``, no game's own)."""
    from verifier.games.registry import hook, tiered_forms

    def made(ref: str) -> Any:
        return lambda **parameters: hook(ref)(**parameters)

    games = {f.manifest: made(f.rules) for _, f in tiered_forms() if f.rules is not None}
    return {**games, GraphTiers.name: GraphTiers}


def game_from_manifest(game: str, parameters: dict[str, int], where: str) -> TierGame:
    """The game a manifest names (``DatasetError`` naming ``where`` if it is unknown)."""
    from verifier.dataset.errors import DatasetError

    games = tier_games()
    cls = games.get(game)
    if cls is None:
        raise DatasetError(f"{where}: $.game: {game!r}: tiered datasets hold {', '.join(games)}")
    try:
        made: TierGame = cls(**parameters)
    except (TypeError, ValueError) as e:
        raise DatasetError(f"{where}: $.parameters: {parameters!r}: {e}") from None
    return made
