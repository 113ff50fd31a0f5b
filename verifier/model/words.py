"""Counted nouns in English: ``count(1, "ply") == "1 ply"``, ``count(31, "ply") == "31 plies"``.

>>> count(1, "query"), count(3, "query"), count(0, "node"), count(2, "move"), count(1, "entry")
('1 query', '3 queries', '0 nodes', '2 moves', '1 entry')
>>> count(12345, "position", sep=True)
'12,345 positions'

Numbers as a person writes them: ``number(5.0) == 5``, ``number(2.5) == 2.5``.

>>> [number(v) for v in (5.0, -1.0, 2.5, 7, "win")]
[5, -1, 2.5, 7, 'win']
"""

from __future__ import annotations

from typing import Any

from verifier.model.bounds import MAX_EXACT

__all__ = ["count", "number", "plural"]


def number(v: Any) -> Any:
    """A whole float as an int (``5.0`` prints ``5``); any other value as it is (``2.5``,
    words, ``inf``, NaN)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < MAX_EXACT:
        return int(v)
    return v


def plural(word: str) -> str:
    """The plural of a regular noun (``ply`` -> ``plies``, ``node`` -> ``nodes``)."""
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def count(n: int, word: str, *, sep: bool = False) -> str:
    """``n`` and the noun, singular for exactly one (``sep``: thousands separated by commas)."""
    number = f"{n:,}" if sep else str(n)
    return f"{number} {word if n == 1 else plural(word)}"
