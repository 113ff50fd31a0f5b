"""Connect Four on a small board (``width`` x ``height``, four in a row) as a ``normal`` game.

Positions reachable from the empty board, built layer by layer (a layer = all positions with
the same number of stones) on numpy arrays of bitboards. Play stops at a win: a position where
the previous player has four in a row is a terminal lost for the mover (the default label); a
full board without a line is a terminal labelled draw (0).

Bitboard encoding (John Tromp's, as in Pascal Pons' solver): column ``c`` uses bits
``c * (height + 1) ... c * (height + 1) + height - 1`` from the bottom up, and one spare bit on
top so that shifts never carry a line from one column into the next. A position is ``(cur,
mask)``: the stones of the player to move and all stones. Its code ``cur + mask + bottom``
(``bottom`` = the lowest bit of every column) is unique: in each column it is the mover's stones
plus one marker bit just above the highest stone. Node ids follow the layers, and inside a layer
the codes in increasing order.

Node names draw the board row by row from the top, rows separated by ``/``: ``x`` the first
player, ``o`` the second, ``.`` empty (``"..../..../..../x..."`` after x played in column 0).

Examples
--------
>>> case = generate(4, 4)
>>> case.graph.name(case.root)
'..../..../..../....'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import LazyNames, normal_case_csr, unique_inverse
from verifier.games.name_codecs import board_names
from verifier.games.protocol import Game
from verifier.games.registry import SYMMETRY, BuiltinGame, Codec, Example, Option, TieredForm
from verifier.model import Case
from verifier.model.graph import index_dtype

__all__ = ["GAME", "Board", "ConnectFour", "generate", "has_four", "orbit_sizes", "position_name"]

U64 = np.uint64
_BYTE_ONES = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


def stone_count(bits: Codes) -> NDArray[np.int64]:
    """The set bits of each code (numpy 2's ``bitwise_count``; before it, a table per byte)."""
    count = getattr(np, "bitwise_count", None)
    if count is not None:
        return np.asarray(count(bits), dtype=np.int64)
    by_byte = _BYTE_ONES[np.ascontiguousarray(bits).view(np.uint8).reshape(-1, 8)]
    return np.asarray(by_byte.sum(axis=1), dtype=np.int64)


Codes = NDArray[np.uint64]


class Board:
    """Bit layout of a ``width`` x ``height`` board (the helpers work on arrays of bitboards)."""

    def __init__(self, width: int, height: int) -> None:
        if width < 1 or height < 1 or width * (height + 1) > 63:
            raise ValueError(f"unsupported Connect Four board {width}x{height}")
        self.width, self.height = width, height
        self.col = height + 1
        self.bottom = sum(1 << (c * self.col) for c in range(width))
        self.full = sum(((1 << height) - 1) << (c * self.col) for c in range(width))

    def bottom_of(self, c: int) -> int:
        return 1 << (c * self.col)

    def top_of(self, c: int) -> int:
        return 1 << (c * self.col + self.height - 1)

    def mirror(self, bits: Codes) -> Codes:
        """The bitboards reflected left to right (column ``c`` becomes ``width - 1 - c``)."""
        out = np.zeros_like(bits)
        column = U64((1 << self.col) - 1)
        for c in range(self.width):
            part = (bits >> U64(c * self.col)) & column
            out |= part << U64((self.width - 1 - c) * self.col)
        return out

    def has_four(self, stones: Codes) -> NDArray[np.bool_]:
        """Which bitboards contain four in a row (vertical, horizontal, both diagonals)."""
        found = np.zeros(stones.shape, dtype=np.bool_)
        for shift in (1, self.col, self.col - 1, self.col + 1):
            s = U64(shift)
            pairs = stones & (stones >> s)
            found |= (pairs & (pairs >> (s + s))) != 0
        return found

    def code(self, cur: Codes, mask: Codes) -> Codes:
        return cur + mask + U64(self.bottom)

    def decode(self, code: int) -> tuple[int, int]:
        """``(cur, mask)`` of a position code."""
        cur = mask = 0
        for c in range(self.width):
            column = (code >> (c * self.col)) & ((1 << self.col) - 1)
            k = column.bit_length() - 1  # stones in the column: the marker bit is bit k
            cur |= (column ^ (1 << k)) << (c * self.col)
            mask |= ((1 << k) - 1) << (c * self.col)
        return cur, mask

    def decode_all(self, codes: Codes) -> tuple[Codes, Codes]:
        """:meth:`decode` of every code at once: ``(cur, mask)`` arrays."""
        mask, _ = self.stones_below_markers(codes)
        return codes - mask - U64(self.bottom), mask

    def stones_below_markers(self, codes: Codes) -> tuple[Codes, NDArray[np.bool_]]:
        """Each code's stones (every column's bits below its highest set bit, its marker) and
        whether it is a board at all (each column has its marker, no bit past the last
        column). A column's set bits are copied down inside it (shifts 1, 2, 4, ...), so that
        its field is all ones from the marker down, then shifted once more without it."""
        full = codes
        shift = 1
        while shift < self.col:
            keep = sum(((1 << (self.col - shift)) - 1) << (c * self.col) for c in range(self.width))
            full = full | ((full >> U64(shift)) & U64(keep))
            shift *= 2
        low = sum(((1 << (self.col - 1)) - 1) << (c * self.col) for c in range(self.width))
        ok = ((codes >> U64(self.width * self.col)) == 0) & (
            (full & U64(self.bottom)) == U64(self.bottom)
        )
        return (full >> U64(1)) & U64(low), ok

    def moves(
        self, cur: Codes, mask: Codes, live: NDArray[np.intp]
    ) -> tuple[Codes, Codes, NDArray[np.intp]]:
        """The children of the positions ``live`` (indices into ``cur`` and ``mask``), column by
        column: ``(cur, mask, parent)`` of every child, ``cur`` the stones of the player to move
        in the child (the opponent of the parent's mover)."""
        child_cur: list[Codes] = []
        child_mask: list[Codes] = []
        parent: list[NDArray[np.intp]] = []
        for c in range(self.width):
            ok = live[(mask[live] & U64(self.top_of(c))) == 0]
            m = mask[ok]
            child_cur.append(cur[ok] ^ m)  # the opponent's stones: it moves next
            child_mask.append(m | (m + U64(self.bottom_of(c))))
            parent.append(ok)
        return np.concatenate(child_cur), np.concatenate(child_mask), np.concatenate(parent)

    def name(self, code: int) -> str:
        """The board of a position code (``x`` moved first)."""
        cur, mask = self.decode(code)
        mover = "x" if mask.bit_count() % 2 == 0 else "o"
        other = "o" if mover == "x" else "x"
        rows = []
        for r in reversed(range(self.height)):
            row = ""
            for c in range(self.width):
                bit = 1 << (c * self.col + r)
                row += (mover if cur & bit else other) if mask & bit else "."
            rows.append(row)
        return "/".join(rows)

    def names(self, codes: Codes) -> NDArray[np.bytes_]:
        """:meth:`name` of every code at once, as ASCII bytes (vectorized: a lookup table of
        the ``2 ** (height + 1)`` column codes, then one gather per column)."""
        h, w = self.height, self.width
        column_codes = np.arange(1 << self.col)
        stones = np.array([max(int(v).bit_length() - 1, 0) for v in column_codes])
        # per column code and row: 0 empty, 1 the mover's stone, 2 the other player's
        cells = np.zeros((1 << self.col, h), dtype=np.int8)
        for v in range(1, 1 << self.col):
            for r in range(stones[v]):
                cells[v, r] = 1 if (v >> r) & 1 else 2
        chars = np.array([[b".", b"x", b"o"], [b".", b"o", b"x"]]).view(np.uint8)
        n = len(codes)
        cols = [
            ((codes >> U64(c * self.col)) & U64((1 << self.col) - 1)).astype(np.int64)
            for c in range(w)
        ]
        parity = np.zeros(n, dtype=np.int64)
        for k in cols:
            parity += stones[k]
        parity %= 2
        out = np.full((n, h, w + 1), ord("/"), dtype=np.uint8)
        for c, k in enumerate(cols):
            board_rows = chars.reshape(2, 3)[parity[:, None], cells[k]]  # (n, h), bottom up
            out[:, :, c] = board_rows[:, ::-1]  # rows from the top
        flat = np.ascontiguousarray(out.reshape(n, h * (w + 1))[:, :-1])
        return flat.view(f"S{h * (w + 1) - 1}").ravel()


def has_four(board: Board, stones: int) -> bool:
    """Whether one bitboard contains four in a row."""
    return bool(board.has_four(np.array([stones], dtype=U64))[0])


def orbit_sizes(names: Sequence[str]) -> NDArray[np.int64]:
    """How many positions each named class stands for: 1 if the board is its own mirror image,
    else 2 (from the position codes at numpy speed when the names are the generator's)."""
    codec = getattr(names, "codec", None)
    if codec is not None and codec.startswith("connect4:"):
        board = codec.removeprefix("connect4:").removesuffix(":symmetric")
        width, height = (int(k) for k in board.split("x"))
        codes = names.codes  # type: ignore[attr-defined]
        # a code holds each column's stones and marker bit: mirroring it mirrors the board
        return np.where(Board(width, height).mirror(codes) == codes, 1, 2).astype(np.int64)
    return np.array(
        [1 if all(row == row[::-1] for row in x.split("/")) else 2 for x in names],
        dtype=np.int64,
    )


def position_name(width: int, height: int, code: int) -> str:
    """The readable name of a position code on a ``width`` x ``height`` board."""
    return Board(width, height).name(code)


def generate(width: int = 4, height: int = 4, symmetry: bool = False) -> Case:
    """The Connect Four graph of a ``width`` x ``height`` board, from the empty board.

    ``symmetry``: positions are identified with their mirror image (left to right); a class is
    represented by the one of the two with the smaller code (the names' codec says
    ``connect4:WxH:symmetric``, so that a stored case's classes are known from its codes).
    """
    board = Board(width, height)
    cur = np.zeros(1, dtype=U64)
    mask = np.zeros(1, dtype=U64)
    layer_codes = board.code(cur, mask)
    codes: list[Codes] = []
    labels: list[NDArray[np.int8]] = []  # per layer: -1 lost (or inner), 0 a drawn full board
    degrees: list[NDArray[np.uint8]] = []  # per layer: each position's number of moves
    dsts: list[NDArray[np.signedinteger[Any]]] = []  # per layer: targets by (source, target)
    offset = 0
    # Memory: a layer's temporaries are freed as soon as they are used, and what is kept per
    # position is 8 bytes of code, 1 of label, 1 of degree and 4 per move (int32 targets).
    for stones in range(width * height + 1):
        size = len(cur)
        codes.append(layer_codes)
        lost = board.has_four(mask ^ cur)  # the previous player has just made four
        label = np.full(size, -1, dtype=np.int8)  # inner positions get NaN in normal_case_csr
        if stones == width * height:
            label[~lost] = 0  # a full board without four in a row: a draw
            labels.append(label)
            degrees.append(np.zeros(size, dtype=np.uint8))
            break
        labels.append(label)
        live = np.flatnonzero(~lost)
        del lost
        all_cur, all_mask, parents = board.moves(cur, mask, live)  # parents: ids in the layer
        del live
        child_codes = board.code(all_cur, all_mask)
        if symmetry:
            m_cur, m_mask = board.mirror(all_cur), board.mirror(all_mask)
            m_codes = board.code(m_cur, m_mask)
            flip = m_codes < child_codes
            del m_codes
            all_cur = np.where(flip, m_cur, all_cur)
            all_mask = np.where(flip, m_mask, all_mask)
            del m_cur, m_mask
            child_codes = board.code(all_cur, all_mask)
            del flip
        layer_codes, first, targets = unique_inverse(child_codes)
        del child_codes
        cur, mask = all_cur[first], all_mask[first]
        del all_cur, all_mask, first
        # the layer's moves sorted by (source, target) in one key, so that the layers
        # concatenate into the CSR arrays; with symmetry two mirror-image children of one
        # parent are one move
        k = len(layer_codes)
        key = parents * k
        del parents
        key += targets
        del targets
        key.sort()
        if symmetry and len(key) > 1:
            key = key[np.concatenate(([True], key[1:] != key[:-1]))]
        degrees.append(np.bincount(key // k, minlength=size).astype(np.uint8))
        key %= k
        key += offset + size
        dsts.append(key.astype(index_dtype(offset + size + k), copy=False))
        del key
        offset += size
    all_codes = np.concatenate(codes)
    del codes
    codec = f"connect4:{width}x{height}" + (":symmetric" if symmetry else "")
    names = LazyNames(all_codes, board.name, board.names, codec=codec)
    ptr = np.zeros(len(all_codes) + 1, dtype=np.int64)
    np.cumsum(np.concatenate(degrees), out=ptr[1:], dtype=np.int64)
    del degrees
    idx = np.concatenate(dsts)
    del dsts
    value = np.concatenate(labels)  # int8: normal_case_csr makes the one float copy
    del labels
    return normal_case_csr(
        names,
        ptr,
        idx,
        value,
        case_id=f"connect4-{width}x{height}" + ("-symmetric" if symmetry else ""),
        source=f"verifier.games.connect4 (width={width}, height={height}"
        + (", symmetry=True)" if symmetry else ")"),
        root=0,
        description=f"Connect Four on a {width}x{height} board (four in a row), every position "
        "reachable from the empty board; rows from the top, x moves first"
        + ("; positions up to the left-right mirror" if symmetry else ""),
    )


Columns = tuple[str, ...]
"""A position on the game protocol: each column's stones from the bottom, ``x`` or ``o``."""


class ConnectFour(Game):
    """Connect Four on the game protocol (``verifier generate verifier.games.connect4:ConnectFour
    --param width=5 --param height=4 --param symmetry=1``): the same graph as :func:`generate`,
    which stays the fast path (``tests/games/test_protocol_builtin.py``)."""

    semantics = "normal"

    def __init__(self, width: int = 4, height: int = 4, symmetry: int = 0) -> None:
        self.board, self.symmetry = Board(width, height), bool(symmetry)

    def initial(self) -> Columns:
        return ("",) * self.board.width

    def _mover(self, cols: Columns) -> str:
        return "x" if sum(map(len, cols)) % 2 == 0 else "o"

    def _four(self, cols: Columns, stone: str) -> bool:
        """Whether ``stone`` has four in a row (down a column, along a row or a diagonal)."""
        w, h = self.board.width, self.board.height

        def at(c: int, r: int) -> bool:
            return 0 <= c < w and 0 <= r < len(cols[c]) and cols[c][r] == stone

        steps = ((0, 1), (1, 0), (1, 1), (1, -1))
        return any(
            all(at(c + i * dc, r + i * dr) for i in range(4))
            for c in range(w)
            for r in range(h)
            for dc, dr in steps
        )

    def outcome(self, cols: Columns) -> str | None:
        """Lost for the mover when the other player has four; a draw on a full board."""
        if self._four(cols, "o" if self._mover(cols) == "x" else "x"):
            return "lost"
        return "draw" if all(len(col) == self.board.height for col in cols) else None

    def moves(self, cols: Columns) -> list[Columns]:
        if self.outcome(cols) is not None:
            return []
        stone = self._mover(cols)
        return [
            (*cols[:c], cols[c] + stone, *cols[c + 1 :])
            for c in range(self.board.width)
            if len(cols[c]) < self.board.height
        ]

    def key(self, cols: Columns) -> str:
        """The board's rows from the top (:meth:`Board.name`)."""
        rows = range(self.board.height - 1, -1, -1)
        return "/".join("".join(col[r] if r < len(col) else "." for col in cols) for r in rows)

    def _code(self, cols: Columns) -> int:
        """:meth:`Board.code`: per column the mover's stones below a marker bit."""
        stone = self._mover(cols)
        return sum(
            (sum(1 << r for r, s in enumerate(col) if s == stone) + (1 << len(col)))
            << (c * self.board.col)
            for c, col in enumerate(cols)
        )

    def canonical(self, cols: Columns) -> Columns:
        """With symmetry, the board or its mirror image, whichever has the smaller code."""
        if not self.symmetry:
            return cols
        mirror = cols[::-1]
        return mirror if self._code(mirror) < self._code(cols) else cols


_CODEC = re.compile(r"connect4:([1-9][0-9]?)x([1-9][0-9]?)(:symmetric)?\Z")


def _codec_names(codec: str, codes: NDArray[Any]) -> LazyNames:
    """The names of a ``.npz`` file's codes under ``connect4:WxH[:symmetric]`` (checked; with
    ``:symmetric`` each code must be the smaller of a board's and its mirror image's)."""
    m = _CODEC.match(codec)
    if m is None:
        raise ValueError(f"unknown name codec {codec!r} (known: connect4:WxH[:symmetric])")
    board = Board(int(m.group(1)), int(m.group(2)))
    names = board_names(board, codec, codes)
    if m.group(3):
        wrong = np.flatnonzero(board.mirror(codes) < codes)
        if len(wrong):
            at = int(wrong[0])
            raise ValueError(f"code {int(codes[at])} at {at} is no {codec} position (its mirror's)")
    return names


GAME = BuiltinGame(
    "connect4",
    "Connect Four on a width x height board",
    generate,
    options=(
        Option("width", int, "connect4 board width."),
        Option("height", int, "connect4 board height."),
        SYMMETRY,
    ),
    protocol=ConnectFour,
    class_sizes=lambda case: (
        orbit_sizes(case.graph.names)
        if case.id.startswith("connect4-") and case.id.endswith("-symmetric")
        else None
    ),
    examples=tuple(
        Example(f"connect4-{w}x{h}{tail}", "connect4", {"width": w, "height": h, "symmetry": sym})
        for w, h in ((3, 3), (4, 3))
        for sym, tail in ((False, ""), (True, "-symmetric"))
    ),
    codec=Codec("connect4:WxH[:symmetric]", _codec_names),
    order=30,
    tiers=TieredForm(
        "connect4",
        "verifier.games.tiered.connect4_generate:generate_tiers",
        rules="verifier.games.tiered.connect4:ConnectFourTiers",
        resume="after its last written tier",
        again=lambda p: f"connect4 --width {p.get('width')} --height {p.get('height')}",
        source=(
            r"verifier\.games\.connect4 \(width=(\d+), height=(\d+)(, symmetry=True)?\)",
            "connect4 --width {0} --height {1}",
        ),
        classes="positions up to the mirror",
        names="verifier.games.tiered.connect4:position_names",
    ),
)
