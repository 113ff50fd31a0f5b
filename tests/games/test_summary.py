"""The summary block: counts, longest win, root value, counts over symmetry classes."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.games import lgame, tictactoe
from verifier.games.summary import class_sizes, summarize
from verifier.model import Case, GameGraph, Semantics


def test_hand_made_graph() -> None:
    # a -> b -> c (c lost for its mover), d draw terminal, e <-> f a cycle (unknown)
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": [], "d": [], "e": ["f"], "f": ["e"]},
        semantics=Semantics.NORMAL,
        value={"d": 0.0},
    )
    labels = [-1, 1, -1, 0, 0, 0]
    rem = [2, 1, 0, -1, -1, -1]
    s = summarize(Case(graph=g, id="hand", root=0), labels, rem)
    assert s == {
        "positions": 6,
        "won": 1,
        "lost": 2,
        "drawn": 3,
        "max_remoteness": 2,
        "longest_win": 1,  # the 2-ply game is a loss: not a win
        "root_value": "lost",
        "root_remoteness": 2,
    }
    s = summarize(Case(graph=g, id="hand"), labels, rem)
    assert s["root_value"] is None and "symmetry" not in s
    with pytest.raises(ValueError, match="one entry per node"):
        summarize(Case(graph=g, id="hand"), labels[:3], rem)


def test_class_sizes() -> None:
    sym = tictactoe.generate(symmetry=True)
    sizes = class_sizes(sym)
    assert sizes is not None and int(sizes.sum()) == 5478
    assert sizes[sym.graph.id_of(".........")] == 1
    assert sizes[sym.graph.id_of("....x....")] == 1
    assert sizes[sym.graph.id_of(tictactoe.canonical("x........"))] == 4
    assert sizes[sym.graph.id_of(tictactoe.canonical("xo......."))] == 8
    assert class_sizes(tictactoe.generate()) is None
    # the half turn maps the L-game start onto itself with the two Ls exchanged, which is
    # another position (the mover's L is elsewhere): no symmetry fixes it
    assert lgame.orbit_sizes([lgame.board_name(lgame.START)]).tolist() == [8]
    # (an L has no symmetry of its own, so every L-game class stands for 8 positions)
    assert lgame.orbit_sizes(["XXX./X..n/...Y/nYYY"]).tolist() == [8]
    s = summarize(sym, np.zeros(sym.graph.n), np.full(sym.graph.n, -1))
    assert s["symmetry"] == {"classes": 765, "positions": 5478, "won": 0, "lost": 0, "drawn": 5478}
