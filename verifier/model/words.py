"""Counted nouns in English: ``count(1, "ply") == "1 ply"``, ``count(31, "ply") == "31 plies"``.

>>> count(1, "query"), count(3, "query"), count(0, "node"), count(2, "move"), count(1, "entry")
('1 query', '3 queries', '0 nodes', '2 moves', '1 entry')
>>> count(12345, "position", sep=True)
'12,345 positions'
"""

from __future__ import annotations

__all__ = ["count", "plural"]


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
