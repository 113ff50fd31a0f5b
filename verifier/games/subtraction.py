"""Subtraction games: a move removes ``s`` counters from the heap for some ``s`` in a finite set S.

``S = {1, 2, 3}`` gives ``g(n) = n mod 4``. A finite subtraction game is the octal game whose code
has the digit 3 at each position ``s`` in S (remove ``s``, leaving nothing or one heap).

Examples
--------
>>> subtraction_sequence({1, 2, 3}, 9)
[0, 1, 2, 3, 0, 1, 2, 3, 0, 1]
"""

from __future__ import annotations

from collections.abc import Iterable

from verifier.games.heaps import HeapGame, HeapRule, heap_case, sequence_from_rule
from verifier.games.registry import UPTO, BuiltinGame, Example
from verifier.model import Case

__all__ = [
    "GAME",
    "SubtractionGame",
    "parse_subtraction_set",
    "subtraction_game",
    "subtraction_rule",
    "subtraction_sequence",
]


def parse_subtraction_set(text: str) -> frozenset[int]:
    """``"1,2,3"`` or ``"{1, 2, 3}"`` -> ``frozenset({1, 2, 3})`` (positive integers only)."""
    body = text.strip().removeprefix("{").removesuffix("}")
    try:
        s = frozenset(int(part) for part in body.split(",") if part.strip())
    except ValueError:
        raise ValueError(
            f"subtraction set must be positive integers like '1,2,3': {text!r}"
        ) from None
    return _checked(s)


def _checked(s: Iterable[int]) -> frozenset[int]:
    fs = frozenset(s)
    if not fs or min(fs) < 1:
        raise ValueError(f"subtraction set must be non-empty positive integers, got {sorted(fs)}")
    return fs


def subtraction_rule(s: Iterable[int]) -> HeapRule:
    """The heap rule of the subtraction game S."""
    subtract = sorted(_checked(s))

    def rule(n: int) -> list[tuple[int, ...]]:
        return [(n - k,) if n > k else () for k in subtract if k <= n]

    return rule


def subtraction_sequence(s: Iterable[int], upto: int) -> list[int]:
    """Grundy values of heaps ``0..upto`` of the subtraction game S."""
    return sequence_from_rule(subtraction_rule(s), upto)


def subtraction_game(s: Iterable[int], upto: int) -> Case:
    """Heaps ``0..upto`` of the subtraction game S as a case (heap ``n`` is node ``n``)."""
    fs = _checked(s)
    label = ",".join(map(str, sorted(fs)))
    return heap_case(
        subtraction_rule(fs),
        upto,
        case_id=f"subtraction-{label.replace(',', '-')}-{upto}",
        source=f"subtraction game S = {{{label}}} (generator verifier.games.subtraction)",
        expect_values=subtraction_sequence(fs, upto),
    )


class SubtractionGame(HeapGame):
    """A subtraction game on the game protocol, every heap ``0..upto`` (``verifier generate
    verifier.games.subtraction:SubtractionGame --param s=1,2,3 --param upto=30``): the same
    graph as :func:`subtraction_game`, which stays the fast path
    (``tests/games/test_protocol_builtin.py``)."""

    def __init__(self, s: str | int = "1,2,3", upto: int = 20) -> None:
        super().__init__(subtraction_rule(parse_subtraction_set(str(s))), upto)


GAME = BuiltinGame(
    "subtraction",
    "subtraction game with set S, e.g. subtraction:1,2,3",
    lambda s, upto: subtraction_game(parse_subtraction_set(s), upto),
    options=(UPTO,),
    protocol=SubtractionGame,
    argument="S",
    parse=parse_subtraction_set,
    examples=(Example("subtraction-1,2,3-30", "subtraction:1,2,3", {"upto": 30}),),
    order=90,
)
