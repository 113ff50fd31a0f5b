"""The names of a case whose ``.npz`` file stores a game's *codes* (``name_codes``, header
``name_codec``), decoded by this checker from the codec's definition (docs/certificates.md,
*Coded names*), so that a certificate's names are tied to the case: numpy, nothing from the
package. Each code must be a position of the codec's board (the representative of its class
under a ``:symmetric`` codec), no two alike; ``Names.sizes`` are the classes' sizes then.

- ``connect4:WxH[:symmetric]``: per column ``c`` the bits ``c*(H+1) ..``: the stones from the
  bottom (1: the player to move's) below a marker bit. Name: the rows from the top joined by
  ``/``, ``x`` (moved first: to move when the stones are even) / ``o`` / ``.``. A class is a
  board and its mirror image (the smaller code stands for it).
- ``chess:MATERIAL[:symmetric]``: the materials (tiers) are MATERIAL and, breadth-first, each
  one a capture (a man not a king removed) or a promotion (a pawn made Q, R, B, N) leads to,
  the men of each in increasing man code (``KQRBNP`` = 1..6, Black's + 8). A tier of ``k`` men
  spans ``2 * 64^k`` codes (18 * 64^k with pawns of both colours) from the sum of those before;
  its local code is ``(ep * 2 + side) * 64^k + sq[0] * 64^(k-1) + .. + sq[k-1]`` (``a1`` = 0,
  ``ep``: the file + 1 of a pawn just double-stepped that the side to move can take). Legal:
  distinct squares, no pawn on the first or last rank, men of one kind in increasing square,
  the side not to move not in check, ``ep`` only where the capture is a legal move. Name: the
  FEN with ``-`` castling and counters ``0 1``. Classes: the 8 symmetries of the board without
  pawns, the mirror a<->h with pawns (least code stands for it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

try:  # needed for the codes of an .npz case only: without it, plain cases are judged alone
    import numpy as np
except ImportError:  # pragma: no cover - checked by the checker's numpy test
    np = None  # type: ignore[assignment]

BLOCK = 1 << 15
U = None if np is None else np.uint64
Fail = Callable[[str], Exception]


def facts(names: Any, out: Any, rem: Any) -> dict[str, Any]:
    """The summary's blocks a codec's knowledge gives (``None`` where it gives none), from each
    position's outcome ``out`` (+1 won / -1 lost / 0 drawn) and remoteness ``rem`` (None or
    -1: none): ``symmetry``, the counts over all positions (each class by its size); ``chess``,
    per side to move the longest win (plies, moves to mate, how many positions, the first three
    by id) and per material and side to move the counts (each class by its size)."""
    got: dict[str, Any] = {"symmetry": None, "chess": None}
    if not isinstance(names, Names):
        return got  # plain names: no codec's knowledge
    o, coded = np.asarray(out), True
    sizes = names.sizes
    if sizes is not None:
        got["symmetry"] = {"classes": len(o), **_counts(o, sizes)}
    if not coded or not isinstance(names.game, _Chess):
        return got
    g = names.game
    r = np.asarray([-1 if x is None else x for x in rem] if isinstance(rem, list) else rem)
    c = names.codes.astype(np.int64)
    tier = np.searchsorted(g.base, c, side="right") - 1
    men = np.array([len(t) for t in g.tiers])[tier]
    black = ((c - g.base[tier]) >> (6 * men)) & 1 == 1
    weight = np.ones(len(c), np.int64) if sizes is None else sizes
    block: dict[str, Any] = {}
    for side, mask in (("white", ~black), ("black", black)):
        won = mask & (o == 1) & (r >= 0)
        most = int(r[won].max()) if won.any() else -1
        at = np.flatnonzero(won & (r == most))
        first = [names[int(x)] for x in at[:3]]
        block[side] = {"plies": most, "mate_in": (most + 1) // 2, "positions": len(at),
                       "examples": first} if len(at) else None  # fmt: skip
    block["materials"] = {
        "".join(LETTERS[m - 1] for m in t if m < 8) + "".join(LETTERS[m - 9] for m in t if m > 8): {
            side: _counts(o[sel], weight[sel])
            for side, sel in (("white", (tier == i) & ~black), ("black", (tier == i) & black))
        }
        for i, t in enumerate(g.tiers)
    }
    got["chess"] = block
    return got


def _counts(o: Any, sizes: Any) -> dict[str, int]:
    won, lost, total = (int(sizes[o == 1].sum()), int(sizes[o == -1].sum()), int(sizes.sum()))
    return {"positions": total, "won": won, "lost": lost, "drawn": total - won - lost}


class Names(Sequence[str]):
    """The names of ``codes`` under ``codec``, checked at once, decoded a block at a time;
    ``fail(why)``: the exception raised for what is wrong (the caller's kind)."""

    def __init__(self, codec: Any, codes: Any, n: int, fail: Fail = ValueError) -> None:
        a = np.asarray([] if codes is None else codes)
        if codes is None or a.ndim != 1 or a.dtype.kind not in "ui" or (a < 0).any():
            raise fail("name_codes: the case's codes must be a list of whole numbers >= 0")
        if len(a) != n:
            raise fail(f"name_codes: {len(a)} codes for {n} positions")
        self.codes, self.codec = a.astype(U), str(codec)
        game = _connect4(self.codec) or _chess(self.codec)
        if game is None:
            known = "connect4:WxH[:symmetric], chess:MATERIAL[:symmetric]"
            raise fail(f"name_codec {self.codec!r} is unknown (known: {known})")
        self.game: _Board | _Chess = game
        sizes = []
        for lo in range(0, n, BLOCK):
            chunk = self.codes[lo : lo + BLOCK]
            bad, size = self.game.check(chunk)
            if bad.any():
                x = lo + int(np.argmax(bad))
                raise fail(f"name_codes[{x}] = {int(self.codes[x])} is no {self.codec} position")
            sizes.append(size)
        up = self.codes[1:] > self.codes[:-1]  # the same code twice: sorted, side by side
        ordered = self.codes if bool(up.all()) else np.sort(self.codes)
        if (ordered[1:] == ordered[:-1]).any():
            raise fail(f"name_codes: two positions share a code of {self.codec}")
        self.sizes = np.concatenate(sizes) if self.game.symmetric and n else None

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, x: Any) -> Any:
        return str(self.game.names(self.codes[x : x + 1])[0].decode())

    def blocks(self) -> Iterator[tuple[int, Any]]:
        for lo in range(0, len(self.codes), BLOCK):
            yield lo, self.game.names(self.codes[lo : lo + BLOCK])

    def __iter__(self) -> Iterator[str]:
        for _, b in self.blocks():
            yield from (x.decode() for x in b.tolist())

    def first_difference(self, listed: Any) -> int | None:
        """The first id whose name ``listed`` (str or bytes each) does not give, or None."""
        for lo, mine in self.blocks():
            theirs = listed[lo : lo + len(mine)]
            if not isinstance(theirs, np.ndarray):
                theirs = np.array([str(t).encode("utf-8") for t in theirs] or [b""])
            same = np.zeros(len(mine), bool)
            same[: len(theirs)] = mine[: len(theirs)] == theirs[: len(mine)]
            if not same.all():
                return lo + int(np.argmin(same))
        return None


# ----------------------------------------------------------------------------- Connect Four
class _Board:
    def __init__(self, w: int, h: int, symmetric: bool) -> None:
        self.w, self.h, self.col, self.symmetric = w, h, h + 1, symmetric

    def columns(self, codes: Any) -> list[Any]:
        return [(codes >> U(c * self.col)) & U((1 << self.col) - 1) for c in range(self.w)]

    def mirror(self, codes: Any) -> Any:
        out = np.zeros_like(codes)
        for c, v in enumerate(self.columns(codes)):
            out |= v << U((self.w - 1 - c) * self.col)
        return out

    def check(self, codes: Any) -> tuple[Any, Any]:
        bad = (codes >> U(self.w * self.col)) != 0  # bits above the board
        for v in self.columns(codes):
            bad |= v == 0  # no marker bit
        if not self.symmetric:
            return bad, None
        m = self.mirror(codes)
        return bad | (m < codes), np.where(m == codes, 1, 2).astype(np.int8)

    def _stones(self, v: Any) -> Any:  # the marker bit's height: the bits above the lowest
        return sum((v >> U(b) != 0).astype(np.int64) for b in range(1, self.col))

    def _cells(self, v: Any, k: Any, x_moves: Any) -> Any:
        """A column's cells from the bottom: ``x`` (moved first), ``o`` or ``.``."""
        out = np.empty((len(v), self.h), np.uint8)
        for r in range(self.h):
            mine = ((v >> U(r)) & U(1)) == 1  # the player to move's stone
            out[:, r] = np.where(r < k, np.where(mine == x_moves, ord("x"), ord("o")), ord("."))
        return out

    def names(self, codes: Any) -> Any:
        cols, small = self.columns(codes), self.col <= 16  # small: a table per column value
        if small and not hasattr(self, "table"):  # a column's cells as one item of h bytes
            v = np.arange(1 << self.col, dtype=U)
            k = self._stones(v)
            both = np.concatenate([self._cells(v, k, x)[:, ::-1] for x in (False, True)])
            self.table = k, np.ascontiguousarray(both).view(f"V{self.h}").ravel()
        stones = [self.table[0][v.astype(np.intp)] if small else self._stones(v) for v in cols]
        x_moves = (sum(stones) % 2 == 0).astype(np.intp)
        out = np.full((len(codes), self.h, self.w + 1), ord("/"), np.uint8)
        for c, (v, k) in enumerate(zip(cols, stones, strict=True)):
            if small:
                items = self.table[1][(x_moves << self.col) + v.astype(np.intp)]
                out[:, :, c] = items.view(np.uint8).reshape(len(codes), self.h)
            else:
                out[:, :, c] = self._cells(v, k, x_moves == 1)[:, ::-1]  # the rows from the top
        flat = np.ascontiguousarray(out.reshape(len(codes), -1)[:, :-1])
        return flat.view(f"S{flat.shape[1]}").ravel()


def _connect4(codec: str) -> _Board | None:
    m = re.fullmatch(r"connect4:([1-9][0-9]?)x([1-9][0-9]?)(:symmetric)?", codec)
    if m is None or int(m[1]) * (int(m[2]) + 1) > 63:
        return None
    return _Board(int(m[1]), int(m[2]), m[3] is not None)


# ------------------------------------------------------------------------------------ chess
KING, PAWN, LETTERS = 1, 6, "KQRBNP"
# the symmetries of the square as (swap rank and file, flip ranks, flip files): 8, or 2 with
# pawns (the identity and the mirror a<->h)
ALL = [(s, r, f) for s in (0, 1) for r in (0, 1) for f in (0, 1)]
PAWNS = [(0, 0, 0), (0, 0, 1)]


def _lines() -> tuple[Any, Any]:
    """``kind[s, t]``: 1 same rank or file, 2 same diagonal, 0 neither; ``between[s, t]``: the
    bitboard of the squares strictly between them."""
    kind, between = np.zeros((64, 64), np.int64), np.zeros((64, 64), U)
    for s in range(64):
        for t in range(64):
            dr, df = t // 8 - s // 8, t % 8 - s % 8
            if s == t or (dr and df and abs(dr) != abs(df)):
                continue
            kind[s, t] = 1 if dr == 0 or df == 0 else 2
            n = max(abs(dr), abs(df))
            for i in range(1, n):
                between[s, t] |= U(1 << (s + i * (dr // n) * 8 + i * (df // n)))
    return kind, between


class _Chess:
    def __init__(self, first: tuple[int, ...], symmetric: bool) -> None:
        self.tiers, self.symmetric = [first], symmetric
        for men in self.tiers:  # breadth-first: the list grows while it is read
            for i, m in enumerate(men):
                after = []
                if m & 7 != KING:
                    after.append(men[:i] + men[i + 1 :])
                if m & 7 == PAWN:
                    promoted = [(*men[:i], (m & 8) + p, *men[i + 1 :]) for p in range(2, 6)]
                    after += [tuple(sorted(x)) for x in promoted]
                self.tiers += [a for a in after if a not in self.tiers]
        span = [(18 if {PAWN, 8 + PAWN} <= set(t) else 2) * 64 ** len(t) for t in self.tiers]
        self.base = np.concatenate(([0], np.cumsum(span))).astype(np.int64)
        self.kind, self.between = _lines()

    def _split(self, codes: Any) -> Iterator[tuple[Any, tuple[int, ...], Any, Any, Any, Any]]:
        """Per tier in ``codes``: (rows, men, local codes, squares (rows, k), side, ep)."""
        c = codes.astype(np.int64)
        tier = np.searchsorted(self.base, c, side="right") - 1
        for t in np.unique(tier[(c < self.base[-1]) & (c >= 0)]):
            rows = np.flatnonzero(tier == t)
            men, local = self.tiers[t], c[rows] - self.base[t]
            k = len(men)
            sq = np.stack([(local >> (6 * (k - 1 - i))) & 63 for i in range(k)], axis=1)
            rest = local >> (6 * k)
            yield rows, men, local, sq, rest & 1, rest >> 1

    def check(self, codes: Any) -> tuple[Any, Any]:
        bad = codes >= U(self.base[-1])
        size = np.ones(len(codes), np.int8)  # at most 8
        for rows, men, local, sq, side, ep in self._split(codes):
            ok = self._legal(men, sq, side, ep)
            if self.symmetric:
                group = PAWNS if PAWN in {m & 7 for m in men} else ALL
                images = np.stack([self._image(g, men, sq, side, ep) for g in group], axis=1)
                images.sort(axis=1)
                ok &= images[:, 0] == local  # the least code stands for its class
                size[rows] = 1 + (images[:, 1:] != images[:, :-1]).sum(axis=1)
            bad[rows] = ~ok
        return bad, size if self.symmetric else None

    def _image(self, g: tuple[int, int, int], men: Any, sq: Any, side: Any, ep: Any) -> Any:
        """The local code of the position's image under ``g``."""
        r, f = sq // 8, sq % 8
        r, f = (f, r) if g[0] else (r, f)
        r, f = (7 - r if g[1] else r), (7 - f if g[2] else f)
        img = r * 8 + f
        for i in range(1, len(men)):  # men of one kind in increasing square again
            if men[i] == men[i - 1]:
                img[:, i - 1 : i + 1].sort(axis=1)
        code = (np.where((ep > 0) & (g[2] == 1), 9 - ep, ep)) * 2 + side
        for i in range(len(men)):
            code = code * 64 + img[:, i]
        return code

    def _attacked(self, men: Any, sq: Any, t: Any, by: Any) -> Any:
        """Whether a man of colour ``by`` attacks square ``t`` (square -1: a man gone)."""
        occ = np.zeros(len(t), U)
        for i in range(len(men)):
            occ |= np.where(sq[:, i] >= 0, U(1) << np.clip(sq[:, i], 0, 63).astype(U), U(0))
        hit = np.zeros(len(t), bool)
        for i, m in enumerate(men):
            s = np.clip(sq[:, i], 0, 63)
            dr, df = t // 8 - s // 8, np.abs(t % 8 - s % 8)
            p, ar = m & 7, np.abs(dr)
            if p == KING:
                a = np.maximum(ar, df) == 1
            elif p == 5:  # knight
                a = ((ar == 1) & (df == 2)) | ((ar == 2) & (df == 1))
            elif p == PAWN:
                a = (dr == (1 if m < 8 else -1)) & (df == 1)
            else:
                kind = self.kind[s, t]
                a = (kind > 0) if p == 2 else (kind == (1 if p == 3 else 2))
                a &= (self.between[s, t] & occ) == 0
            hit |= a & (sq[:, i] >= 0) & (s != t) & ((m >> 3) == by)
        return hit

    def _king(self, men: Any, sq: Any, colour: Any) -> Any:
        return np.where(colour == 0, sq[:, men.index(KING)], sq[:, men.index(8 + KING)])

    def _legal(self, men: Any, sq: Any, side: Any, ep: Any) -> Any:
        ok = np.ones(len(sq), bool)
        for i, m in enumerate(men):
            for j in range(i):
                ok &= sq[:, i] != sq[:, j]
            if m & 7 == PAWN:
                ok &= (sq[:, i] >= 8) & (sq[:, i] < 56)
            if i and men[i - 1] == m:
                ok &= sq[:, i] > sq[:, i - 1]
        ok &= ~self._attacked(men, sq, self._king(men, sq, 1 - side), side)
        return ok & ((ep == 0) | self._en_passant(men, sq, side, ep - 1))

    def _en_passant(self, men: Any, sq: Any, side: Any, f: Any) -> Any:
        """The side to move takes en passant on file ``f``: the other side's pawn stands where
        a double step ends, the two squares it crossed are empty, a pawn beside it takes it
        and its own king is then safe."""
        at = np.where(side == 0, 32, 24) + f
        step = np.where(side == 0, 8, -8)
        empty = ~((sq == (at + step)[:, None]) | (sq == (at + 2 * step)[:, None])).any(axis=1)
        out = np.zeros(len(sq), bool)
        for j, them in enumerate(men):
            for i, mine in enumerate(men):
                if them & 7 != PAWN or mine & 7 != PAWN or them >> 3 == mine >> 3:
                    continue
                can = empty & (sq[:, j] == at) & ((mine >> 3) == side) & (sq[:, i] // 8 == at // 8)
                can &= np.abs(sq[:, i] % 8 - f) == 1
                after = sq.copy()
                after[:, i], after[:, j] = at + step, -1
                king = self._king(men, after, side)
                out |= can & ~self._attacked(men, after, king, 1 - side)
        return out

    def names(self, codes: Any) -> Any:
        """FENs: each rank's text looked up by its men (4 bits a file), the ranks joined."""
        out = np.zeros(len(codes), "S96")
        tails = np.array([f" {'wb'[s]} - {'-' if not e else 'abcdefgh'[e - 1] + '63'[s]} 0 1"
                          for e in range(9) for s in (0, 1)], "S12")  # fmt: skip
        for rows, men, _, sq, side, ep in self._split(codes):
            fen: Any = None
            for r in range(7, -1, -1):
                key = np.zeros(len(rows), np.int64)
                for i, m in enumerate(men):
                    key += np.where(sq[:, i] // 8 == r, m << (4 * (sq[:, i] % 8)), 0)
                keys, at = np.unique(key, return_inverse=True)
                part = np.array([_rank(int(k)) for k in keys], "S8")[at]
                fen = part if fen is None else np.char.add(np.char.add(fen, b"/"), part)
            out[rows] = np.char.add(fen, tails[ep * 2 + side])
        return out


def _rank(key: int) -> str:
    """A rank's FEN from its men by file (``key``: 4 bits a file, 0 empty)."""
    text, gap = "", 0
    for f in range(8):
        m = (key >> (4 * f)) & 15
        if m:
            text, gap = text + (str(gap) if gap else "") + " KQRBNP  kqrbnp"[m], 0
        else:
            gap += 1
    return text + (str(gap) if gap else "")


def _chess(codec: str) -> _Chess | None:
    m = re.fullmatch(r"chess:([A-Za-z]+)(:symmetric)?", codec)
    w = None if m is None else re.fullmatch(r"(K[QRBNP]*)(K[QRBNP]*)", m[1].upper())
    if m is None or w is None or len(m[1]) > 4:
        return None
    men = sorted([1 + LETTERS.index(c) for c in w[1]] + [9 + LETTERS.index(c) for c in w[2]])
    return _Chess(tuple(men), m[2] is not None)
