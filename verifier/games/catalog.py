"""Game families by name, for the command line: ``nim``, ``subtraction:1,2,3``, ``octal:.07``
(or just ``.07``), ``grundy`` (Grundy's game).

Examples
--------
>>> grundy_sequence("subtraction:1,2,3", 7)
[0, 1, 2, 3, 0, 1, 2, 3]
>>> grundy_sequence("subtraction", 7, s=[1, 2])
[0, 1, 2, 0, 1, 2, 0, 1]
>>> analyse_sequence("octal:.77", 200).period
12
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from verifier.games.grundys_game import grundys_game, grundys_sequence
from verifier.games.heap_sequences import HeapMoves, Progress, heap_sequence
from verifier.games.heaps import DEFAULT_MAX_NODES
from verifier.games.nim import nim_heaps
from verifier.games.octal import OctalCode, octal_game, octal_sequence, parse_octal
from verifier.games.periodicity import Periodicity, find_period
from verifier.games.subtraction import (
    parse_subtraction_set,
    subtraction_game,
    subtraction_sequence,
)
from verifier.model import Case

__all__ = [
    "FAMILIES",
    "GameSpec",
    "SequenceReport",
    "analyse_sequence",
    "game_case",
    "grundy_sequence",
    "parse_game",
]


FAMILIES = "nim, subtraction:1,2,3, octal:.07 (or .07), grundy"
"""The families :func:`parse_game` takes, as its errors and ``verifier grundy``'s help list
them."""


@dataclass(frozen=True)
class GameSpec:
    """A parsed game name."""

    family: str
    """``nim``, ``subtraction``, ``octal`` or ``grundy``."""
    subtraction: frozenset[int] = frozenset()
    octal: OctalCode | None = None

    @property
    def max_removal(self) -> int | None:
        """``t`` for the octal periodicity theorem (subtraction S is the octal game with digit 3
        at each s in S, so ``t = max S``); ``None`` when the theorem does not apply."""
        if self.family == "subtraction":
            return max(self.subtraction)
        if self.octal is not None:
            return self.octal.max_removal
        return None

    @property
    def moves(self) -> HeapMoves:
        """The moves of one heap, for the compiled sequence kernels (not for nim)."""
        if self.family == "subtraction":
            return HeapMoves.subtraction(self.subtraction)
        if self.octal is not None:
            return HeapMoves.octal(self.octal)
        if self.family == "grundy":
            return HeapMoves.grundys_game()
        raise ValueError(f"{self.family}: no heap moves (nim's values are the heap sizes)")

    def __str__(self) -> str:
        if self.family == "subtraction":
            return "subtraction:" + ",".join(map(str, sorted(self.subtraction)))
        if self.octal is not None:
            return "octal:" + self.octal.text
        return self.family


def parse_game(name: str, *, s: Iterable[int] | None = None) -> GameSpec:
    """Parse a game name; ``s`` gives the subtraction set when ``name`` is just
    ``"subtraction"``. Raises ``ValueError`` quoting the name if it is not understood."""
    text = name.strip()
    family, _, arg = text.partition(":")
    family = family.lower()
    if text.startswith(".") or (text[:1].isdigit() and "." in text):
        family, arg = "octal", text
    if family == "nim" and not arg:
        return GameSpec("nim")
    if family in ("grundy", "grundys", "grundys-game") and not arg:
        return GameSpec("grundy")
    if family == "subtraction":
        if arg and s is not None:
            raise ValueError(f"subtraction set given twice: {name!r} and s={list(s)!r}")
        if arg:
            return GameSpec("subtraction", subtraction=parse_subtraction_set(arg))
        if s is None:
            raise ValueError("'subtraction' needs a set: 'subtraction:1,2,3' or s=[1, 2, 3]")
        return GameSpec("subtraction", subtraction=parse_subtraction_set(",".join(map(str, s))))
    if family == "octal" and arg:
        return GameSpec("octal", octal=parse_octal(arg))
    raise ValueError(f"unknown game {name!r}: expected {FAMILIES}")


def grundy_sequence(
    game: str | GameSpec, upto: int, *, s: Iterable[int] | None = None
) -> list[int]:
    """Grundy values of heaps ``0..upto`` of a game family (``s``: the subtraction set)."""
    spec = game if isinstance(game, GameSpec) else parse_game(game, s=s)
    if upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    if spec.family == "nim":
        return list(range(upto + 1))
    if spec.family == "subtraction":
        return subtraction_sequence(spec.subtraction, upto)
    if spec.octal is not None:
        return octal_sequence(spec.octal, upto)
    return grundys_sequence(upto)


def game_case(
    game: str | GameSpec,
    upto: int,
    *,
    s: Iterable[int] | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Case:
    """The ``impartial`` case of heaps ``0..upto`` (heap ``n`` is node ``n``)."""
    spec = game if isinstance(game, GameSpec) else parse_game(game, s=s)
    if spec.family == "nim":
        return nim_heaps(upto)
    if spec.family == "subtraction":
        return subtraction_game(spec.subtraction, upto)
    if spec.octal is not None:
        return octal_game(spec.octal, upto, max_nodes=max_nodes)
    return grundys_game(upto, max_nodes=max_nodes)


@dataclass(frozen=True)
class SequenceReport:
    """What ``verifier grundy GAME --upto N`` prints."""

    game: str
    values: tuple[int, ...]
    periodicity: Periodicity | None
    computed: int | None = None
    """Heaps ``0..computed-1`` computed by the mex, the rest given by the certified period
    (None: every value computed)."""

    @property
    def period(self) -> int | None:
        return self.periodicity.period if self.periodicity else None


def analyse_sequence(
    game: str | GameSpec,
    upto: int,
    *,
    s: Iterable[int] | None = None,
    max_period: int | None = None,
    progress: Progress | None = None,
) -> SequenceReport:
    """The value sequence and its (pre-period, period), certified by the octal periodicity
    theorem where it applies (octal and subtraction games; not nim, not Grundy's game).

    The values come from the compiled kernels (:mod:`verifier.games.heap_sequences`); once
    the theorem certifies a period, the values beyond follow from it without a search.
    """
    spec = game if isinstance(game, GameSpec) else parse_game(game, s=s)
    if upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    if spec.family == "nim":
        values, computed, per = list(range(upto + 1)), None, None
    else:
        found = heap_sequence(
            spec.moves,
            upto,
            max_removal=spec.max_removal if max_period is None else None,
            progress=progress,
        )
        values, per = found.values.tolist(), found.periodicity
        computed = found.computed if found.computed <= upto else None
    if per is None:
        per = find_period(values, max_removal=spec.max_removal, max_period=max_period)
    return SequenceReport(str(spec), tuple(values), per, computed)
