"""Connect Four as a tiered dataset (``verifier generate connect4 -o DIR --engine dask``): its
rules on the codes, tier ``K`` = the boards with ``K`` stones (the class the game's declaration
names, ``verifier.games.connect4.GAME.tiers``; its generator: ``connect4_generate``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.outcome import INNER
from verifier.dataset.rules import Expansion
from verifier.games.connect4 import Board, stone_count
from verifier.model.semantics import Semantics

if TYPE_CHECKING:
    from verifier.games._board import LazyNames

__all__ = ["ConnectFourTiers", "position_names"]


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
        stones, ok = self.board.stones_below_markers(codes)
        return np.where(ok, stone_count(stones), -1)

    def position_name(self, code: int) -> str:
        return f"{self.board.name(code)} (code {code})"

    def describe(self, label: int, remoteness: int) -> str:
        """The start's value, the start named first (as a stored graph's and chess's are)."""
        if label == 0:
            return "the empty board: draw (neither player can force four in a row)"
        winner = "first player (x)" if label > 0 else "second player (o)"
        return f"the empty board: {winner} wins in {remoteness} plies"


def position_names(game: ConnectFourTiers, codes: NDArray[np.uint64], whole: bool) -> LazyNames:
    """Boards named from their codes as ``connect4.generate`` names them
    (``TieredForm.names``); ``whole``: every position of the dataset, with the codec."""
    from verifier.games._board import LazyNames

    board = game.board
    if not whole:
        return LazyNames(codes, board.name, board.names)
    codec = f"connect4:{board.width}x{board.height}" + (":symmetric" if game.symmetric else "")
    return LazyNames(codes, board.name, board.names, codec=codec)
