"""The per-view part of a ``Description``: how the values of one view are stored, read, written
and said (issue 45 item 6). A ``Description`` holds one ``ViewForm``, ``d.form``; nothing
outside the model branches on a ``View`` to learn what a value means.

>>> from verifier.model.results import View
>>> SCORE.view is View.SCORE, REGION.show(None, 1), REGION.stored(None, 0.0)
(True, 0, 1)
>>> GRUNDY.verdict(0, "loss", None)
'Grundy value 0: the player to move loses (a P position)'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import Enum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from verifier.errors import NotApplicable
from verifier.model.bounds import MAX_EXACT
from verifier.model.results import View
from verifier.model.semantics import MAX


class Description(Protocol):
    """What a view form reads of its ``model.describe.Description`` (no import: describe
    imports this module)."""

    @property
    def words(self) -> Mapping[int, str]: ...

    def word(self, stored: int) -> str: ...

    def canonical(self, v: Any) -> Any: ...


__all__ = [
    "GRUNDY",
    "LABEL",
    "REGION",
    "SCORE",
    "PerView",
    "Registry",
    "ViewForm",
    "grundy_text",
    "is_grundy_value",
]

WIN, LOSS, DRAW = 1, -1, 0
"""Outcomes from a description's point of view."""

_GRUNDY_TEXT = re.compile(r"inf(\([0-9]+(,[0-9]+)*\))?")


def grundy_text(k: Iterable[int] | None, finite: int | None = None) -> str:
    """A Grundy value as written in case files: ``"3"``, ``"inf"`` or ``"inf(0,2)"``."""
    if finite is not None:
        return str(finite)
    ks = sorted(k or ())
    return "inf(" + ",".join(map(str, ks)) + ")" if ks else "inf"


def is_grundy_value(v: float | str) -> bool:
    """Is ``v`` a Grundy value of a case file: a whole number ``>= 0``, ``"inf"`` or
    ``"inf(K)"`` (``grundy_text`` of an infinite value)?"""
    if isinstance(v, str):
        return _GRUNDY_TEXT.fullmatch(v) is not None
    return float(v).is_integer() and v >= 0


def _plain_number(v: Any) -> Any:
    v = float(v)
    if v != v:
        return None
    return int(v) if v.is_integer() and abs(v) < MAX_EXACT else v


def _plies(n: int | None, unit: str = "plies") -> str:
    if n is None:
        return ""
    one = {"plies": "ply", "moves": "move"}.get(unit, unit)
    return f" in {n} {one if n == 1 else unit}"


Floats = NDArray[np.float64]


class ViewForm:
    """How the values of one view are stored, read, written and said. The base is the score
    view's (numbers of an ordered domain, stored as they are); each other view overrides
    what differs."""

    view: ClassVar[View] = View.SCORE
    value_dtype: ClassVar[Any] = np.float64
    """The dtype of the stored values (``Answers.values``, a solver's ``value`` column)."""
    file_dtype: ClassVar[Any] = np.float64
    """The dtype of the ``value`` column an npz / Parquet answer file writes."""
    infinite_values: ClassVar[bool] = False
    """A value may be infinite, ``inf(K)`` (the loopy Grundy values)."""
    values_are_codes: ClassVar[bool] = False
    """A stored number is a code that reads otherwise (a label's word, the winner)."""
    drawn_marks: ClassVar[tuple[str, str] | None] = None
    """How a drawing of the graph marks a node won by the point of view / not, instead of its
    value (``None``: the value is drawn)."""

    # -------------------------------------------------------------- one value
    def show(self, d: Description, stored: Any, kset: Iterable[int] | None = None) -> Any:
        """One stored value as the case format writes it (``Description.show``)."""
        return _plain_number(stored)

    def said(self, shown: Any) -> str:
        """A value as ``show`` writes it, in words for a sentence (without how far)."""
        return f"score {_plain_number(shown) if isinstance(shown, float) else shown}"

    def fits(self, d: Description, v: float | str) -> bool:
        """Is ``v``, as read from a case file (every number a float), one value of this view?"""
        return isinstance(v, float)

    def stored(self, d: Description, v: Any) -> Any:
        """A value as read (``fits``) in the stored form (inverse of ``show``)."""
        return float(v)

    def verdict(self, v: Any, outcome: str | None, remoteness: int | None) -> str:
        """Who wins from a position of value ``v`` (shown) and outcome ``win`` / ``loss`` /
        ``draw``, and by what, in words."""
        if outcome == "draw":
            return "a draw (score 0)"
        who = "Max" if outcome == "win" else "Min"
        return f"{who} wins, score {v}{_plies(remoteness)}"

    def for_mover(self, owner: int, outcome: int, value: float) -> tuple[float, int]:
        """How good a move is for the player of owner code ``owner`` to move, the position it
        leads to having ``outcome`` (from the point of view) and stored ``value``: (result,
        sign of remoteness preference), larger first."""
        mine = value if owner == MAX else -value
        return mine, (1 if mine > 0 else -1)

    # -------------------------------------------------------------- whole arrays
    def outcome(
        self, v: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.int8]:
        """Per node: +1 a win, -1 a loss, 0 a draw (``Description.outcome``)."""
        # the sign by two comparisons (a NaN is neither): one byte per node, no float copies
        out = (v > 0).astype(np.int8)
        out -= v < 0
        return out

    def from_numbers(
        self, v: Floats, infinite: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[Any]]:
        """A column of numbers as read from an answer file: (rows that are no value of this
        view, the values in the stored form), ``infinite`` the rows that have a K."""
        return ~np.isfinite(v), v

    def file_numbers(self, stored: NDArray[Any]) -> NDArray[Any]:
        """Stored values as the numbers an answer file writes (inverse of ``from_numbers``)."""
        return stored


class _Score(ViewForm):
    """Minimax: a score, Max's point of view."""


class _MoverAlternates(ViewForm):
    """The views from the mover's point of view (labels, Grundy values): the opponent moves
    at the next position."""

    def for_mover(self, owner: int, outcome: int, value: float) -> tuple[float, int]:
        return float(-outcome), -outcome


class _Label(_MoverAlternates):
    """Normal play: won / lost / draw, the mover's point of view."""

    view = View.LABEL
    value_dtype = np.int8
    file_dtype = np.int64
    values_are_codes = True

    def show(self, d: Description, stored: Any, kset: Iterable[int] | None = None) -> Any:
        return d.word(int(stored))

    def said(self, shown: Any) -> str:
        return str(shown)

    def fits(self, d: Description, v: float | str) -> bool:
        return d.canonical(v) in d.words.values()

    def stored(self, d: Description, v: Any) -> Any:
        return next(k for k, w in d.words.items() if w == d.canonical(v))

    def verdict(self, v: Any, outcome: str | None, remoteness: int | None) -> str:
        if outcome == "win":
            return f"the player to move wins{_plies(remoteness)}"
        if outcome == "loss":
            extra = " (the longest defence)" if remoteness else ""
            return f"the player to move loses{_plies(remoteness)}{extra}"
        return "a draw: neither side can force a win"

    def from_numbers(
        self, v: Floats, infinite: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[Any]]:
        return ~np.isin(v, (-1.0, 0.0, 1.0)), v


class _Region(ViewForm):
    """Reachability: player 0's winning region W (stored 1), written as the winner 0 / 1."""

    view = View.REGION
    value_dtype = np.int8
    file_dtype = np.int64
    values_are_codes = True
    drawn_marks = ("W", "-")

    def show(self, d: Description, stored: Any, kset: Iterable[int] | None = None) -> Any:
        return 0 if int(stored) == 1 else 1

    def said(self, shown: Any) -> str:
        return f"won by player {shown}"

    def fits(self, d: Description, v: float | str) -> bool:
        return isinstance(v, float) and v in (0.0, 1.0)

    def stored(self, d: Description, v: Any) -> Any:
        return 1 if float(v) == 0.0 else 0

    def verdict(self, v: Any, outcome: str | None, remoteness: int | None) -> str:
        if v == 0:
            return f"player 0 reaches the target{_plies(remoteness, 'moves')}"
        return "player 1 keeps play away from the target"

    def for_mover(self, owner: int, outcome: int, value: float) -> tuple[float, int]:
        mine = outcome if owner == MAX else -outcome
        return float(mine), mine

    def outcome(
        self, v: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.int8]:
        return np.where(v == 1, WIN, LOSS).astype(np.int8)

    def from_numbers(
        self, v: Floats, infinite: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[Any]]:
        return ~np.isin(v, (0.0, 1.0)), np.where(v == 0.0, 1, 0)  # the winner -> W

    def file_numbers(self, stored: NDArray[Any]) -> NDArray[Any]:
        return np.where(stored == 1, 0, 1)  # the winner, as in the other encodings


class _Grundy(_MoverAlternates):
    """Impartial: a Grundy value, finite or ``inf(K)`` (stored -1, K beside it)."""

    view = View.GRUNDY
    value_dtype = np.int64
    file_dtype = np.int64
    infinite_values = True

    def show(self, d: Description, stored: Any, kset: Iterable[int] | None = None) -> Any:
        return grundy_text(kset) if kset is not None else int(stored)

    def said(self, shown: Any) -> str:
        return f"Grundy value {shown}"

    def fits(self, d: Description, v: float | str) -> bool:
        return is_grundy_value(v)

    def stored(self, d: Description, v: Any) -> Any:
        return int(float(v))

    def verdict(self, v: Any, outcome: str | None, remoteness: int | None) -> str:
        if outcome == "win":
            return f"Grundy value {v}: the player to move wins (an N position)"
        if outcome == "loss":
            return f"Grundy value {v}: the player to move loses (a P position)"
        return f"Grundy value {v}: a draw, play can go on forever"

    def outcome(
        self, v: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.int8]:
        out = np.where(v > 0, WIN, np.where(v == 0, LOSS, DRAW)).astype(np.int8)
        for x, k in (loopy or {}).items():
            out[int(x)] = WIN if 0 in set(k) else DRAW
        return out

    def from_numbers(
        self, v: Floats, infinite: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[Any]]:
        whole = np.isfinite(v) & (v == np.floor(v))
        bad = ~infinite & ~(whole & (v >= 0))
        return bad, np.where(infinite, -1.0, np.where(whole, v, 0.0))


SCORE: ViewForm = _Score()
LABEL: ViewForm = _Label()
REGION: ViewForm = _Region()
GRUNDY: ViewForm = _Grundy()


T = TypeVar("T")


E = TypeVar("E", bound=Enum)


class Registry(Generic[E, T]):
    """One implementation per key (a semantics, a view) for one purpose, declared where it is
    written (``@table.register(key)``). Looking up a key without one raises ``NotApplicable``:
    it never falls through to another's; ``in`` says whether there is one."""

    def __init__(self, purpose: str, missing: str, key_words: str = "{}") -> None:
        self.purpose = purpose
        self.missing = missing
        """The message of ``NotApplicable`` (``{purpose}``; ``{key}``: the key's value)."""
        self._key_words = key_words
        self._by: dict[E, T] = {}

    def register(self, *keys: E) -> Callable[[T], T]:
        """Declare ``what`` as the implementation for each of ``keys``."""

        def put(what: T) -> T:
            for key in keys:
                if key in self._by:
                    where = self._key_words.format(key.value)
                    raise ValueError(f"{self.purpose} for {where} declared twice")
                self._by[key] = what
            return what

        return put

    def __getitem__(self, key: E) -> T:
        try:
            return self._by[key]
        except KeyError:
            raise NotApplicable(self._missing(key)) from None

    def _missing(self, key: E) -> str:
        return self.missing.format(purpose=self.purpose, key=key.value)

    def __contains__(self, key: object) -> bool:
        return key in self._by

    def __iter__(self) -> Iterator[E]:
        return iter(self._by)

    def items(self) -> list[tuple[E, T]]:
        """Every declared ``(key, implementation)``, in declaration order."""
        return list(self._by.items())


class PerView(Registry[View, T]):
    """One implementation per view for one purpose, declared where it is written
    (``@table.register(View.X)``), as ``PerSemantics`` declares per-semantics code a
    ``Description`` cannot hold (Z3 queries, the linear checkers).

    >>> t: PerView[int] = PerView("test table")
    >>> t.register(View.LABEL)(1), View.LABEL in t, View.SCORE in t, list(t)
    (1, True, False, [<View.LABEL: 'label'>])
    >>> t[View.SCORE]
    Traceback (most recent call last):
    ...
    verifier.errors.NotApplicable: no test table for the score view
    """

    def __init__(self, purpose: str) -> None:
        super().__init__(purpose, "no {purpose} for the {key} view", "the {} view")
