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
from verifier.distributed.tiers.outcome import INNER
from verifier.games.connect4 import Board
from verifier.model.semantics import Semantics

__all__ = ["INNER", "ConnectFourTiers", "Expansion", "TierGame", "game_from_manifest"]


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


@dataclass(frozen=True)
class ConnectFourTiers:
    """Connect Four (``verifier.games.connect4``): tier ``K`` = the boards with ``K`` stones.

    A position where the previous player has four in a row is a terminal lost for the mover
    (no children: play stops at a win); a full board without one is a draw. The codes are
    :meth:`Board.code`'s, the same as ``connect4.generate``'s position names decode."""

    width: int
    height: int
    symmetric: bool = False
    """Positions up to the left-right mirror: a class is stored under the smaller of its two
    codes (as ``connect4.generate(symmetry=True)`` names it), every move's target too."""
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
    def acyclic(self) -> bool:
        return True  # every move adds a stone

    @property
    def max_moves(self) -> int:
        return self.width

    def parameters(self) -> dict[str, int]:
        plain = {"width": self.width, "height": self.height}
        return {**plain, "symmetric": 1} if self.symmetric else plain

    def canonical(self, codes: NDArray[np.uint64]) -> NDArray[np.uint64]:
        """Each code's class representative: the smaller of it and its mirror image (a code's
        columns are independent bit groups, so mirroring the code mirrors the board)."""
        if not self.symmetric:
            return codes
        return np.minimum(codes, self.board.mirror(codes))

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
        return Expansion(outcome, self.canonical(board.code(child_cur, child_mask)), parent)

    def tier_of(self, codes: NDArray[np.uint64]) -> NDArray[np.int64]:
        """Stones on the board; -1 for a code with bits above the board or a column without
        its marker bit (no board has that code)."""
        board = self.board
        column = np.uint64((1 << board.col) - 1)
        stones = np.zeros(len(codes), dtype=np.int64)
        valid = (codes >> np.uint64(self.width * board.col)) == 0
        for c in range(self.width):
            part = (codes >> np.uint64(c * board.col)) & column
            valid &= part != 0
            # the marker is the highest set bit: stones in the column = its index
            stones += np.floor(np.log2(np.maximum(part, 1).astype(np.float64))).astype(np.int64)
        return np.where(valid, stones, -1)

    def position_name(self, code: int) -> str:
        return f"{self.board.name(code)} (code {code})"

    def describe(self, label: int, remoteness: int) -> str:
        if label == 0:
            return "draw (neither player can force four in a row)"
        winner = "first player (x)" if label > 0 else "second player (o)"
        return f"{winner} wins in {remoteness} plies"


def _chess(**parameters: Any) -> Any:
    """A chess endgame stored as a graph (``chess_tiers``, imported when one is read)."""
    from verifier.distributed.tiers.chess_tiers import ChessTiers

    return ChessTiers(**parameters)


GAMES: dict[str, Any] = {"connect4": ConnectFourTiers, "graph": GraphTiers, "chess": _chess}


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
