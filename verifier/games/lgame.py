"""Edward de Bono's L-game as a ``normal`` game: you lose when your L cannot move.

The board is 4 x 4 (cells ``r * 4 + c``, row 0 on top). Each player has an L piece (four cells;
eight orientations, 48 placements on the board) and there are two identical neutral one-cell
pieces. A move: put your L on a different placement (it may be turned or flipped and may reuse
its own cells, but must not cover the other L or a neutral piece), then optionally move one
neutral piece to any empty cell. A player whose L has no other placement loses; no labels are
needed (a position without moves is lost for the mover).

A position is seen from the player to move: ``(mover, other, a, b)`` with the placements of the
mover's and the other L (indices into :data:`PLACEMENTS`) and the neutral cells ``a < b``. Its
name draws the board row by row, rows separated by ``/``: ``X`` the mover's L, ``Y`` the other
L, ``n`` a neutral piece, ``.`` empty. The start position (the root) is::

    nXX./.YX./.YX./.YYn   i.e. "nXX./.YX./.YX./.YYn"

Every legal position is a node (not only those reachable from the start): 656 ordered pairs of
non-overlapping L placements times C(8, 2) = 28 neutral placements = 18368 positions. With
``symmetry=True`` positions are identified up to the 8 symmetries of the board (2296 classes,
each represented by its least image as a tuple).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import explore, normal_case, square_map, square_symmetries
from verifier.games.protocol import Game
from verifier.games.registry import SYMMETRY, BuiltinGame, Example
from verifier.model import Case

__all__ = [
    "GAME",
    "PLACEMENTS",
    "START",
    "LGame",
    "Position",
    "all_positions",
    "board_name",
    "canonical",
    "generate",
    "moves",
    "orbit_sizes",
    "parse_name",
]

Position = tuple[int, int, int, int]
"""``(mover placement, other placement, neutral a, neutral b)`` with ``a < b``."""

SIZE = 4
SYMMETRIES = square_symmetries(SIZE)


def _placements() -> tuple[int, ...]:
    # The L of cells (0,0), (1,0), (2,0), (2,1) under the 8 symmetries, at every offset.
    base = ((0, 0), (1, 0), (2, 0), (2, 1))
    shapes: set[frozenset[tuple[int, int]]] = set()
    for g in range(8):
        cells = [square_map(g, r, c, 0) for r, c in base]
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        shapes.add(frozenset((r - r0, c - c0) for r, c in cells))
    masks = set()
    for shape in shapes:
        for dr in range(SIZE):
            for dc in range(SIZE):
                if all(r + dr < SIZE and c + dc < SIZE for r, c in shape):
                    masks.add(sum(1 << ((r + dr) * SIZE + c + dc) for r, c in shape))
    return tuple(sorted(masks))


PLACEMENTS: tuple[int, ...] = _placements()
"""The 48 placements of an L on the board, as 16-bit cell masks (sorted)."""
_INDEX = {mask: i for i, mask in enumerate(PLACEMENTS)}


def _map_mask(mask: int, perm: tuple[int, ...]) -> int:
    return sum(1 << i for i in range(SIZE * SIZE) if mask >> perm[i] & 1)


# _SYM_PLACE[g][p]: the placement p becomes under symmetry g; _SYM_CELL[g][x] likewise for cells.
_SYM_PLACE = tuple(tuple(_INDEX[_map_mask(m, perm)] for m in PLACEMENTS) for perm in SYMMETRIES)
_SYM_CELL = tuple(tuple(perm.index(x) for x in range(SIZE * SIZE)) for perm in SYMMETRIES)


def _cells(mask: int) -> list[int]:
    return [i for i in range(SIZE * SIZE) if mask >> i & 1]


START: Position = (
    _INDEX[sum(1 << x for x in (1, 2, 6, 10))],
    _INDEX[sum(1 << x for x in (5, 9, 13, 14))],
    0,
    15,
)
"""The usual start: the Ls interlocked in the middle, neutrals in opposite corners."""


def all_positions() -> Iterator[Position]:
    """Every legal position: two non-overlapping Ls, two neutrals on distinct empty cells."""
    for i, mi in enumerate(PLACEMENTS):
        for j, mj in enumerate(PLACEMENTS):
            if mi & mj:
                continue
            free = [x for x in range(SIZE * SIZE) if not (mi | mj) >> x & 1]
            for a, b in combinations(free, 2):
                yield (i, j, a, b)


def moves(pos: Position) -> list[Position]:
    """The positions the mover can reach, from the new mover's (the opponent's) view."""
    mover, other, a, b = pos
    blocked = PLACEMENTS[other] | 1 << a | 1 << b
    out: list[Position] = []
    for p, mask in enumerate(PLACEMENTS):
        if p == mover or mask & blocked:
            continue
        out.append((other, p, a, b))  # no neutral moved
        empty = [x for x in range(SIZE * SIZE) if not (blocked | mask) >> x & 1]
        for e in empty:
            out.append((other, p, min(e, b), max(e, b)))  # neutral a moved to e
            out.append((other, p, min(a, e), max(a, e)))  # neutral b moved to e
    return out


def _image(pos: Position, g: int) -> Position:
    mover, other, a, b = pos
    x, y = _SYM_CELL[g][a], _SYM_CELL[g][b]
    return (_SYM_PLACE[g][mover], _SYM_PLACE[g][other], min(x, y), max(x, y))


def board_name(pos: Position) -> str:
    """The board drawn row by row (``X`` mover, ``Y`` other, ``n`` neutral, ``.`` empty)."""
    mover, other, a, b = pos
    cells = ["."] * (SIZE * SIZE)
    for x in _cells(PLACEMENTS[mover]):
        cells[x] = "X"
    for x in _cells(PLACEMENTS[other]):
        cells[x] = "Y"
    cells[a] = cells[b] = "n"
    return "/".join("".join(cells[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))


def parse_name(name: str) -> Position:
    """The position a board name stands for (inverse of :func:`board_name`)."""
    cells = name.replace("/", "")
    if len(cells) != SIZE * SIZE:
        raise ValueError(f"not an L-game board: {name!r}")

    def mask(ch: str) -> int:
        return sum(1 << i for i, c in enumerate(cells) if c == ch)

    neutrals = [i for i, c in enumerate(cells) if c == "n"]
    if mask("X") not in _INDEX or mask("Y") not in _INDEX or len(neutrals) != 2:
        raise ValueError(f"not an L-game board: {name!r}")
    return (_INDEX[mask("X")], _INDEX[mask("Y")], neutrals[0], neutrals[1])


def canonical(pos: Position) -> Position:
    """The representative of ``pos`` up to symmetry: its least image (as a tuple)."""
    return min(_image(pos, g) for g in range(len(SYMMETRIES)))


def orbit_sizes(names: Sequence[str]) -> NDArray[np.int64]:
    """How many positions each named class stands for (8 divided by its stabiliser's order)."""
    return np.array(
        [len({_image(parse_name(x), g) for g in range(len(SYMMETRIES))}) for x in names],
        dtype=np.int64,
    )


def generate(symmetry: bool = False) -> Case:
    """The L-game graph on all legal positions (``symmetry``: up to the board's symmetries)."""
    if symmetry:
        roots = sorted({canonical(p) for p in all_positions()})
        positions, src, dst = explore(roots, lambda p: [canonical(y) for y in moves(p)])
        root = positions.index(canonical(START))
    else:
        positions, src, dst = explore(list(all_positions()), moves)
        root = positions.index(START)
    names = [board_name(p) for p in positions]
    return normal_case(
        names,
        src,
        dst,
        np.full(len(names), np.nan),
        case_id="lgame-symmetric" if symmetry else "lgame",
        source="verifier.games.lgame" + (" (symmetry=True)" if symmetry else ""),
        root=root,
        description="de Bono's L-game on all legal positions, seen from the player to move "
        "(X: mover's L, Y: other L, n: neutral); you lose when your L cannot move"
        + ("; positions up to the 8 symmetries of the board" if symmetry else ""),
    )


class LGame(Game):
    """The L-game on the game protocol, every legal position a start (``verifier generate
    verifier.games.lgame:LGame --param symmetry=1``): the same graph as :func:`generate`, which
    stays the fast path (``tests/games/test_protocol_builtin.py``)."""

    semantics = "normal"

    def __init__(self, symmetry: int = 0) -> None:
        self.symmetry = bool(symmetry)

    def initials(self) -> list[Position]:
        return list(all_positions())

    def moves(self, pos: Position) -> list[Position]:
        return moves(pos)

    def canonical(self, pos: Position) -> Position:
        return canonical(pos) if self.symmetry else pos

    def key(self, pos: Position) -> str:
        return board_name(pos)


GAME = BuiltinGame(
    "lgame",
    "de Bono's L-game on 4x4 (every legal position)",
    generate,
    options=(SYMMETRY,),
    protocol=LGame,
    class_sizes=lambda case: (
        orbit_sizes(case.graph.names) if case.id == "lgame-symmetric" else None
    ),
    examples=(
        Example("lgame", "lgame", {"symmetry": False}),
        Example("lgame-symmetric", "lgame", {"symmetry": True}, corpus="compact"),
    ),
    order=20,
)
