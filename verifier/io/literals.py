"""Number literals as the JSON parser reads them: a literal that is not exactly ``repr`` of its
float keeps its text (:class:`FloatLiteral`), for the exactness checks of
:mod:`verifier.io.numbers`. Imported by :func:`verifier.io.jsonpath.parse_json`, so it imports
nothing of the package.

>>> seen: list[float] = []
>>> parse = literal_parser(seen)
>>> parse("0.5"), parse("0.10"), seen
(0.5, 0.10, [0.10])
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FloatLiteral", "literal_parser"]


class FloatLiteral(float):
    """A float parsed from a literal that is not exactly ``repr`` of it: it keeps the text."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> FloatLiteral:
        """The float of ``text``, remembering ``text``."""
        self = super().__new__(cls, text)
        self.text = text
        return self

    def __repr__(self) -> str:
        """The literal as written (messages quote what the file says)."""
        return self.text


def literal_parser(seen: list[float]) -> Callable[[str], float]:
    """A ``parse_float`` for ``json.loads`` that makes a :class:`FloatLiteral` of every literal
    which is not ``repr`` of its float, and appends it to ``seen``."""

    def parse(text: str) -> float:
        f = float(text)
        if repr(f) == text:
            return f
        lit = FloatLiteral(text)
        seen.append(lit)
        return lit

    return parse
