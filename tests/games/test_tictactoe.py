"""Tic-tac-toe: rules on hand-made boards, the known counts, and an independent minimax."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from gamesolve import retrograde

from verifier.games import tictactoe
from verifier.games.summary import summarize
from verifier.model import Semantics


@pytest.fixture(scope="module")
def full():  # type: ignore[no-untyped-def]
    return tictactoe.generate()


@pytest.fixture(scope="module")
def sym():  # type: ignore[no-untyped-def]
    return tictactoe.generate(symmetry=True)


def test_rules_on_hand_made_boards() -> None:
    assert tictactoe.winner("xxxoo....") == "x"
    assert tictactoe.winner("o.x.oxx.o") == "o"  # main diagonal
    assert tictactoe.winner("xo.xo...x") is None
    assert tictactoe.moves("xxxoo....") == []  # play stops at a win
    assert tictactoe.moves("x.o......") == [
        "xxo......",
        "x.ox.....",
        "x.o.x....",
        "x.o..x...",
        "x.o...x..",
        "x.o....x.",
        "x.o.....x",
    ]
    assert tictactoe.moves("x........") == [
        "xo.......",
        "x.o......",
        "x..o.....",
        "x...o....",
        "x....o...",
        "x.....o..",
        "x......o.",
        "x.......o",
    ]
    full_draw = "xoxxoooxx"
    assert tictactoe.is_terminal(full_draw) and tictactoe.terminal_value(full_draw) == 0.0
    assert tictactoe.terminal_value("xxxoo....") == -1.0
    assert tictactoe.canonical("..x......") == tictactoe.canonical("x........")
    assert tictactoe.canonical("....x....") == "....x...."


def test_known_counts(full, sym) -> None:  # type: ignore[no-untyped-def]
    g = full.graph
    assert g.semantics is Semantics.NORMAL
    assert (g.n, g.m) == (5478, 16167)
    assert g.name(full.root) == "........."
    assert int(g.is_terminal.sum()) == 958  # 942 won by somebody + 16 full boards drawn
    assert int((g.value == -1).sum()) == 942 and int((g.value == 0).sum()) == 16
    assert sym.graph.n == 765  # the essentially different positions
    assert int(tictactoe.orbit_sizes(sym.graph.names).sum()) == 5478


@cache
def negamax(board: str) -> int:
    """Independent oracle: +1 / -1 / 0 for the player to move, straight from the rules."""
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    if any(board[a] != "." and board[a] == board[b] == board[c] for a, b, c in lines):
        return -1  # the player who just moved has a line
    empty = [i for i, ch in enumerate(board) if ch == "."]
    if not empty:
        return 0
    me = "x" if board.count("x") == board.count("o") else "o"
    return max(-negamax(board[:i] + me + board[i + 1 :]) for i in empty)


def test_labels_agree_with_independent_minimax(full, sym) -> None:  # type: ignore[no-untyped-def]
    for case in (full, sym):
        labels, rem = retrograde(case.graph)
        oracle = np.array([negamax(b) for b in case.graph.names])
        assert np.array_equal(labels, oracle)
    labels, rem = retrograde(full.graph)
    s = summarize(full, labels, rem)
    assert s == {
        "positions": 5478,
        "won": 2836,
        "lost": 1574,
        "drawn": 1068,
        "max_remoteness": 5,
        "longest_win": 5,
        "root_value": "draw",
        "root_remoteness": -1,
    }
    ls, rs = retrograde(sym.graph)
    ss = summarize(sym, ls, rs)
    assert ss["symmetry"] == {
        "classes": 765,
        "positions": 5478,
        "won": 2836,
        "lost": 1574,
        "drawn": 1068,
    }
    assert (ss["positions"], ss["won"], ss["lost"], ss["drawn"]) == (765, 390, 224, 151)


def test_remoteness_by_hand(full) -> None:  # type: ignore[no-untyped-def]
    labels, rem = retrograde(full.graph)
    g = full.graph
    # x to move with two open lines x.x: wins in one ply
    x = g.id_of("x.xoo....")
    assert (labels[x], rem[x]) == (1, 1)
    # o to move facing a fork: x threatens cells 2 (top row) and 6 (left column)
    y = g.id_of("xx.xo...o")
    assert labels[y] == -1 and rem[y] == 2
