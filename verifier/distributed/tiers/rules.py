"""The games a tiered dataset can hold: moves and terminal positions computed from the codes.

A game here is a picklable object sent to the workers with every task. Tier ``K`` holds the
positions reached after ``K`` moves; every move leads from tier ``K`` to tier ``K + 1``, so a
tier is solved from its successor's answers alone (no cycles inside a tier).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from verifier.distributed.tiers.graphs import GraphTiers
from verifier.games.connect4 import Board
from verifier.model.semantics import Semantics

__all__ = ["ConnectFourTiers", "Expansion", "TierGame", "game_from_manifest"]

INNER = np.int8(2)
"""``Expansion.outcome`` of a position that is not terminal."""


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

    def parameters(self) -> dict[str, int]: ...

    def root(self) -> int:
        """The code of the start position (tier 0)."""
        ...

    def expand(self, codes: NDArray[np.uint64], tier: int) -> Expansion: ...

    def describe(self, label: int, remoteness: int) -> str:
        """The start position's value in the words of the game."""
        ...


@dataclass(frozen=True)
class ConnectFourTiers:
    """Connect Four (``verifier.games.connect4``): tier ``K`` = the boards with ``K`` stones.

    A position where the previous player has four in a row is a terminal lost for the mover
    (no children: play stops at a win); a full board without one is a draw. The codes are
    :meth:`Board.code`'s, the same as ``connect4.generate``'s position names decode."""

    width: int
    height: int
    name: str = "connect4"
    semantics: Semantics = Semantics.NORMAL

    def __post_init__(self) -> None:
        Board(self.width, self.height)  # ValueError on an unsupported board

    @property
    def board(self) -> Board:
        return Board(self.width, self.height)

    @property
    def tiers(self) -> int:
        return self.width * self.height + 1

    @property
    def max_moves(self) -> int:
        return self.width

    def parameters(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height}

    def root(self) -> int:
        return self.board.bottom  # no stones: a marker bit at the bottom of every column

    def expand(self, codes: NDArray[np.uint64], tier: int) -> Expansion:
        board = self.board
        cur, mask = board.decode_all(codes)
        lost = board.has_four(mask ^ cur)  # the previous player has four in a row
        outcome = np.where(lost, np.int8(-1), INNER).astype(np.int8)
        if tier == self.width * self.height:
            outcome[~lost] = 0
            none = np.zeros(0, dtype=np.uint64)
            return Expansion(outcome, none, np.zeros(0, dtype=np.intp))
        child_cur, child_mask, parent = board.moves(cur, mask, np.flatnonzero(~lost))
        del cur, mask
        return Expansion(outcome, board.code(child_cur, child_mask), parent)

    def describe(self, label: int, remoteness: int) -> str:
        if label == 0:
            return "draw (neither player can force four in a row)"
        winner = "first player (x)" if label > 0 else "second player (o)"
        return f"{winner} wins in {remoteness} plies"


GAMES: dict[str, Any] = {"connect4": ConnectFourTiers, "graph": GraphTiers}


def game_from_manifest(game: str, parameters: dict[str, int], where: str) -> TierGame:
    """The game a manifest names (``DatasetError`` naming ``where`` if it is unknown)."""
    from verifier.distributed.tiers.errors import DatasetError

    cls = GAMES.get(game)
    if cls is None:
        raise DatasetError(f"{where}: $.game: {game!r}: tiered datasets hold {', '.join(GAMES)}")
    try:
        made: TierGame = cls(**parameters)
    except (TypeError, ValueError) as e:
        raise DatasetError(f"{where}: $.parameters: {parameters!r}: {e}") from None
    return made
