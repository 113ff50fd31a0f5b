"""Readable names of generated positions, stored as codes: a ``.npz`` case of a generated game
keeps one uint64 code per position (``name_codes``) and the codec's name in its header
(``name_codec``) instead of a JSON list of strings; the names are decoded when read
(``LazyNames``). A 47-million-position Connect Four case loads without building 47 million
strings.

Codecs: those the games declare (``BuiltinGame.codec``, :mod:`verifier.games.registry`):
``connect4:WxH[:symmetric]`` (``verifier.games.connect4``'s position codes; with
``:symmetric`` each the smaller of a board's and its mirror image's), ``chess:MATERIAL[:symmetric]``
(``verifier.games.chess``). Codes read from a file are checked before any is decoded
(:func:`board_names`): each must be a position code of the board (every column holds its marker
bit, nothing above the board) and no two alike. The standalone checker decodes the same codecs
with its own code (``checker/name_codecs.py``). The check runs
a block of codes at a time (temporaries stay in the cache: the 94,910,577 codes of 6x4 in
1.6 s, where whole-array passes and a sort took 10 s); codes in the generator's order, by
number of stones and then increasing, are distinct without a sort, any other order is sorted.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import LazyNames

__all__ = ["board_names", "codec_names"]

_BLOCK = 1 << 15


class Board(Protocol):
    """A board of columns of stones below a marker bit (``verifier.games.connect4.Board``)."""

    width: int
    col: int

    def name(self, code: int) -> str: ...

    def names(self, codes: NDArray[np.uint64]) -> NDArray[np.bytes_]: ...


def codec_names(codec: str, codes: NDArray[Any]) -> LazyNames:
    """The names of ``codes`` under ``codec`` (``ValueError`` saying what is wrong)."""
    from verifier.games.registry import builtin_games

    coders = [g.codec for g in builtin_games() if g.codec is not None]
    for coder in coders:
        if codec.partition(":")[0] == coder.form.partition(":")[0]:
            return coder.names(codec, codes)
    known = ", ".join(c.form for c in coders)
    raise ValueError(f"unknown name codec {codec!r} (known: {known})")


def board_names(board: Board, codec: str, codes: NDArray[Any]) -> LazyNames:
    """The names of ``codes``, positions of ``board``, checked."""
    if codes.ndim != 1 or codes.dtype != np.uint64:
        raise ValueError(f"name codes must be a 1-d uint64 array, got {codes.dtype}{codes.shape}")
    _check_codes(board, codes, codec)
    return LazyNames(codes, board.name, board.names, codec=codec)


def _check_codes(board: Board, codes: NDArray[np.uint64], codec: str) -> None:
    """``ValueError`` unless every code is a position of ``board`` and no two are alike.

    Each column's bits are its stones below a marker bit: a column value ``v`` holds
    ``bit_length(v) - 1`` stones, and ``v = 0`` (no marker) is no position. If the pairs
    (stones, code) strictly increase along the array, the codes are distinct (equal codes would
    give equal pairs); the generator writes them in that order (layer by layer, codes increasing
    inside a layer). Otherwise the codes are sorted to look for a repeat."""
    col, width = board.col, board.width
    column = np.uint64((1 << col) - 1)
    lookup = col <= 16  # a table of every column value's stone count (-1: no marker bit)
    table = np.array([int(v).bit_length() - 1 for v in range(1 << col)] if lookup else [0], np.int8)
    increasing = lookup
    last_stones, last_code = -1, np.uint64(0)
    for lo in range(0, len(codes), _BLOCK):
        chunk = codes[lo : lo + _BLOCK]
        bad = (chunk >> np.uint64(width * col)) != 0
        stones = np.zeros(len(chunk), dtype=np.int8)  # at most 63 stones
        for c in range(width):
            v = (chunk >> np.uint64(c * col)) & column
            if lookup:
                k = table[v]
                bad |= k < 0
                stones += k
            else:
                bad |= v == 0
        hit = np.flatnonzero(bad)
        if len(hit):
            at = lo + int(hit[0])
            raise ValueError(f"code {int(codes[at])} at {at} is no {codec} position")
        if increasing:
            st = np.concatenate(([last_stones], stones))
            cd = np.concatenate(([last_code], chunk))
            up = (st[1:] > st[:-1]) | ((st[1:] == st[:-1]) & (cd[1:] > cd[:-1]))
            increasing = bool(up.all())
            last_stones, last_code = int(stones[-1]), chunk[-1]
    if increasing:
        return
    ordered = np.sort(codes)  # a sort: numpy 2.4's hash-based unique is several times slower
    if len(codes) > 1 and bool((ordered[1:] == ordered[:-1]).any()):
        raise ValueError("two positions share a code")
