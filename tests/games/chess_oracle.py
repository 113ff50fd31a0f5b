"""python-chess as the oracle of ``verifier.games.chess``: the legal moves, mates, stalemates
and dead positions of sampled (or all) positions of a material, compared position by position.

Our side is the move generator itself (``_chess_kernels.children`` on the material's tiers,
without symmetry), named by our FENs; python-chess's side is ``chess.Board(fen)``: its legal
moves pushed and named by the first four FEN fields (en passant shown only where a capture can
use it, as ours would), ``is_checkmate``, ``is_stalemate``, ``is_insufficient_material``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from verifier.games import _chess_kernels as ck
from verifier.games import chess as vc

_PROMOTED = {None: 0, 5: ck.QUEEN, 4: ck.ROOK, 3: ck.BISHOP, 2: ck.KNIGHT}
"""python-chess's piece types (``chess.QUEEN`` = 5 ...) as ours."""


def _fen4(fen: str) -> str:
    return " ".join(fen.split()[:4])


def positions(
    material: str, count: int | None, seed: int = 0, en_passant: bool = False
) -> Iterator[tuple[int, int]]:
    """(tier 0 code, side) of ``count`` random legal positions of ``material`` (all of them,
    in code order, for ``None``); ``en_passant``: only positions where a pawn can be taken en
    passant (found among all the material's codes: they are about 1 in 170 with pawns of both
    colours)."""
    t = vc.tiers(material, False)
    k, men = int(t.k[0]), t.men[0]
    sq = np.empty(ck.SLOTS, np.int64)
    if count is None or en_passant:
        codes = np.flatnonzero(ck.tier_positions(k, men, 1))
        if en_passant:
            codes = codes[codes >= 2 * 64**k]  # the en-passant file is above the side
        if count is not None and count < len(codes):
            codes = np.sort(np.random.default_rng(seed).choice(codes, count, replace=False))
        for code in codes.tolist():
            yield code, int(ck.decode(code, k, sq))
        return
    rng = np.random.default_rng(seed)
    found = 0
    while found < count:
        for code in rng.integers(0, ck.code_range(k, men), size=4 * count).tolist():
            side = ck.decode(code, k, sq)
            if ck.legal(side, k, men, sq):
                yield code, side
                found += 1
                if found == count:
                    return


def ours(material: str, code: int) -> tuple[str, set[str], set[tuple[int, int, int]], bool, bool]:
    """Our FEN of a position, its successors' FENs, its moves (from, to, promoted piece type
    or 0), whether it is dead, whether in check."""
    t = vc.tiers(material, False)
    k, men = int(t.k[0]), t.men[0]
    sq = np.empty(ck.SLOTS, np.int64)
    side = ck.decode(code, k, sq)
    dead = ck.dead(k, men, sq)
    out_t = np.empty(ck.MAX_CHILDREN, np.int64)
    out_c = np.empty(ck.MAX_CHILDREN, np.int64)
    out_m = np.empty(ck.MAX_CHILDREN, np.int64)
    n = 0
    if not dead:
        scratch = np.empty((3, ck.SLOTS), np.int64)
        n = ck.children(side, k, men, sq, t.of_key, t.group, scratch, out_t, out_c, out_m)
    glob = np.concatenate(([t.base[0] + code], t.base[out_t[:n]] + out_c[:n]))
    fens = [x.decode("ascii") for x in ck.fens(glob, t.base, t.k, t.men).view("S64").ravel()]
    check = bool(ck.attacked(ck.king_square(side, k, men, sq), 1 - side, k, men, sq,
                             np.uint64(ck.occupancy(k, sq))))  # fmt: skip
    children = {_fen4(f) for f in fens[1:]}
    if len(children) != n:
        raise AssertionError(f"{fens[0]}: a successor listed twice")
    moves = {(m // 512, m // 8 % 64, m % 8) for m in out_m[:n].tolist()}
    return fens[0], children, moves, dead, check


def disagreements(
    material: str,
    count: int | None,
    seed: int = 0,
    limit: int = 5,
    every: int = 1,
    en_passant: bool = False,
) -> tuple[int, list[str]]:
    """How many positions were compared, and up to ``limit`` disagreements in words.

    Every position's moves (from, to, promotion), mate, stalemate, check and dead material are
    compared; every ``every``-th position's successor positions too, by FEN (pushing each move
    in python-chess costs ten times the rest)."""
    import chess

    seen, bad = 0, []
    for code, _ in positions(material, count, seed, en_passant):
        fen, children, moves, dead, check = ours(material, code)
        board = chess.Board(fen)
        legal = list(board.legal_moves)
        problems = []
        if dead != board.is_insufficient_material():
            problems.append(f"dead {dead}, python-chess insufficient material {not dead}")
        if check != board.is_check():
            problems.append(f"in check {check}, python-chess {board.is_check()}")
        if not dead:
            theirs_moves = {(m.from_square, m.to_square, _PROMOTED[m.promotion]) for m in legal}
            if moves != theirs_moves:
                only = sorted(moves - theirs_moves)[:2], sorted(theirs_moves - moves)[:2]
                problems.append(f"moves differ: ours only {only[0]}, python-chess only {only[1]}")
            if not moves and (check != board.is_checkmate() or check == board.is_stalemate()):
                problems.append(
                    f"no moves, check {check}, python-chess mate {board.is_checkmate()}"
                )
            if seen % every == 0:
                theirs = set()
                for mv in legal:
                    board.push(mv)
                    theirs.add(_fen4(board.fen()))
                    board.pop()
                if children != theirs:
                    only_f = sorted(children - theirs)[:2], sorted(theirs - children)[:2]
                    problems.append(f"successors differ: ours {only_f[0]}, theirs {only_f[1]}")
        seen += 1
        if problems:
            bad.append(f"{fen}: " + "; ".join(problems))
    return seen, bad[:limit] + ([f"... {len(bad)} in all"] if len(bad) > limit else [])
