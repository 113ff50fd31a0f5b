"""The L-game: pieces and moves checked against an independent enumeration, and the counts."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from gamesolve import retrograde

from verifier.games import lgame
from verifier.games.summary import summarize


def independent_ls() -> set[frozenset[int]]:
    """Every L on the 4 x 4 board, found among all 4-cell sets: a bounding box of 3 x 2 (or
    2 x 3) holding a full line of three along its long side plus one cell at an end of it."""
    found = set()
    for cells in combinations(range(16), 4):
        rc = [divmod(x, 4) for x in cells]
        rows = {r for r, _ in rc}
        cols = {c for _, c in rc}
        for long_side, short_side, key in ((rows, cols, 1), (cols, rows, 0)):
            if max(long_side) - min(long_side) != 2 or max(short_side) - min(short_side) != 1:
                continue
            for line in short_side:
                bar = [p for p in rc if p[key] == line]
                foot = [p for p in rc if p[key] != line]
                ends = (min(long_side), max(long_side))
                if len(bar) == 3 and len(foot) == 1 and foot[0][1 - key] in ends:
                    found.add(frozenset(cells))
    return found


LS = independent_ls()


@pytest.fixture(scope="module")
def full():  # type: ignore[no-untyped-def]
    case = lgame.generate()
    return case, *retrograde(case.graph)


@pytest.fixture(scope="module")
def sym():  # type: ignore[no-untyped-def]
    case = lgame.generate(symmetry=True)
    return case, *retrograde(case.graph)


def cells(mask: int) -> frozenset[int]:
    return frozenset(i for i in range(16) if mask >> i & 1)


def test_pieces() -> None:
    assert len(LS) == 48
    assert {cells(m) for m in lgame.PLACEMENTS} == LS


def test_start_position_moves_by_hand() -> None:
    # nXX. / .YX. / .YX. / .YYn: the mover's L can go to 5 other placements (worked out on
    # paper), each followed by no neutral move or one of the 2 neutrals to one of 6 empty cells.
    assert lgame.board_name(lgame.START) == "nXX./.YX./.YX./.YYn"
    succ = lgame.moves(lgame.START)
    assert len(set(succ)) == 5 * (1 + 2 * 6)
    new_ls = {cells(lgame.PLACEMENTS[p[1]]) for p in succ}
    assert new_ls == {
        frozenset({2, 6, 10, 3}),
        frozenset({2, 6, 10, 11}),
        frozenset({3, 7, 11, 2}),
        frozenset({3, 7, 11, 10}),
        frozenset({1, 2, 3, 7}),
    }
    # the successor is seen from the other player: its L (Y before) is now X
    assert all(p[0] == lgame.START[1] for p in succ)
    assert lgame.parse_name("nXX./.YX./.YX./.YYn") == lgame.START


def test_a_position_without_moves_and_one_with_a_single_placement() -> None:
    # XXX. / XYYY / nY.. / .n..: the only three-in-a-row lines left for X are the top row (its
    # feet are X's own cell 4, or Y) and nothing fits in the lower right: X cannot move.
    assert lgame.moves(lgame.parse_name("XXX./XYYY/nY../.n..")) == []
    # with the neutral on cell 12 instead of 13, X has exactly one L: cells 11, 13, 14, 15
    succ = set(lgame.moves(lgame.parse_name("XXX./XYYY/nY../n...")))
    assert {cells(lgame.PLACEMENTS[p[1]]) for p in succ} == {frozenset({11, 13, 14, 15})}
    assert len(succ) == 1 + 2 * 6


def test_counts_and_terminals(full, sym) -> None:  # type: ignore[no-untyped-def]
    case, labels, rem = full
    g = case.graph
    assert g.n == 18368 == len(list(lgame.all_positions()))
    # independent terminal test: the mover's L has no other L to go to
    for i in np.flatnonzero(g.is_terminal).tolist() + list(range(0, g.n, 97)):
        mover, other, a, b = lgame.parse_name(g.name(i))
        blocked = cells(lgame.PLACEMENTS[other]) | {a, b}
        here = cells(lgame.PLACEMENTS[mover])
        can_move = any(not (piece & blocked) and piece != here for piece in LS)
        assert can_move != bool(g.is_terminal[i])
    assert int(g.is_terminal.sum()) == 120
    s = summarize(case, labels, rem)
    assert s == {
        "positions": 18368,
        "won": 8048,
        "lost": 232,
        "drawn": 10088,
        "max_remoteness": 9,
        "longest_win": 9,
        "root_value": "draw",
        "root_remoteness": -1,
    }
    scase, slabels, srem = sym
    ss = summarize(scase, slabels, srem)
    # the literature's numbers: 2296 positions up to symmetry, 29 of them lost for the mover
    # (15 of those because the mover's L cannot move at all)
    assert (ss["positions"], ss["won"], ss["lost"], ss["drawn"]) == (2296, 1006, 29, 1261)
    assert int(scase.graph.is_terminal.sum()) == 15
    assert ss["symmetry"] == {k: s[k] for k in ("positions", "won", "lost", "drawn")} | {
        "classes": 2296
    }


def test_symmetric_graph_agrees_with_full_graph(full, sym) -> None:  # type: ignore[no-untyped-def]
    case, labels, rem = full
    scase, slabels, srem = sym
    for i in range(0, case.graph.n, 7):
        j = scase.graph.id_of(
            lgame.board_name(lgame.canonical(lgame.parse_name(case.graph.name(i))))
        )
        assert (labels[i], rem[i]) == (slabels[j], srem[j])
