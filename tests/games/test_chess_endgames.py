"""KQK and KRK: the vectorized generator against a plain square-by-square implementation on
small boards, against python-chess on 8x8, hand-made positions, and the longest mates."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gamesolve import retrograde

from verifier.games import chess_endgames as ce
from verifier.games._board import LazyNames
from verifier.games.summary import summarize
from verifier.model import GameGraph

Sq = tuple[int, int]  # (file, rank)


# ---------------------------------------------------------------- an independent implementation
def on(s: Sq, n: int) -> bool:
    return 0 <= s[0] < n and 0 <= s[1] < n


def near(a: Sq, b: Sq) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def attacks(piece: str, p: Sq, t: Sq, blockers: set[Sq]) -> bool:
    """A queen or rook on p attacks t (p != t), walking square by square, men in ``blockers``
    stop it."""
    df, dr = t[0] - p[0], t[1] - p[1]
    straight = df == 0 or dr == 0
    if not (straight or (piece == "Q" and abs(df) == abs(dr))):
        return False
    steps = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return all((p[0] + k * sf, p[1] + k * sr) not in blockers for k in range(1, steps))


def scalar_name(piece: str, side: int, wk: Sq, wp: Sq, bk: Sq) -> str:
    def sq(s: Sq) -> str:
        return "abcdefgh"[s[0]] + str(s[1] + 1)

    return f"K{sq(wk)} {piece}{sq(wp)} k{sq(bk)} {'wb'[side]}"


def scalar_graph(piece: str, n: int) -> tuple[dict[str, float], set[tuple[str, str]]]:
    """``(terminal labels by name, edges by name)`` of the whole endgame, square by square."""
    squares = [(f, r) for f in range(n) for r in range(n)]
    kings = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    labels: dict[str, float] = {"KK": 0.0}
    edges: set[tuple[str, str]] = set()
    for side in (0, 1):
        for wk in squares:
            for wp in squares:
                for bk in squares:
                    if len({wk, wp, bk}) < 3 or near(wk, bk):
                        continue
                    if side == 0 and attacks(piece, wp, bk, {wk}):
                        continue  # Black, not to move, would be in check
                    here = scalar_name(piece, side, wk, wp, bk)
                    out = []
                    if side == 0:
                        for df, dr in kings:
                            t = (wk[0] + df, wk[1] + dr)
                            if on(t, n) and t != wp and not near(t, bk):
                                out.append(scalar_name(piece, 1, t, wp, bk))
                        for t in squares:
                            if t not in (wp, wk, bk) and attacks(piece, wp, t, {wk, bk}):
                                out.append(scalar_name(piece, 1, wk, t, bk))
                    else:
                        for df, dr in kings:
                            t = (bk[0] + df, bk[1] + dr)
                            if not on(t, n) or near(t, wk):
                                continue
                            if t == wp:
                                out.append("KK")
                            elif not attacks(piece, wp, t, {wk}):
                                out.append(scalar_name(piece, 0, wk, wp, t))
                    edges.update((here, y) for y in out)
                    if not out:
                        checked = side == 1 and attacks(piece, wp, bk, {wk})
                        labels[here] = -1.0 if checked else 0.0
    return labels, edges


def edge_names(g: GameGraph) -> set[tuple[str, str]]:
    names = g.names
    return {
        (names[s], names[d]) for s, d in zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True)
    }


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize("endgame", ["KQK", "KRK"])
@pytest.mark.parametrize("n", [3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_graph_agrees_with_scalar_rules(endgame: str, n: int) -> None:
    g = ce.generate(endgame, n).graph
    labels, edges = scalar_graph(ce.PIECES[endgame], n)
    assert edge_names(g) == edges
    nodes = {x for e in edges for x in e} | set(labels)
    assert set(g.names) == nodes and g.n == len(nodes)
    for i in np.flatnonzero(g.is_terminal).tolist():
        assert g.value[i] == labels[g.name(i)]


def test_hand_made_positions_3x3() -> None:
    case = ce.generate("KQK", 3)
    g = case.graph
    labels, rem = retrograde(g)

    def at(name: str) -> tuple[int, int, list[str]]:
        i = g.id_of(name)
        return int(labels[i]), int(rem[i]), sorted(g.name(j) for j in g.successors(i).tolist())

    # queen checks down the c-file; b3, b2 are next to the white king, c2 is on the file
    assert at("Ka3 Qc1 kc3 b") == (-1, 0, [])
    # no check, but every square is guarded: stalemate, a terminal draw
    i = g.id_of("Ka1 Qb3 kc1 b")
    assert g.is_terminal[i] and g.value[i] == 0.0 and labels[i] == 0
    # the unguarded queen next to the king: the only move takes it (KK, a draw)
    assert at("Ka1 Qc2 kc3 b") == (0, -1, ["KK"])
    # the guarded queen: mate
    assert at("Ka1 Qb2 kc3 b") == (-1, 0, [])
    # mate in one
    lab, r, succ = at("Ka3 Qb1 kc3 w")
    assert (lab, r) == (1, 1) and "Ka3 Qc1 kc3 b" in succ
    # illegal positions are not nodes: kings adjacent, Black in check with White to move
    assert not g.has_node("Ka1 Qc3 kb2 b")
    assert not g.has_node("Ka3 Qc1 kc3 w")
    code = ce.parse_name("KQK", 3, "Ka3 Qc1 kc3 b")
    assert ce.position_name("KQK", 3, code) == "Ka3 Qc1 kc3 b"


# Longest mate in plies (White to move, Black to move) for n = 3..8, from the graph's remoteness.
LONGEST = {
    "KQK": {3: (1, 2), 4: (7, 8), 5: (11, 12), 6: (13, 14), 7: (15, 16), 8: (19, 20)},
    "KRK": {3: (5, 6), 4: (13, 14), 5: (19, 20), 6: (23, 24), 7: (27, 28), 8: (31, 32)},
}


def longest(endgame: str, n: int) -> tuple[tuple[int, int], dict[str, object]]:
    case = ce.generate(endgame, n)
    labels, rem = retrograde(case.graph)
    black = np.array([x.endswith(" b") for x in case.graph.names])
    white = ~black
    white[-1] = False  # KK
    # White never loses, Black never wins
    assert not (labels[white] < 0).any() and not (labels[black] > 0).any()
    lw = int(rem[white & (labels > 0)].max())
    lb = int(rem[black & (labels < 0)].max())
    return (lw, lb), summarize(case, labels, rem)


@pytest.mark.parametrize("endgame", ["KQK", "KRK"])
@pytest.mark.parametrize(
    "n",
    [3, 4, 5, 6, pytest.param(7, marks=pytest.mark.slow), pytest.param(8, marks=pytest.mark.slow)],
)
def test_longest_mate(endgame: str, n: int) -> None:
    plies, summary = longest(endgame, n)
    assert plies == LONGEST[endgame][n]
    assert summary["max_remoteness"] == plies[1]
    assert summary["root_value"] is None


@pytest.mark.slow
def test_8x8_counts() -> None:
    # KQK: mate in 10 at most, KRK: mate in 16 (the classical results on the 8x8 board)
    assert ce.generate("KQK", 8).graph.n == 368453
    assert ce.generate("KRK", 8).graph.n == 399113


def test_8x8_moves_agree_with_python_chess() -> None:
    chess = pytest.importorskip("chess")
    rng = random.Random(6)
    for endgame in ("KQK", "KRK"):
        case = ce.generate(endgame, 8)
        g = case.graph
        piece = chess.QUEEN if endgame == "KQK" else chess.ROOK
        letter = ce.PIECES[endgame]
        assert isinstance(g.names, LazyNames)
        codes = g.names.codes
        for _ in range(150):
            code = rng.randrange(2 * 64**3)
            rest, bk = divmod(code, 64)
            rest, wp = divmod(rest, 64)
            side, wk = divmod(rest, 64)
            if len({wk, wp, bk}) < 3:
                continue
            board = chess.Board(None)
            board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(wp, chess.Piece(piece, chess.WHITE))
            board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
            board.turn = chess.WHITE if side == 0 else chess.BLACK
            name = ce.position_name(endgame, 8, code)
            i = int(np.searchsorted(codes, code))
            assert board.is_valid() == (codes[i] == code), name
            if not board.is_valid():
                continue
            assert g.name(i) == name
            expected = set()
            for mv in board.legal_moves:
                if mv.to_square == wp:
                    expected.add("KK")
                    continue
                after = board.copy()
                after.push(mv)
                sq = chess.square_name
                w = after.king(chess.WHITE)
                p = next(iter(after.pieces(piece, chess.WHITE)))
                b = after.king(chess.BLACK)
                assert w is not None and b is not None
                expected.add(f"K{sq(w)} {letter}{sq(p)} k{sq(b)} {'wb'[1 - side]}")
            assert {g.name(j) for j in g.successors(i).tolist()} == expected, name
            if not expected:
                assert g.value[i] == (-1.0 if board.is_checkmate() else 0.0)
                assert board.is_checkmate() or board.is_stalemate()


def test_orbit_sizes_by_hand() -> None:
    # on the a1-c3 diagonal: only the reflection in that diagonal fixes it
    assert ce.orbit_sizes("KQK", 3, ["Ka1 Qb2 kc3 b", "Ka3 Qc1 kc3 b", "KK"]).tolist() == [4, 8, 1]
    # kings and rook on the middle file of a 5x5 board: fixed by the left-right mirror
    assert ce.orbit_sizes("KRK", 5, ["Kc1 Rc3 kc5 w"]).tolist() == [4]


@pytest.mark.parametrize("endgame", ["KQK", "KRK"])
@pytest.mark.parametrize("n", [3, 4, 5, pytest.param(8, marks=pytest.mark.slow)])
def test_symmetric_graph_weighs_up_to_the_full_graph(endgame: str, n: int) -> None:
    full = ce.generate(endgame, n)
    sym = ce.generate(endgame, n, symmetry=True)
    s_full = summarize(full, *retrograde(full.graph))
    labels, rem = retrograde(sym.graph)
    s_sym = summarize(sym, labels, rem)
    assert s_sym["symmetry"] == {
        "classes": sym.graph.n,
        **{k: s_full[k] for k in ("positions", "won", "lost", "drawn")},
    }
    assert s_sym["max_remoteness"] == s_full["max_remoteness"]
    # each class is a legal position with the label and remoteness of the full graph
    f_labels, f_rem = retrograde(full.graph)
    for i in range(0, sym.graph.n, max(1, sym.graph.n // 300)):
        j = full.graph.id_of(sym.graph.name(i))
        assert (labels[i], rem[i]) == (f_labels[j], f_rem[j])
