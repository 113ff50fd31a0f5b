"""Readable names of generated positions, stored as codes: a ``.npz`` case of a generated game
keeps one uint64 code per position (``name_codes``) and the codec's name in its header
(``name_codec``) instead of a JSON list of strings; the names are decoded when read
(``LazyNames``). A 47-million-position Connect Four case loads without building 47 million
strings.

Codecs: ``connect4:WxH`` (``verifier.games.connect4``'s position codes). Codes read from a file
are checked before any is decoded: each must be a position code of the board (every column
holds its marker bit, nothing above the board) and no two alike.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.games._board import LazyNames

__all__ = ["codec_names"]

_CONNECT4 = re.compile(r"connect4:([1-9][0-9]?)x([1-9][0-9]?)\Z")


def codec_names(codec: str, codes: NDArray[Any]) -> LazyNames:
    """The names of ``codes`` under ``codec`` (``ValueError`` saying what is wrong)."""
    from verifier.games.connect4 import Board

    m = _CONNECT4.match(codec)
    if m is None:
        raise ValueError(f"unknown name codec {codec!r} (known: connect4:WxH)")
    board = Board(int(m.group(1)), int(m.group(2)))
    if codes.ndim != 1 or codes.dtype != np.uint64:
        raise ValueError(f"name codes must be a 1-d uint64 array, got {codes.dtype}{codes.shape}")
    column = np.uint64((1 << board.col) - 1)
    bad = (codes >> np.uint64(board.width * board.col)) != 0
    for c in range(board.width):
        bad |= ((codes >> np.uint64(c * board.col)) & column) == 0  # no marker bit
    hit = np.flatnonzero(bad)
    if len(hit):
        raise ValueError(f"code {int(codes[hit[0]])} at {int(hit[0])} is no {codec} position")
    ordered = np.sort(codes)  # a sort: numpy 2.4's hash-based unique is several times slower
    if len(codes) > 1 and bool((ordered[1:] == ordered[:-1]).any()):
        raise ValueError("two positions share a code")
    return LazyNames(codes, board.name, board.names, codec=codec)
