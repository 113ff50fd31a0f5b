"""A CSV answer's cells as numbers: counts, and the positions of a case without names, read a
column at a time by numpy where every cell is plain digits, else cell by cell (the first odd
cell named). Part of the standalone checker's numpy path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker.reading import loads
except ImportError:  # pragma: no cover - the script form
    from reading import loads  # type: ignore[import-not-found,no-redef]


def digits(column: list[str], canonical: bool = False) -> Any:
    """The cells as int64 (-1 where empty), a million in a few tenths of a second; ``None``
    unless every cell is empty or at most 18 ASCII digits (``canonical``: as ``str`` writes a
    whole number, no leading zero)."""
    every = "".join(column)
    if not column or not every.isascii() or not (every.isdigit() or not every):
        return None
    if max(map(len, column)) > 18:
        return None
    text = ",".join([v or "-1" for v in column] if "" in column else column)
    if canonical and ("," + text).count(",0") != column.count("0"):  # "0" alone, or "07"
        return None
    return np.fromstring(text, dtype=np.int64, sep=",")


def counts(column: list[str], blank: float) -> Any:
    """Whole numbers at least 0, ``blank`` where a cell is empty (``natural`` cell by cell,
    naming the first odd cell, unless ``digits`` reads them all)."""
    got = digits(column)
    if got is None:
        return [natural(v) if v else blank for v in column]
    return np.where(got < 0, blank, got)


def named(
    column: list[str], plain: bool, n: int, index: Callable[[], dict[str, int]], blank: Any = None
) -> Any:
    """The ids of the positions the cells name, ``blank`` where one is empty (``None``: an
    empty cell names none): by ``digits`` for a case without names (``plain``: "0".."n-1"),
    else by the names' ``index`` (a ``KeyError`` naming the first cell naming none)."""
    got = digits(column, canonical=True) if plain else None
    if got is not None and got.max(initial=-1) < n and (blank is not None or (got >= 0).all()):
        return got
    look = index() if blank is None else {**index(), "": blank}
    return list(map(look.__getitem__, column))


def natural(v: str) -> int:
    """A count as a CSV cell holds it: digits."""
    if not v.isdigit():
        raise ValueError(f"{v!r} is not a whole number at least 0")
    return int(v)


def number(v: str) -> float:
    """A minimax score as a CSV cell holds it: a JSON number."""
    x = loads(v)
    if type(x) not in (int, float):
        raise ValueError(f"{v!r} is not a number")
    return float(x)
