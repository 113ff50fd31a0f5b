"""The chess endgames KQK and KRK on an n x n board (3 <= n <= 8) as ``normal`` games.

White has a king and a queen (``KQK``) or a rook (``KRK``), Black a bare king; either side may
be to move; there is no castling, no en passant, no pawns. Rules:

- A position is legal when the three men stand on distinct squares, the kings are not adjacent
  and the side not to move is not in check (White's king can only be checked by the black king,
  so with Black to move only the kings' distance matters).
- White moves its king (not next to the black king) or its piece (sliding until the board's
  edge or a man, which it cannot capture: it never captures a king). Black moves its king to a
  square that is not next to the white king and not attacked by the piece (the attack is traced
  with the black king lifted off its square, so it cannot step back along the piece's line); it
  may capture the piece if the white king does not guard it.
- Capturing the piece leads to the single terminal node ``KK``, a draw (label 0). A side without
  moves is mated (in check: the default label, lost for the mover) or stalemated (a terminal
  draw, label 0).

Depth to mate is the remoteness of retrograde analysis in plies: a won position with White to
move at remoteness ``r`` is mate in ``(r + 1) / 2`` moves.

Encoding: squares are ``s = rank * n + file`` (``a1`` = 0, ``b1`` = 1, ...). A position's code is
``((side * N + wk) * N + wp) * N + bk`` with ``N = n * n`` and ``side`` 0 for White to move, 1
for Black; the legal codes, in increasing order, are the node ids ``0 .. positions - 1`` and
``KK`` comes last. Names read ``"Ka1 Qb2 kc4 w"``: white king, white piece, black king (lower
case), side to move. The whole graph is built with vectorized numpy over all ``2 N^3`` codes.

Examples
--------
>>> case = generate("KQK", 3)
>>> case.graph.name(case.graph.n - 1)
'KK'
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import DRAW, LazyNames, normal_case, square_symmetries, unique_keys
from verifier.games.protocol import Game
from verifier.games.registry import SYMMETRY, BuiltinGame, Example, Option
from verifier.model import Case

__all__ = [
    "GAMES",
    "PIECES",
    "Geometry",
    "KingPieceKing",
    "generate",
    "geometry",
    "orbit_sizes",
    "parse_name",
    "position_name",
]

PIECES = {"KQK": "Q", "KRK": "R"}
"""The endgames and the letter of White's piece."""

KING_STEPS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
ROOK_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))
QUEEN_STEPS = KING_STEPS

BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]


class Geometry:
    """Move tables of an n x n board for a king and a sliding piece (numpy arrays)."""

    def __init__(self, n: int, piece: str) -> None:
        if not 3 <= n <= 8:
            raise ValueError(f"board size must be 3..8, got {n}")
        if piece not in ("Q", "R"):
            raise ValueError(f"piece must be 'Q' or 'R', got {piece!r}")
        self.n, self.piece = n, piece
        self.squares = N = n * n
        rank, file = np.divmod(np.arange(N), n)
        self.king_to: IntArray = np.full((N, 8), -1, dtype=np.int64)
        """``king_to[s, d]``: the square one king step from ``s`` in direction ``d``, or -1."""
        for d, (dr, df) in enumerate(KING_STEPS):
            r, f = rank + dr, file + df
            on = (r >= 0) & (r < n) & (f >= 0) & (f < n)
            self.king_to[on, d] = (r * n + f)[on]
        self.near: BoolArray = (
            np.maximum(np.abs(rank[:, None] - rank[None, :]), np.abs(file[:, None] - file[None, :]))
            <= 1
        )
        """``near[s, t]``: the squares are equal or adjacent (a king on s guards t)."""
        steps = QUEEN_STEPS if piece == "Q" else ROOK_STEPS
        self.ray: IntArray = np.full((N, len(steps), n - 1), -1, dtype=np.int64)
        """``ray[s, d, k]``: the square ``k + 1`` steps from ``s`` in direction ``d``, or -1."""
        for d, (dr, df) in enumerate(steps):
            for k in range(n - 1):
                r, f = rank + dr * (k + 1), file + df * (k + 1)
                on = (r >= 0) & (r < n) & (f >= 0) & (f < n)
                self.ray[on, d, k] = (r * n + f)[on]
        self.attacks: BoolArray = np.zeros((N, N, N), dtype=np.bool_)
        """``attacks[p, t, b]``: the piece on ``p`` attacks ``t`` when the only other man that
        could block stands on ``b`` (a man on ``t`` itself does not block)."""
        for p in range(N):
            for d in range(len(steps)):
                line = [int(t) for t in self.ray[p, d] if t >= 0]
                for k, t in enumerate(line):
                    self.attacks[p, t, :] = True
                    self.attacks[p, t, line[:k]] = False

    def square_name(self, s: int) -> str:
        return "abcdefgh"[s % self.n] + str(s // self.n + 1)

    def square(self, name: str) -> int:
        f, r = "abcdefgh".index(name[0]), int(name[1:]) - 1
        if not (0 <= f < self.n and 0 <= r < self.n):
            raise ValueError(f"square {name!r} is off the {self.n}x{self.n} board")
        return r * self.n + f

    def code(self, side: int, wk: int, wp: int, bk: int) -> int:
        N = self.squares
        return ((side * N + wk) * N + wp) * N + bk

    @property
    def kk_code(self) -> int:
        return 2 * self.squares**3

    def name(self, code: int) -> str:
        """``"Ka1 Qb2 kc4 w"`` for a position code, ``"KK"`` for the bare-kings draw."""
        if code == self.kk_code:
            return "KK"
        N = self.squares
        rest, bk = divmod(code, N)
        rest, wp = divmod(rest, N)
        side, wk = divmod(rest, N)
        sq = self.square_name
        return f"K{sq(wk)} {self.piece}{sq(wp)} k{sq(bk)} {'wb'[side]}"


def _images(geo: Geometry, side: IntArray, wk: IntArray, wp: IntArray, bk: IntArray) -> IntArray:
    """The codes of the 8 symmetric images of each position, shape ``(8, len(side))``."""
    N = geo.squares
    perm = np.array(square_symmetries(geo.n), dtype=np.int64)[:, :, None]  # (8, N, 1)
    images: IntArray = ((side * N + perm[:, wk, 0]) * N + perm[:, wp, 0]) * N + perm[:, bk, 0]
    return images


def _canonical(geo: Geometry, side: IntArray, wk: IntArray, wp: IntArray, bk: IntArray) -> IntArray:
    least: IntArray = _images(geo, side, wk, wp, bk).min(axis=0)
    return least


def orbit_sizes(endgame: str, n: int, names: Sequence[str]) -> NDArray[np.int64]:
    """How many positions each named class stands for (``KK`` stands for itself)."""
    geo = geometry(n, PIECES[endgame])
    if isinstance(names, LazyNames):
        codes = np.asarray(names.codes, dtype=np.int64)
    else:
        codes = np.array([parse_name(endgame, n, x) for x in names], dtype=np.int64)
    out = np.ones(len(codes), dtype=np.int64)
    pos = codes != geo.kk_code
    N = geo.squares
    rest, bk = np.divmod(codes[pos], N)
    rest, wp = np.divmod(rest, N)
    side, wk = np.divmod(rest, N)
    images = np.sort(_images(geo, side, wk, wp, bk), axis=0)
    out[pos] = 1 + (images[1:] != images[:-1]).sum(axis=0)
    return out


@cache
def geometry(n: int, piece: str) -> Geometry:
    """The move tables of an n x n board for ``piece`` (built once per board and piece)."""
    return Geometry(n, piece)


def position_name(endgame: str, n: int, code: int) -> str:
    """The readable name of a position code (see the module docstring)."""
    return geometry(n, PIECES[endgame]).name(code)


def parse_name(endgame: str, n: int, name: str) -> int:
    """The code of a position name such as ``"Ka1 Qb2 kc4 w"`` (inverse of the names)."""
    geo = geometry(n, PIECES[endgame])
    if name == "KK":
        return geo.kk_code
    parts = name.split()
    if (
        len(parts) != 4
        or parts[0][0] != "K"
        or parts[1][0] != geo.piece
        or parts[2][0] != "k"
        or parts[3] not in ("w", "b")
    ):
        raise ValueError(f"not a {endgame} position: {name!r}")
    wk, wp, bk = (geo.square(p[1:]) for p in parts[:3])
    return geo.code("wb".index(parts[3]), wk, wp, bk)


def generate(endgame: str = "KQK", size: int = 8, symmetry: bool = False) -> Case:
    """The full ``KQK`` or ``KRK`` graph on a ``size`` x ``size`` board, both sides to move.

    ``symmetry``: positions are identified up to the 8 symmetries of the board (there are no
    pawns and no castling, so all 8 preserve the game); a class is represented by its least
    code.
    """
    if endgame not in PIECES:
        raise ValueError(f"endgame must be one of {sorted(PIECES)}, got {endgame!r}")
    geo = geometry(size, PIECES[endgame])
    N = geo.squares
    side, wk, wp, bk = (a.ravel() for a in np.indices((2, N, N, N)))
    legal = (wk != wp) & (wp != bk) & ~geo.near[wk, bk]
    legal &= (side == 1) | ~geo.attacks[wp, bk, wk]  # White to move: Black not in check
    codes = np.flatnonzero(legal)
    side, wk, wp, bk = side[codes], wk[codes], wp[codes], bk[codes]
    node_of = np.full(2 * N**3 + 1, -1, dtype=np.int64)
    if symmetry:
        canon = _canonical(geo, side, wk, wp, bk)
        rep = canon == codes
        node_of[codes] = np.searchsorted(codes[rep], canon)
        codes, side, wk, wp, bk = codes[rep], side[rep], wk[rep], wp[rep], bk[rep]
    else:
        node_of[codes] = np.arange(len(codes))
    kk = len(codes)
    node_of[geo.kk_code] = kk
    ids = np.arange(len(codes))
    src: list[IntArray] = []
    dst: list[IntArray] = []

    def add(ok: BoolArray, to_code: IntArray) -> None:
        src.append(ids[ok])
        dst.append(node_of[to_code[ok]])

    white, black = side == 0, side == 1
    for d in range(8):
        # White king steps: not onto its piece, not next to the black king.
        t = geo.king_to[wk, d]
        ok = white & (t >= 0) & (t != wp) & ~geo.near[np.maximum(t, 0), bk]
        add(ok, ((N + t) * N + wp) * N + bk)
        # Black king steps: not next to the white king, not onto an attacked square unless it
        # captures the piece there (then the game is KK).
        t = geo.king_to[bk, d]
        ts = np.maximum(t, 0)
        ok = black & (t >= 0) & ~geo.near[ts, wk] & ((ts == wp) | ~geo.attacks[wp, ts, wk])
        add(ok & (ts == wp), np.full(len(ids), geo.kk_code))
        add(ok & (ts != wp), (wk * N + wp) * N + t)
    for d in range(geo.ray.shape[1]):
        # The piece slides until the edge or a king (it captures nothing).
        blocked = ~white
        for k in range(size - 1):
            t = geo.ray[wp, d, k]
            blocked = blocked | (t < 0) | (t == wk) | (t == bk)
            add(~blocked, ((N + wk) * N + t) * N + bk)
    s, t = np.concatenate(src), np.concatenate(dst)
    if (t < 0).any():  # a move into an illegal position would be a bug in the rules above
        raise AssertionError(f"{endgame} {size}x{size}: a move leads to an illegal position")
    if symmetry:  # two moves to symmetric positions are one move between classes
        _, keep = unique_keys(s * (kk + 1) + t)
        s, t = s[keep], t[keep]
    in_check = black & geo.attacks[wp, bk, wk]
    value = np.append(np.where(in_check, -1.0, DRAW), DRAW)  # no moves: mate or stalemate
    return normal_case(
        LazyNames(np.append(codes, geo.kk_code), geo.name),
        s,
        t,
        value,
        case_id=f"{endgame.lower()}-{size}x{size}" + ("-symmetric" if symmetry else ""),
        source=f"verifier.games.chess_endgames (endgame={endgame}, size={size}"
        + (", symmetry=True)" if symmetry else ")"),
        description=f"{endgame} on a {size}x{size} board, either side to move; capture of the "
        "piece leads to the drawn node KK, mate is lost for the mated side, stalemate a draw"
        + ("; positions up to the 8 symmetries of the board" if symmetry else ""),
    )


Position = tuple[str, int, int, int] | str
"""A position on the game protocol: (side ``"w"``/``"b"``, white king, white piece, black
king) as squares ``rank * n + file``, or ``"KK"`` once the piece is taken."""


class KingPieceKing(Game):
    """KQK or KRK on an n x n board on the game protocol, the rules of the module docstring
    written square by square (``verifier generate verifier.games.chess_endgames:KingPieceKing
    --param endgame=KRK --param size=5 --param symmetry=1``): the same graph as
    :func:`generate`, which stays the fast path (``tests/games/test_protocol_builtin.py``)."""

    semantics = "normal"

    def __init__(self, endgame: str = "KQK", size: int = 8, symmetry: int = 0) -> None:
        if endgame not in PIECES or not 3 <= int(size) <= 8:
            raise ValueError(f"endgame KQK or KRK on a 3..8 board, got {endgame!r} {size!r}")
        self.piece, self.n = PIECES[endgame], int(size)
        self.slides = QUEEN_STEPS if self.piece == "Q" else ROOK_STEPS
        self.symmetries = square_symmetries(self.n) if symmetry else ()

    def _near(self, a: int, b: int) -> bool:  # adjacent (or the same square)
        return abs(a // self.n - b // self.n) <= 1 and abs(a % self.n - b % self.n) <= 1

    def _steps(
        self, sq: int, steps: Sequence[tuple[int, int]], blocked: set[int], one: bool = False
    ) -> list[int]:
        """The squares ``sq`` reaches along ``steps``, each ray ending before a blocked square
        (``one``: a king's steps, one square each)."""
        n, out = self.n, []
        for dr, df in steps:
            r, f = divmod(sq, n)
            while True:
                r, f = r + dr, f + df
                if not (0 <= r < n and 0 <= f < n) or r * n + f in blocked:
                    break
                out.append(r * n + f)
                if one:
                    break
        return out

    def _attacked(self, sq: int, wk: int, wp: int) -> bool:
        """Whether the piece on ``wp`` attacks ``sq`` (the white king may block it)."""
        return sq in self._steps(wp, self.slides, {wk})

    def initials(self) -> list[Position]:
        """Every legal position: distinct squares, kings apart, White to move only when the
        black king is not in check."""
        squares = range(self.n * self.n)
        return [
            (side, wk, wp, bk)
            for side in ("w", "b")
            for wk in squares
            for wp in squares
            for bk in squares
            if len({wk, wp, bk}) == 3
            and not self._near(wk, bk)
            and (side == "b" or not self._attacked(bk, wk, wp))
        ]

    def moves(self, pos: Position) -> list[Position]:
        if isinstance(pos, str):
            return []  # KK: a draw
        side, wk, wp, bk = pos
        if side == "w":
            steps = self._steps(wk, KING_STEPS, {wp}, one=True)
            king: list[Position] = [("b", t, wp, bk) for t in steps if not self._near(t, bk)]
            return king + [("b", wk, t, bk) for t in self._steps(wp, self.slides, {wk, bk})]
        out: list[Position] = []
        for t in self._steps(bk, KING_STEPS, set(), one=True):
            if self._near(t, wk):
                continue
            if t == wp:
                out.append("KK")  # the piece taken: it is not next to the white king
            elif not self._attacked(t, wk, wp):
                out.append(("w", wk, wp, t))
        return out

    def outcome(self, pos: Position) -> str | None:
        """KK and stalemate are draws; mate is the default (lost for the mover)."""
        if isinstance(pos, str):
            return "draw"
        if self.moves(pos):
            return None
        side, wk, wp, bk = pos
        in_check = side == "b" and self._attacked(bk, wk, wp)
        return None if in_check else "draw"

    def canonical(self, pos: Position) -> Position:
        """With symmetry, the image of least code (:func:`generate`'s representative): the
        side is the same in every image, so the least squares (white king, piece, black king)."""
        if isinstance(pos, str) or not self.symmetries:
            return pos
        side, wk, wp, bk = pos
        return (side, *min((p[wk], p[wp], p[bk]) for p in self.symmetries))

    def key(self, pos: Position) -> str:
        """The module's names: ``"Ka1 Qb2 kc4 w"``, or ``"KK"``."""
        if isinstance(pos, str):
            return pos
        side, wk, wp, bk = pos

        def sq(s: int) -> str:
            return "abcdefgh"[s % self.n] + str(s // self.n + 1)

        return f"K{sq(wk)} {self.piece}{sq(wp)} k{sq(bk)} {side}"


def _class_sizes(endgame: str, case: Case) -> NDArray[np.int64] | None:
    """:func:`orbit_sizes` of a case ``kqk-NxN-symmetric`` (``None`` for another case)."""
    if not (case.id.startswith(endgame.lower() + "-") and case.id.endswith("-symmetric")):
        return None
    size = int(case.id.split("-")[1].split("x")[0])
    return orbit_sizes(endgame, size, case.graph.names)


GAMES = tuple(
    BuiltinGame(
        name,
        f"chess endgame king+{piece} vs king on an n x n board",
        partial(generate, endgame),
        options=(Option("size", int, "kqk / krk board size n (3..8)."), SYMMETRY),
        protocol=partial(KingPieceKing, endgame),
        class_sizes=partial(_class_sizes, endgame),
        examples=(
            *(
                Example(f"{name}-4{tail}", name, {"size": 4, "symmetry": sym})
                for sym, tail in ((False, ""), (True, "-symmetric"))
            ),
            Example(f"{name}-{n}x{n}", name, {"size": n}, study=False, corpus="readable"),
        ),
        order=order,
    )
    for endgame, name, piece, order, n in (
        ("KQK", "kqk", "queen", 40, 3),
        ("KRK", "krk", "rook", 50, 4),
    )
)
