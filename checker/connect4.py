"""Connect Four as the checker reads a dataset's codes: its own decoding and move generator,
written from the documented encoding (docs/distributed.md, "Tiers and shards"), numpy only.

A board ``width`` x ``height`` keeps ``height + 1`` bits per column, column ``c`` from bit
``c * (height + 1)`` up. A position's code, per column, holds the stones of the player to move
below one marker bit set just above the column's highest stone (an empty column: the marker
alone, its lowest bit). The first player (``x``) moves when the number of stones is even.
"""

from __future__ import annotations

from typing import Any

import numpy as np

U = np.uint64
_BYTE_ONES = np.array([bin(v).count("1") for v in range(256)], np.int64)


def ones(bits: Any) -> Any:
    """The number of set bits of each ``uint64`` (numpy 2's ``bitwise_count``, or by bytes)."""
    count = getattr(np, "bitwise_count", None)
    if count is not None:
        return count(bits).astype(np.int64)
    return _BYTE_ONES[np.ascontiguousarray(bits).view(np.uint8).reshape(-1, 8)].sum(axis=1)


class Rules:
    """The encoding of one board size, on arrays of codes (``uint64``)."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h, self.col = width, height, height + 1
        self.field = U((1 << self.col) - 1)
        self.bottom = U(sum(1 << (c * self.col) for c in range(width)))
        # the board's bits whose bit ``s`` higher is in the same column: ``s`` -> mask
        self.below = {
            s: U(sum(((1 << (self.col - s)) - 1) << (c * self.col) for c in range(width)))
            for s in range(1, self.col)
        }

    def decode(self, codes: Any) -> tuple[Any, Any, Any]:
        """``(cur, mask, ok)``: the mover's stones, all stones, whether every column has its
        marker and no bit is set above the last column (a board at all). A column's stones
        are the bits below its highest set bit (the marker): each bit's set bits are copied
        downwards inside its column (shifts 1, 2, 4, ...), then once more without the marker."""
        full = codes
        s = 1
        while s < self.col:
            full = full | ((full >> U(s)) & self.below[s])
            s *= 2
        mask = (full >> U(1)) & self.below[1]
        ok = ((codes >> U(self.w * self.col)) == 0) & ((full & self.bottom) == self.bottom)
        return codes - mask - self.bottom, mask, ok

    def stones(self, bits: Any) -> Any:
        """The number of set bits (stones) of each bitboard: ``mask`` counts a board's stones,
        ``cur`` the mover's."""
        return ones(bits)

    def four(self, bits: Any) -> Any:
        """Which bitboards hold four in a row: up, across, and both diagonals."""
        found = np.zeros(bits.shape, dtype=bool)
        for step in (1, self.col, self.col - 1, self.col + 1):
            two = bits & (bits >> U(step))
            found |= (two & (two >> U(2 * step))) != 0
        return found

    def mirror(self, codes: Any) -> Any:
        """Each code's board reflected left to right (column ``c`` <-> ``width - 1 - c``)."""
        out = np.zeros_like(codes)
        for c in range(self.w):
            f = (codes >> U(c * self.col)) & self.field
            out |= f << U((self.w - 1 - c) * self.col)
        return out

    def children(self, cur: Any, mask: Any) -> tuple[Any, Any]:
        """``(code, parent)`` of every move: a stone dropped in each column not full; the
        child's mover is the other player (its stones: ``mask ^ cur`` of the parent)."""
        codes, parents = [], []
        for c in range(self.w):
            top = U(1 << (c * self.col + self.h - 1))
            at = np.flatnonzero((mask & top) == 0)
            m = mask[at]
            child_mask = m | (m + U(1 << (c * self.col)))
            codes.append((m ^ cur[at]) + child_mask + self.bottom)
            parents.append(at)
        return np.concatenate(codes), np.concatenate(parents)

    def board(self, code: int) -> str:
        """The board of one code, rows from the top (``x`` moved first, ``.`` empty)."""
        fields = [(code >> (c * self.col)) & ((1 << self.col) - 1) for c in range(self.w)]
        n = sum(max(f.bit_length() - 1, 0) for f in fields)
        me, other = ("x", "o") if n % 2 == 0 else ("o", "x")
        rows = []
        for r in reversed(range(self.h)):
            cells = [
                (me if f >> r & 1 else other) if r < f.bit_length() - 1 else "." for f in fields
            ]
            rows.append("".join(cells))
        return "/".join(rows)
