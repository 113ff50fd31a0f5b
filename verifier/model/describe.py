"""One description per semantics: what its answers mean and how they read.

Everything that knows what a result *means* reads a ``Description``: the native view of its
solvers, whose win a value means (the point of view), the words of its values, the names of the
owners, the key of its ``expect`` block, how far a remoteness counts, and the factory of its
equation system. Adding a semantics is one description here plus its readers, solvers and checks.

>>> d = describe(Semantics.NORMAL)
>>> d.view.value, d.expect_key, d.point_of_view, d.word(-1)
('label', 'labels', 'the player to move', 'lost')
>>> describe(Semantics.REACHABILITY).show(1)
0
>>> describe(Semantics.NORMAL).wins(np.array([1, -1, 0])).tolist()
[True, False, False]
>>> from verifier.model.semantics import NOBODY
>>> describe(Semantics.REACHABILITY).to_move(np.array([MAX, MIN, NOBODY]), MAX).tolist()
[True, False, True]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model.bounds import MAX_EXACT
from verifier.model.columns import LOOPY, VALUE, Column
from verifier.model.graph import GameGraph
from verifier.model.results import View
from verifier.model.semantics import LOST, MAX, MIN, UNKNOWN, WON, Semantics

__all__ = [
    "DESCRIPTIONS",
    "LABEL_SYNONYMS",
    "LABEL_WORDS",
    "ROOT_VALUE",
    "Description",
    "describe",
    "describe_view",
    "grundy_text",
    "is_grundy_value",
]

LABEL_WORDS: Mapping[int, str] = MappingProxyType({WON: "won", LOST: "lost", UNKNOWN: "draw"})
LABEL_SYNONYMS: Mapping[str, str] = MappingProxyType({"unknown": "draw"})
"""Words read as others: Knuth's ``unknown`` (TAOCP 2.2.3 ex. 28) is a ``draw``."""
"""The words of the won/lost labels (Knuth's ``unknown`` for what the rules leave undecided)."""

WIN, LOSS, DRAW = 1, -1, 0
"""Outcomes from a description's point of view."""

ROOT_VALUE = "root_value"
"""The key of the ``expect`` block that holds the root's value, in every semantics."""

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


def _one_of(words: Iterable[str]) -> str:
    """``'won', 'lost' or 'draw'``: the words quoted, for messages."""
    quoted = [repr(w) for w in words]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else "".join(quoted)


def _plain_number(v: Any) -> Any:
    v = float(v)
    if v != v:
        return None
    return int(v) if v.is_integer() and abs(v) < MAX_EXACT else v


def _equations_minimax(g: GameGraph) -> Any:
    from verifier.equations.system import OrderSystem

    return OrderSystem.minimax(g)


def _equations_normal(g: GameGraph) -> Any:
    from verifier.equations.system import OrderSystem

    return OrderSystem.normal(g)


def _equations_reachability(g: GameGraph) -> Any:
    from verifier.equations.system import OrderSystem

    return OrderSystem.reachability(g)


@dataclass(frozen=True)
class Description:
    """What the answers of one semantics mean (see the module docstring)."""

    semantics: Semantics
    view: View
    """The view of the semantics' own solvers (others convert to it or are compared in theirs)."""
    point_of_view: str
    """Whose win a positive outcome means: ``Max``, ``player 0`` or ``the player to move``."""
    expect_key: str
    """The key of the ``expect`` block that holds per-node answers in this view."""
    value_title: str
    """What a value is called: ``score``, ``label``, ``winner``, ``Grundy value``."""
    remoteness_title: str
    """What the remoteness column counts for this semantics."""
    words: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    """Stored value -> word, for semantics whose values are words (labels)."""
    owner_names: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    """Owner code -> name, for semantics whose nodes have owners."""
    equations: Callable[[GameGraph], Any] | None = None
    """The factory of its equation system (an ``OrderSystem`` for the three two-valued-order
    semantics; ``None`` for ``impartial``, whose mex equations are built by ``smt.mex``)."""
    column_name: str = "value"
    """A short name for a table column of these values (the Parquet output of
    ``verifier.distributed``): ``value``, ``label``, ``region`` or ``grundy``."""
    others_move: int | None = None
    """The owner code of the player who moves at the nodes of every other code (``reachability``:
    player 0, whose nodes are the ``OR`` nodes of its equations); ``None``: each player moves at
    its own nodes only."""
    expect_extra: frozenset[str] = frozenset()
    """The other keys of the ``expect`` block that fit this semantics, beyond ``expect_key``
    and ``root_value`` (which fits every semantics): ``intervals``, ``remoteness``, ..."""
    value_shape: str = ""
    """What one value looks like in a case file (``root_value``), for messages."""
    synonyms: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Input words read as one of ``words`` (never written)."""
    rules: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The local rule of a node's value in words, by kind of node (``target``, ``leaf``,
    ``inner:<owner>`` or ``inner``), ``{want}`` standing for the value the rule gives."""

    # -------------------------------------------------------------- one value
    def word(self, stored: int) -> str:
        """The word of a stored label (``ValueError`` if the semantics has no words)."""
        if not self.words:
            raise ValueError(f"{self.semantics.value} values are not words")
        return self.words[int(stored)]

    def show(self, stored: Any, kset: Iterable[int] | None = None) -> Any:
        """One stored value as the case format writes it: a score, ``won`` / ``lost`` /
        ``unknown``, the winner 0 / 1, a Grundy value (``"inf(K)"`` when ``kset`` is given)."""
        if self.view is View.LABEL:
            return self.word(int(stored))
        if self.view is View.REGION:
            return 0 if int(stored) == 1 else 1
        if self.view is View.GRUNDY:
            return grundy_text(kset) if kset is not None else int(stored)
        return _plain_number(stored)

    def show_node(self, columns: Mapping[str, Column], x: int) -> Any:
        """Node ``x``'s value in an answer's columns, as ``show`` writes it (``None`` where the
        answer has no value there): an infinite Grundy value reads ``"inf(K)"``."""
        inf = columns.get(LOOPY)
        if inf is not None and inf.given[x]:
            return self.show(-1, kset=inf.data[x])
        v = columns[VALUE]
        return self.show(v.data[x]) if v.given[x] else None

    def in_words(self, shown: Any, remoteness: int | None = None) -> str:
        """A value as ``show`` writes it, in words for a sentence: ``lost``, ``score 3``, ``won
        by player 0``, ``Grundy value 2``; with ``remoteness``, how far (``won in 3 plies``).

        >>> describe(Semantics.MINIMAX).in_words(-1, 2)
        'score -1 in 2 plies'
        >>> describe(Semantics.REACHABILITY).in_words(0, 1)
        'won by player 0 in 1 move'
        """
        if self.view is View.LABEL:
            words = str(shown)
        elif self.view is View.REGION:
            words = f"won by player {shown}"
        elif self.view is View.GRUNDY:
            words = f"Grundy value {shown}"
        else:
            words = f"score {_plain_number(shown) if isinstance(shown, float) else shown}"
        if remoteness is None or remoteness < 0:
            return words
        unit = "move" if self.view is View.REGION else "ply"
        units = "moves" if self.view is View.REGION else "plies"
        return f"{words} in {remoteness} {unit if remoteness == 1 else units}"

    def rule(self, g: GameGraph, x: int, want: Any) -> str:
        """Node ``x``'s rule in words, saying it gives ``want`` (for a person reading why a
        claimed value is wrong)."""
        if g.target[x] and "target" in self.rules:
            key = "target"
        elif g.out_degree[x] == 0 and "leaf" in self.rules:
            key = "leaf"
        else:
            key = f"inner:{int(g.owner[x])}"
            key = key if key in self.rules else "inner"
        return self.rules[key].format(want=want)

    def owner_name(self, code: int) -> str:
        """The name of owner code ``code`` (``""`` if the semantics has no such owner)."""
        return self.owner_names.get(int(code), "")

    def to_move(self, owner: NDArray[Any], code: int) -> NDArray[np.bool_]:
        """Per node: the player of owner code ``code`` chooses the move there (its own nodes,
        and those of any other code when it is ``others_move``)."""
        o = np.asarray(owner)
        if code != self.others_move:
            return np.asarray(o == code, dtype=np.bool_)
        rivals = [c for c in self.owner_names if c != code]
        return np.asarray(~np.isin(o, rivals), dtype=np.bool_)

    @property
    def expect_keys(self) -> frozenset[str]:
        """Every key of the ``expect`` block that fits this semantics."""
        return frozenset({self.expect_key, ROOT_VALUE}) | self.expect_extra

    def fits(self, v: float | str) -> bool:
        """Is ``v``, a value as read from a case file (every number a float), one value of this
        semantics (see ``value_shape``)?"""
        if self.view is View.LABEL:
            return self.canonical(v) in self.words.values()
        if self.view is View.REGION:
            return isinstance(v, float) and v in (0.0, 1.0)
        if self.view is View.GRUNDY:
            return is_grundy_value(v)
        return isinstance(v, float)

    def canonical(self, v: Any) -> Any:
        """``v`` with an input synonym replaced by the word this semantics writes."""
        return self.synonyms.get(v, v) if isinstance(v, str) else v

    # -------------------------------------------------------------- whole arrays
    def outcome(
        self, values: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.int8]:
        """Per node: +1 a win, -1 a loss, 0 a draw, from ``point_of_view``. For Grundy values
        an N position (value > 0) is a win for the mover, a P position (0) a loss, an infinite
        value inf(K) a win when 0 is in K and a draw otherwise (``loopy`` holds the K's)."""
        v = np.asarray(values)
        if self.view is View.REGION:
            return np.where(v == 1, WIN, LOSS).astype(np.int8)
        if self.view is View.GRUNDY:
            out = np.where(v > 0, WIN, np.where(v == 0, LOSS, DRAW)).astype(np.int8)
            for x, k in (loopy or {}).items():
                out[int(x)] = WIN if 0 in set(k) else DRAW
            return out
        # the sign by two comparisons (a NaN is neither): one byte per node, no float copies
        out = (v > 0).astype(np.int8)
        out -= v < 0
        return out

    def wins(
        self, values: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.bool_]:
        """Per node: the ``point_of_view`` player wins (a won label, a node of W, a positive
        score, an N position)."""
        return np.asarray(self.outcome(values, loopy) == WIN, dtype=np.bool_)

    def loses(
        self, values: NDArray[Any], loopy: Mapping[int, Iterable[int]] | None = None
    ) -> NDArray[np.bool_]:
        """Per node: the ``point_of_view`` player loses (so the other player wins there)."""
        return np.asarray(self.outcome(values, loopy) == LOSS, dtype=np.bool_)


DESCRIPTIONS: Mapping[Semantics, Description] = MappingProxyType(
    {
        Semantics.MINIMAX: Description(
            Semantics.MINIMAX,
            View.SCORE,
            point_of_view="Max",
            expect_key="values",
            value_title="score",
            remoteness_title="plies until the winner forces a leaf at least as good (Kars)",
            owner_names=MappingProxyType({MAX: "Max", MIN: "Min"}),
            equations=_equations_minimax,
            column_name="value",
            expect_extra=frozenset({"intervals", "remoteness", "unique"}),
            value_shape="a number",
            rules=MappingProxyType(
                {
                    "leaf": "a leaf's score is its value t, here {want}",
                    f"inner:{MAX}": "a Max node's score is the largest of its successors' "
                    "scores, here {want}",
                    f"inner:{MIN}": "a Min node's score is the smallest of its successors' "
                    "scores, here {want}",
                }
            ),
        ),
        Semantics.NORMAL: Description(
            Semantics.NORMAL,
            View.LABEL,
            point_of_view="the player to move",
            expect_key="labels",
            value_title="label",
            remoteness_title="plies to the end: the winner hurries, the loser delays",
            words=LABEL_WORDS,
            synonyms=LABEL_SYNONYMS,
            equations=_equations_normal,
            column_name="label",
            expect_extra=frozenset({"remoteness", "unique"}),
            value_shape=_one_of([*LABEL_WORDS.values(), *LABEL_SYNONYMS]),
            rules=MappingProxyType(
                {
                    "leaf": "a position without moves is {want!r} for the player to move",
                    "inner": "won iff some successor is lost, lost iff every successor is won, "
                    "a draw otherwise: the successors' labels make it {want!r}",
                }
            ),
        ),
        Semantics.REACHABILITY: Description(
            Semantics.REACHABILITY,
            View.REGION,
            point_of_view="player 0",
            expect_key="winner",
            value_title="winner",
            remoteness_title="attractor layer: moves player 0 needs to reach the target",
            owner_names=MappingProxyType({MAX: "player 0", MIN: "player 1"}),
            equations=_equations_reachability,
            column_name="region",
            others_move=MAX,
            expect_extra=frozenset({"remoteness"}),
            value_shape="the winner, 0 or 1",
            rules=MappingProxyType(
                {
                    "target": "a target is player 0's: the winner is {want}",
                    "leaf": "a dead end off the target is 1's: the winner is {want}",
                    f"inner:{MAX}": "player 0 moves: he wins iff some successor is player 0's: "
                    "the winner is {want}",
                    f"inner:{MIN}": "player 1 moves: 0 wins iff every successor is player 0's: "
                    "the winner is {want}",
                }
            ),
        ),
        Semantics.IMPARTIAL: Description(
            Semantics.IMPARTIAL,
            View.GRUNDY,
            point_of_view="the player to move",
            expect_key="grundy",
            value_title="Grundy value",
            remoteness_title="plies to the end",
            column_name="grundy",
            expect_extra=frozenset({"sums", "unique"}),
            value_shape="a Grundy value (an integer >= 0, 'inf' or 'inf(0,2)')",
            rules=MappingProxyType(
                {"inner": "a Grundy value is the mex of its successors' values, here {want}"}
            ),
        ),
    }
)
"""The description of every semantics."""


def describe(semantics: Semantics) -> Description:
    """The description of ``semantics``."""
    return DESCRIPTIONS[semantics]


def describe_view(view: View) -> Description:
    """The description of the semantics whose native view is ``view``."""
    for d in DESCRIPTIONS.values():
        if d.view is view:
            return d
    raise KeyError(view)
