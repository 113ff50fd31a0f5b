"""One description per semantics: what its answers mean and how they read.

Everything that knows what a result *means* reads a ``Description``: the native view of its
solvers, whose win a value means (the point of view), the words of its values, the names of the
owners, the key of its ``expect`` block, how far a remoteness counts, and the factory of its
equation system. Adding a semantics is one description here plus its readers, solvers and checks.
The part that belongs to its view (how values are stored, read from and written to answer files,
shown and said) is the description's ``form`` (``model/views.py``).

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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from verifier.model.columns import LOOPY, REMOTENESS, VALUE, Column
from verifier.model.graph import GameGraph
from verifier.model.results import View
from verifier.model.semantics import LOST, MAX, MIN, UNKNOWN, WON, Semantics
from verifier.model.views import (
    GRUNDY,
    LABEL,
    LOSS,
    REGION,
    SCORE,
    WIN,
    Registry,
    ViewForm,
    grundy_text,
    is_grundy_value,
)
from verifier.model.words import count

__all__ = [
    "DESCRIPTIONS",
    "LABEL_SYNONYMS",
    "LABEL_WORDS",
    "ROOT_VALUE",
    "Description",
    "NodeRule",
    "PerSemantics",
    "describe",
    "describe_view",
    "grundy_text",
    "is_grundy_value",
]

LABEL_WORDS: Mapping[int, str] = MappingProxyType({WON: "won", LOST: "lost", UNKNOWN: "draw"})
LABEL_SYNONYMS: Mapping[str, str] = MappingProxyType({"unknown": "draw"})
"""Words read as others: Knuth's ``unknown`` (TAOCP 2.2.3 ex. 28) is a ``draw``."""
"""The words of the won/lost labels (Knuth's ``unknown`` for what the rules leave undecided)."""

ROOT_VALUE = "root_value"
"""The key of the ``expect`` block that holds the root's value, in every semantics."""


def _one_of(words: Iterable[str]) -> str:
    """``'won', 'lost' or 'draw'``: the words quoted, for messages."""
    quoted = [repr(w) for w in words]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else "".join(quoted)


Bools = NDArray[np.bool_]
Columns = Mapping[str, Column]


def _given(col: Column | None, n: int) -> Bools:
    return col.given if col is not None else np.zeros(n, dtype=np.bool_)


def _one_ply_down(ok: Bools, rem: Column | None, y: NDArray[np.int64], v: NDArray[Any]) -> Bools:
    """``ok`` and, with a remoteness, the move goes one ply down the optimal line (a draw,
    value 0, excepted)."""
    if rem is None:
        return ok
    return np.asarray(ok & ((v == 0) | (rem.given & rem.given[y] & (rem.data[y] == rem.data - 1))))


def _every_node(g: GameGraph, cols: Columns) -> Bools:
    """Every position names a move (minimax, normal)."""
    return np.ones(g.n, dtype=np.bool_)


def _the_winners_nodes(g: GameGraph, cols: Columns) -> Bools:
    """Reachability: player 0 inside W, player 1 outside W, off the target."""
    v = cols[VALUE]
    in_w = v.given & (v.data == 1)
    p0 = g.owner == MAX
    return np.asarray(~g.target & ((p0 & in_w) | (~p0 & ~in_w)))


def _n_or_infinite(g: GameGraph, cols: Columns) -> Bools:
    """Impartial: an N position (value > 0) or an infinite value."""
    v = cols[VALUE]
    inf = _given(cols.get(LOOPY), g.n)
    return np.asarray(inf | (v.given & (v.data > 0)))


def grundy_draws(g: GameGraph, cols: Columns) -> Bools:
    """Per node: is its Grundy value a draw (D), ``inf(K)`` with 0 not in ``K``?"""
    inf = cols.get(LOOPY)
    draw = np.zeros(g.n, dtype=np.bool_)
    if inf is not None:
        for x in np.flatnonzero(inf.given).tolist():
            draw[x] = 0 not in inf.data[x]
    return draw


def _keeps_the_score(g: GameGraph, cols: Columns, y: NDArray[np.int64]) -> Bools:
    """Minimax: keep the score, one ply down the optimal line either side (issue 28 item 4)."""
    v = cols[VALUE]
    known = v.given & v.given[y]
    return np.asarray(_one_ply_down(known & (v.data[y] == v.data), cols.get(REMOTENESS), y, v.data))


def _to_the_opposite_label(g: GameGraph, cols: Columns, y: NDArray[np.int64]) -> Bools:
    """Normal: won to lost, lost to won, a draw to a draw, one ply down the line."""
    v = cols[VALUE]
    known = v.given & v.given[y]
    ok = known & (v.data[y] == -v.data)
    return np.asarray(_one_ply_down(ok, cols.get(REMOTENESS), y, v.data))


def _stays_on_its_side(g: GameGraph, cols: Columns, y: NDArray[np.int64]) -> Bools:
    """Reachability: W to W one layer lower, outside W to outside W."""
    v, rem = cols[VALUE], cols.get(REMOTENESS)
    in_w = v.given & (v.data == 1)
    ok = np.where(in_w, in_w[y], ~in_w[y])
    if rem is not None:
        ok &= ~in_w | (rem.given[y] & (rem.data[y] == rem.data - 1))
    return np.asarray(ok)


def _to_p_or_draw(g: GameGraph, cols: Columns, y: NDArray[np.int64]) -> Bools:
    """Impartial: a draw to a draw, anything else to a P position (value 0)."""
    v = cols[VALUE]
    draw = grundy_draws(g, cols)
    to_p = v.given[y] & (v.data[y] == 0)
    return np.asarray(np.where(draw, draw[y], to_p))


@dataclass(frozen=True)
class NodeRule:
    """One rule of a case file's nodes: where the field ``field`` (``owner`` or ``value``) is
    wrong, and the message that says so (``{value_field}`` standing for the input's name of the
    value field)."""

    where: str
    """The nodes it covers: ``inner`` (with moves), ``terminal``, ``inner-off-target`` or
    ``any``."""
    field: str
    """``owner`` or ``value``."""
    wrong: str
    """What is wrong there: ``missing``, ``present`` or ``not-a-label`` (a value other than
    -1, 0, +1)."""
    message: str


def _no_move_rule(*args: Any) -> Bools:
    raise ValueError("this semantics has no move rule")


@dataclass(frozen=True)
class Description:
    """What the answers of one semantics mean (see the module docstring)."""

    semantics: Semantics
    form: ViewForm
    """The view of the semantics' own solvers (others convert to it or are compared in theirs):
    how its values are stored, read, written and said (``model/views.py``)."""
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
    equations: str | None = None
    """Its equation system's constructor, by name (``equations.system.OrderSystem.minimax``,
    ``normal``, ``reachability``: ``OrderSystem.for_graph`` builds it; ``None`` for
    ``impartial``, whose mex equations are built by ``smt.mex``)."""
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
    has_targets: bool = False
    """Its graphs have target nodes (``reachability``): a terminal is a target or a dead end,
    not a leaf with a value."""
    node_rules: tuple[NodeRule, ...] = ()
    """What a case file's owners and values must be, node by node (``io.rules.check_nodes``)."""
    terminal_default: float | None = None
    """The value stored for a terminal the case file gives none (``normal``: -1, lost)."""
    needs_move: Callable[[GameGraph, Columns], Bools] = _no_move_rule
    """Per node: where an answer must name a move (the move contract, ``checks/moves.py``)."""
    optimal_move: Callable[[GameGraph, Columns, NDArray[np.int64]], Bools] = _no_move_rule
    """Per node ``x``: is the move to ``y[x]`` optimal, judged by the answer's own values and
    remoteness (meaningful where ``y[x]`` is a legal move)."""
    count_phrases: tuple[tuple[str, str, bool], ...] = (
        ("won", "won {}", True),
        ("lost", "lost {}", True),
        ("drawn", "drawn {}", True),
    )
    """How the summary's counts read: (summary key, phrase, shown when zero)."""
    longest_phrase: str = "longest win {}"
    """How the summary's ``longest_win`` reads, ``{}`` the count in ``unit``."""
    unit: str = "ply"
    """What a remoteness counts: ``ply`` or ``move``."""
    owner_words: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    """Owner code -> the word a readable case file writes (``minimax``: ``max`` / ``min``);
    empty: owners are written as their codes 0 and 1."""
    value_field: str | None = None
    """The field of a readable case file's node that holds its value: ``value`` (a minimax
    leaf's score), ``label`` (a normal terminal's word); ``None``: nodes take no value."""
    scores: bool = False
    """Its values are numbers of an ordered domain (minimax), not codes written as numbers."""
    has_sums: bool = False
    """A case may name sums of positions (``impartial``: Sprague-Grundy)."""
    monotone: bool = False
    """Its equations are monotone (``minimax``' max / min, ``reachability``'s or / and; not
    ``normal``'s negamax, not the mex): the solutions lie between the least and the greatest,
    and a fixed node keeps its equation for any values inside those bounds."""
    equations_words: str = ""
    """Its local equations, named in a sentence: ``the won/lost equations``, ..."""
    kars_score: bool = False
    """Its answer is Kars' score (``minimax``): of the solutions between the least and the
    greatest, the one closest to the draw at every node (not simply the least solution)."""

    # -------------------------------------------------------------- one value
    def word(self, stored: int) -> str:
        """The word of a stored label (``ValueError`` if the semantics has no words)."""
        if not self.words:
            raise ValueError(f"{self.semantics.value} values are not words")
        return self.words[int(stored)]

    def show(self, stored: Any, kset: Iterable[int] | None = None) -> Any:
        """One stored value as the case format writes it: a score, ``won`` / ``lost`` /
        ``unknown``, the winner 0 / 1, a Grundy value (``"inf(K)"`` when ``kset`` is given)."""
        return self.form.show(self, stored, kset)

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
        words = self.form.said(shown)
        if remoteness is None or remoteness < 0:
            return words
        return f"{words} in {count(remoteness, self.unit)}"

    def counts_words(self, summary: Mapping[str, Any], sep: bool = False) -> list[str]:
        """The summary's counts in words: ``won 8``, ``lost 0``, ``drawn 0``, ``longest win 3
        plies`` (``N positions 2``, ``player 0 reaches the target from 3``, ...); ``sep``: the
        counts with thousands separators (``won 18,081``: a tiered dataset's)."""
        parts = [
            phrase.format(f"{summary[key]:,}" if sep else summary[key])
            for key, phrase, when_zero in self.count_phrases
            if when_zero or summary[key]
        ]
        n = summary.get("longest_win")
        if n is not None:
            parts.append(self.longest_phrase.format(count(n, self.unit)))
        return parts

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

    @property
    def view(self) -> View:
        """The view of the semantics' own solvers (``form.view``)."""
        return self.form.view

    def owner_spelling(self) -> str:
        """How a case file writes an owner, for messages: ``'max' or 'min'``, ``0 or 1``."""
        if self.owner_words:
            return _one_of(self.owner_words.values())
        return " or ".join(str(c) for c in sorted(self.owner_names))

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
    def has_order(self) -> bool:
        """Its equations are a system over an order (an ``OrderSystem``: least and greatest
        solutions); ``impartial``'s mex equations have no order."""
        return self.equations is not None

    @property
    def expect_keys(self) -> frozenset[str]:
        """Every key of the ``expect`` block that fits this semantics."""
        return frozenset({self.expect_key, ROOT_VALUE}) | self.expect_extra

    def fits(self, v: float | str) -> bool:
        """Is ``v``, a value as read from a case file (every number a float), one value of this
        semantics (see ``value_shape``)?"""
        return self.form.fits(self, v)

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
        return self.form.outcome(np.asarray(values), loopy)

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
            SCORE,
            point_of_view="Max",
            expect_key="values",
            value_title="score",
            remoteness_title="plies until the winner forces a leaf at least as good (Kars)",
            owner_names=MappingProxyType({MAX: "Max", MIN: "Min"}),
            equations="minimax",
            owner_words=MappingProxyType({MAX: "max", MIN: "min"}),
            value_field="value",
            scores=True,
            monotone=True,
            kars_score=True,
            equations_words="the (T+MM) equations",
            node_rules=(
                NodeRule(
                    "inner", "owner", "missing", "a node with moves needs an owner ('max' or 'min')"
                ),
                NodeRule(
                    "terminal", "owner", "present", "a terminal node (no moves) takes no owner"
                ),
                NodeRule(
                    "terminal", "value", "missing", "a terminal node (no moves) needs a value"
                ),
                NodeRule("inner", "value", "present", "a node with moves takes no value"),
            ),
            needs_move=_every_node,
            optimal_move=_keeps_the_score,
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
            LABEL,
            point_of_view="the player to move",
            expect_key="labels",
            value_title="label",
            remoteness_title="plies to the end: the winner hurries, the loser delays",
            words=LABEL_WORDS,
            synonyms=LABEL_SYNONYMS,
            equations="normal",
            value_field="label",
            equations_words="the won/lost equations",
            node_rules=(
                NodeRule(
                    "any",
                    "owner",
                    "present",
                    "normal semantics has no owners (the mover alternates)",
                ),
                NodeRule("inner", "value", "present", "a node with moves takes no {value_field}"),
                NodeRule(
                    "any", "value", "not-a-label", "a label must be +1 (won), -1 (lost) or 0 (draw)"
                ),
            ),
            terminal_default=float(LOST),
            needs_move=_every_node,
            optimal_move=_to_the_opposite_label,
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
            REGION,
            point_of_view="player 0",
            expect_key="winner",
            value_title="winner",
            remoteness_title="attractor layer: moves player 0 needs to reach the target",
            owner_names=MappingProxyType({MAX: "player 0", MIN: "player 1"}),
            equations="reachability",
            has_targets=True,
            monotone=True,
            equations_words="the region equations",
            node_rules=(
                NodeRule("any", "value", "present", "reachability semantics has no values"),
                NodeRule(
                    "inner-off-target",
                    "owner",
                    "missing",
                    "a non-target node with moves needs an owner (0 or 1)",
                ),
            ),
            needs_move=_the_winners_nodes,
            optimal_move=_stays_on_its_side,
            count_phrases=(
                ("won", "player 0 reaches the target from {}", True),
                ("lost", "player 1 keeps play away from it from {}", True),
            ),
            longest_phrase="longest forced reach {}",
            unit="move",
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
            GRUNDY,
            point_of_view="the player to move",
            expect_key="grundy",
            value_title="Grundy value",
            remoteness_title="plies to the end",
            column_name="grundy",
            has_sums=True,
            equations_words="the mex equations",
            node_rules=(
                NodeRule("any", "owner", "present", "impartial semantics has no owners"),
                NodeRule("any", "value", "present", "impartial semantics has no values"),
            ),
            needs_move=_n_or_infinite,
            optimal_move=_to_p_or_draw,
            count_phrases=(
                ("won", "N positions {}", True),
                ("lost", "P positions {}", True),
                ("drawn", "drawn (infinite) {}", False),
            ),
            expect_extra=frozenset({"sums", "unique"}),
            value_shape="a Grundy value (an integer >= 0, 'inf' or 'inf(0,2)')",
            rules=MappingProxyType(
                {"inner": "a Grundy value is the mex of its successors' values, here {want}"}
            ),
        ),
    }
)
"""The description of every semantics."""


T = TypeVar("T")


class PerSemantics(Registry[Semantics, T]):
    """One implementation per semantics for one purpose, declared where it is written
    (``@table.register(Semantics.X)``, as ``@solver`` declares a solver's semantics), for the
    layers above the model whose per-semantics code a ``Description`` cannot hold (Z3,
    kernels, conversions). Looking up a semantics without one raises ``NotApplicable``: it
    never falls through to another's.

    >>> greet: PerSemantics[str] = PerSemantics("greeting")
    >>> greet.register(Semantics.NORMAL)("hello")
    'hello'
    >>> greet[Semantics.NORMAL]
    'hello'
    >>> greet[Semantics.MINIMAX]
    Traceback (most recent call last):
    ...
    verifier.errors.NotApplicable: no greeting for minimax cases
    """

    def __init__(self, purpose: str, missing: str = "no {purpose} for {semantics} cases") -> None:
        super().__init__(purpose, missing)  # ``{semantics}``: the semantics' value

    def _missing(self, key: Semantics) -> str:
        return self.missing.format(purpose=self.purpose, semantics=key.value)


def describe(semantics: Semantics) -> Description:
    """The description of ``semantics`` (``ValueError`` for one without a description: an
    unknown semantics raises, it never falls through to another's meaning)."""
    try:
        return DESCRIPTIONS[semantics]
    except KeyError:
        raise ValueError(f"no description of semantics {semantics!r}") from None


def describe_view(view: View) -> Description:
    """The description of the semantics whose native view is ``view``."""
    for d in DESCRIPTIONS.values():
        if d.view is view:
            return d
    raise KeyError(view)
