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


class Rules:
    """The encoding of one board size, on arrays of codes (``uint64``)."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h, self.col = width, height, height + 1
        self.field = U((1 << self.col) - 1)
        self.bottom = U(sum(1 << (c * self.col) for c in range(width)))
        # per column field: its stones (the marker bit's position), -1 for no marker
        self.heights = np.array([v.bit_length() - 1 for v in range(1 << self.col)], np.int64)

    def columns(self, codes: Any) -> list[Any]:
        return [((codes >> U(c * self.col)) & self.field).astype(np.intp) for c in range(self.w)]

    def decode(self, codes: Any) -> tuple[Any, Any, Any]:
        """``(cur, mask, ok)``: the mover's stones, all stones, whether every column has its
        marker and no bit is set above the last column (a board at all)."""
        mask = np.zeros_like(codes)
        ok = (codes >> U(self.w * self.col)) == 0
        for c, f in enumerate(self.columns(codes)):
            k = self.heights[f]
            ok &= k >= 0
            below = (U(1) << np.maximum(k, 0).astype(U)) - U(1)
            mask |= below << U(c * self.col)
        return codes - mask - self.bottom, mask, ok

    def stones(self, codes: Any) -> Any:
        """The number of stones of each code's board."""
        return sum(np.maximum(self.heights[f], 0) for f in self.columns(codes))

    def mover_stones(self, cur: Any) -> Any:
        """The number of stones in each bitboard ``cur`` (a table per column field)."""
        ones = np.array([v.bit_count() for v in range(1 << self.col)], np.int64)
        return sum(ones[f] for f in self.columns(cur))

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
        for c, f in enumerate(self.columns(codes)):
            out |= f.astype(U) << U((self.w - 1 - c) * self.col)
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
