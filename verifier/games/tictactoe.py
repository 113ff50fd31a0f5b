"""Tic-tac-toe: every position reachable from the empty board, as a ``normal`` game.

A position is the board as a 9-character string, rows top to bottom, ``x`` / ``o`` / ``.``
(e.g. ``"x.o......"``). X moves first, so the player to move is X when both have played as
often, else O. Play stops at a win: a position where the previous player has three in a row is
a terminal lost for the mover (the default label); a full board without a line is a terminal
labelled draw (0).

With ``symmetry=True`` positions are identified up to the 8 symmetries of the square; a class
is named by its least board string (in the order ``"." < "o" < "x"``).

Examples
--------
>>> case = generate()
>>> case.graph.n, case.graph.name(case.root)
(5478, '.........')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import DRAW, explore, normal_case, square_symmetries
from verifier.games.protocol import Game
from verifier.games.registry import SYMMETRY, BuiltinGame, Example
from verifier.model import Case

__all__ = [
    "GAME",
    "LINES",
    "SYMMETRIES",
    "TicTacToe",
    "canonical",
    "generate",
    "is_terminal",
    "moves",
    "orbit_sizes",
    "terminal_value",
    "winner",
]

EMPTY = "." * 9

LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
"""The eight lines of three cells (cells numbered 0..8 row by row)."""


SYMMETRIES: tuple[tuple[int, ...], ...] = square_symmetries(3)
"""The 8 symmetries of the square as cell permutations: image[i] = board[perm[i]]."""


def winner(board: str) -> str | None:
    """``"x"`` or ``"o"`` if that player has three in a row, else ``None``."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def to_move(board: str) -> str:
    """The player to move: X unless X has played more often."""
    return "o" if board.count("x") > board.count("o") else "x"


def is_terminal(board: str) -> bool:
    """Play has stopped: somebody has three in a row, or the board is full."""
    return winner(board) is not None or "." not in board


def terminal_value(board: str) -> float:
    """Label of a terminal from the mover's view: lost (-1) after a win, draw (0) when full."""
    return -1.0 if winner(board) is not None else DRAW


def moves(board: str) -> list[str]:
    """The positions the player to move can reach (none once play has stopped)."""
    if is_terminal(board):
        return []
    p = to_move(board)
    return [board[:i] + p + board[i + 1 :] for i in range(9) if board[i] == "."]


def canonical(board: str) -> str:
    """The least image of ``board`` under the 8 symmetries (``.`` < ``o`` < ``x``)."""
    return min("".join(board[i] for i in perm) for perm in SYMMETRIES)


def orbit_sizes(names: Sequence[str]) -> NDArray[np.int64]:
    """How many boards each named class stands for (8 divided by its stabiliser's order)."""
    return np.array(
        [len({"".join(b[i] for i in perm) for perm in SYMMETRIES}) for b in names],
        dtype=np.int64,
    )


def generate(symmetry: bool = False) -> Case:
    """The tic-tac-toe game graph from the empty board (``symmetry``: up to the 8 symmetries)."""
    if symmetry:
        boards, src, dst = explore([EMPTY], lambda b: [canonical(y) for y in moves(b)])
    else:
        boards, src, dst = explore([EMPTY], moves)
    value = [terminal_value(b) if is_terminal(b) else np.nan for b in boards]
    return normal_case(
        boards,
        src,
        dst,
        value,
        case_id="tictactoe-symmetric" if symmetry else "tictactoe",
        source="verifier.games.tictactoe" + (" (symmetry=True)" if symmetry else ""),
        root=0,
        description="Tic-tac-toe, every position reachable from the empty board; "
        "board strings row by row, x moves first"
        + ("; positions up to the 8 symmetries of the square" if symmetry else ""),
    )


class TicTacToe(Game):
    """Tic-tac-toe on the game protocol (``verifier generate
    verifier.games.tictactoe:TicTacToe --param symmetry=1``): the same graph as
    :func:`generate`, which stays the fast path (``tests/games/test_protocol_builtin.py``)."""

    semantics = "normal"

    def __init__(self, symmetry: int = 0) -> None:
        self.symmetry = bool(symmetry)

    def initial(self) -> str:
        return EMPTY

    def moves(self, board: str) -> list[str]:
        return moves(board)

    def outcome(self, board: str) -> str | None:
        if not is_terminal(board):
            return None
        return "lost" if terminal_value(board) < 0 else "draw"

    def canonical(self, board: str) -> str:
        return canonical(board) if self.symmetry else board


GAME = BuiltinGame(
    "tictactoe",
    "tic-tac-toe, every position reachable from the empty board",
    generate,
    options=(SYMMETRY,),
    protocol=TicTacToe,
    class_sizes=lambda case: (
        orbit_sizes(case.graph.names) if case.id == "tictactoe-symmetric" else None
    ),
    examples=(
        Example("tictactoe", "tictactoe", {"symmetry": False}, corpus="readable"),
        Example("tictactoe-symmetric", "tictactoe", {"symmetry": True}, corpus="readable"),
    ),
    order=10,
)
