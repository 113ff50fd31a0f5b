"""Octal games given by their code ``d0.d1d2...dt`` (Guy & Smith 1956; Winning Ways ch. 4).

Digit ``d_j`` (an octal digit 0-7) says when ``j`` counters may be removed from one heap:

* bit 1: if that takes the whole heap (the heap had exactly ``j``);
* bit 2: if it leaves one non-empty heap;
* bit 4: if it leaves two non-empty heaps (the rest is split in two).

``d0`` (before the point) concerns removing nothing: only bit 4 makes sense (split a heap in two
without taking any counter, as in ``4.07``); ``0`` or an empty ``d0`` means no such move. Known
games: ``.77`` Kayles, ``.07`` Dawson's Kayles, ``.137`` Dawson's chess, ``.333`` = subtraction
{1, 2, 3}.

Examples
--------
>>> code = parse_octal(".07")
>>> code.digits, code.max_removal, code.splits
((0, 0, 7), 2, True)
>>> octal_sequence(".07", 10)
[0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.games.heaps import DEFAULT_MAX_NODES, HeapGame, heap_case, sequence_from_rule
from verifier.games.registry import UPTO, BuiltinGame, Example
from verifier.model import Case

__all__ = [
    "GAME",
    "OctalCode",
    "OctalGame",
    "octal_game",
    "octal_rule",
    "octal_sequence",
    "parse_octal",
]

_CODE = re.compile(r"^([0-7]?)\.([0-7]*)$")

_TAKE_ALL, _LEAVE_ONE, _LEAVE_TWO = 1, 2, 4


@dataclass(frozen=True)
class OctalCode:
    """A parsed octal code."""

    text: str
    """The code as given, e.g. ``".07"``."""
    digits: tuple[int, ...]
    """``(d0, d1, ..., dt)``; trailing zeros removed."""

    @property
    def max_removal(self) -> int:
        """``t``: the largest number of counters a move may remove (last non-zero digit)."""
        return len(self.digits) - 1

    @property
    def splits(self) -> bool:
        """True iff some move leaves two heaps (a digit with bit 4)."""
        return any(d & _LEAVE_TWO for d in self.digits)

    def options(self, n: int) -> list[tuple[int, ...]]:
        """Options of a heap of ``n`` counters: tuples of the non-empty heaps left behind."""
        result: list[tuple[int, ...]] = []
        for j, d in enumerate(self.digits):
            rest = n - j
            if rest < 0:
                break
            if d & _TAKE_ALL and rest == 0 and j > 0:
                result.append(())
            if d & _LEAVE_ONE and rest > 0 and j > 0:
                result.append((rest,))
            if d & _LEAVE_TWO:
                result.extend((rest - a, a) for a in range(1, rest // 2 + 1))
        return result


def parse_octal(text: str) -> OctalCode:
    """Parse ``".07"``, ``"0.77"``, ``"4.07"``, ``".137"``; ``ValueError`` quoting bad input."""
    m = _CODE.match(text.strip())
    if not m:
        raise ValueError(f"not an octal code (digits 0-7 around one point, e.g. '.07'): {text!r}")
    d0 = int(m.group(1) or "0")
    if d0 & (_TAKE_ALL | _LEAVE_ONE):
        raise ValueError(
            f"octal code {text!r}: d0 may only be 0 or 4 (removing nothing can only split a heap)"
        )
    digits = [d0, *(int(c) for c in m.group(2))]
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
    if not any(digits):
        raise ValueError(f"octal code {text!r} allows no move at all")
    return OctalCode(text=text.strip(), digits=tuple(digits))


def octal_rule(code: str | OctalCode) -> OctalCode:
    """The heap rule of an octal game (an :class:`OctalCode` is callable via ``.options``)."""
    return code if isinstance(code, OctalCode) else parse_octal(code)


def octal_sequence(code: str | OctalCode, upto: int) -> list[int]:
    """Grundy values of heaps ``0..upto`` of the octal game ``code``."""
    return sequence_from_rule(octal_rule(code).options, upto)


def octal_game(code: str | OctalCode, upto: int, *, max_nodes: int = DEFAULT_MAX_NODES) -> Case:
    """Heaps ``0..upto`` of an octal game as a case on multisets of heaps (heap ``n`` is node
    ``n``); ``expect.grundy`` of the single heaps comes from :func:`octal_sequence`."""
    oc = octal_rule(code)
    return heap_case(
        oc.options,
        upto,
        case_id=f"octal-{oc.text.lstrip('.') or '0'}-{upto}",
        source=f"octal game {oc.text} (generator verifier.games.octal)",
        expect_values=octal_sequence(oc, upto),
        max_nodes=max_nodes,
    )


class OctalGame(HeapGame):
    """An octal game on the game protocol, heaps ``0..upto`` (``verifier generate
    verifier.games.octal:OctalGame --param code=.07 --param upto=30``): the same graph as
    :func:`octal_game`."""

    def __init__(self, code: str = ".07", upto: int = 20) -> None:
        super().__init__(octal_rule(str(code)).options, upto)


def _is_code(text: str) -> bool:
    """Whether a game name is an octal code without ``octal:`` (``.07``, ``4.07``)."""
    return text.startswith(".") or (text[:1].isdigit() and "." in text)


GAME = BuiltinGame(
    "octal",
    "octal game by its code, e.g. octal:.07 (or just .07)",
    octal_game,
    options=(UPTO,),
    protocol=OctalGame,
    argument="CODE",
    parse=parse_octal,
    bare=_is_code,
    examples=(Example("octal-.07-30", "octal:.07", {"upto": 30}, study=False),),
    order=100,
)
