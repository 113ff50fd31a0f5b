"""The answer for a case: typed per-node columns with their provenance.

``Solution.from_results`` assembles it once from the solvers' results (and, after the checks, the
checks that confirmed each column); the report, the summary, the drawing, the writers and the
command line read it and nothing else rebuilds it.

- the ``value`` column is read from the solver of the semantics' view that covers the most nodes
  (registry order breaks ties); every other column from that solver if it gives it, else from
  the first solver of the view whose values agree with it wherever both answer;
- ``agreeing`` names every solver of the view whose values equal the solution's wherever it
  answers, ``sources`` which solver each column was read from, ``confirmed`` which confirmed
  checks vouch for it (``checks_proving``: ``CheckResult.proves``, from ``@check(proves=)``);
- missing entries are masked (``Column.given``): no sentinel crosses into a ``Solution``.

>>> from verifier.model import GameGraph, Semantics, Case, SolverResult, MAX
>>> from verifier.model.results import View
>>> import numpy as np
>>> g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.MINIMAX,
...                               owner={"a": MAX}, value={"b": 2})
>>> r = SolverResult("x", View.SCORE, np.array([2.0, 2.0]), move=np.array([1, -1]))
>>> s = Solution.from_results(Case(g, "tiny", root=0), {"x": r})
>>> s.at("a")
{'position': 'a', 'value': 2, 'outcome': 'win', 'move': 'b'}
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model.case import Case
from verifier.model.columns import LOOPY, VALUE, Column, column_spec, ordered
from verifier.model.describe import Description, describe
from verifier.model.display import displayed
from verifier.model.graph import GameGraph
from verifier.model.results import CheckResult, SolverResult, checks_proving

__all__ = ["OUTCOME_WORDS", "Position", "Solution"]

OUTCOME_WORDS: Mapping[int, str] = MappingProxyType({1: "win", -1: "loss", 0: "draw"})
"""Outcome from the description's point of view."""


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, eq=False)
class Solution:
    """The answer for one case (see the module docstring)."""

    graph: GameGraph
    root: int | None
    description: Description
    columns: Mapping[str, Column]
    """Named per-node columns; always ``value`` (and ``loopy`` for infinite Grundy values)."""
    covered: NDArray[np.bool_]
    """Nodes the answer covers (its value, finite or infinite, is given)."""
    sources: Mapping[str, str] = field(default_factory=_empty)
    """Column -> the solver it was read from."""
    agreeing: tuple[str, ...] = ()
    """Solvers of the view whose values equal this answer wherever they answer."""
    confirmed: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    """Column -> the confirmed checks of its proof contract."""

    # ------------------------------------------------------------------ building
    @classmethod
    def from_results(
        cls,
        case: Case,
        results: Mapping[str, SolverResult],
        checks: Sequence[CheckResult] = (),
    ) -> Solution | None:
        """The case's answer, or ``None`` when no solver answered in the semantics' view."""
        d = describe(case.semantics)
        rs = [r for r in results.values() if r.view is d.view]
        if not rs:
            return None
        best = max(range(len(rs)), key=lambda i: (int(rs[i].covered_mask().sum()), -i))
        src = rs[best]
        agree = [r for r in rs if _agrees(src, r)]
        cols: dict[str, Column] = dict(src.columns)
        sources = dict.fromkeys(cols, src.solver)
        for r in agree:
            for name, col in r.columns.items():
                if name not in cols:
                    cols[name], sources[name] = col, r.solver
        confirmed = {
            name: tuple(sorted({c.name for c in checks_proving(checks, name)})) for name in cols
        }
        return cls(
            graph=case.graph,
            root=case.root,
            description=d,
            columns=MappingProxyType({k: cols[k] for k in ordered(cols)}),
            covered=src.covered_mask(),
            sources=MappingProxyType(sources),
            agreeing=tuple(r.solver for r in agree),
            confirmed=MappingProxyType(confirmed),
        )

    # ------------------------------------------------------------------ reading
    @property
    def n(self) -> int:
        return self.graph.n

    def column(self, name: str) -> Column | None:
        return self.columns.get(name)

    def _id(self, position: str | int) -> int:
        if isinstance(position, str):
            return self.graph.id_of(position)
        if not 0 <= int(position) < self.n:
            raise KeyError(position)
        return int(position)

    def loopy_sets(self) -> dict[int, tuple[int, ...]]:
        """Grundy: node id -> K of its infinite value."""
        col = self.columns.get(LOOPY)
        if col is None:
            return {}
        return {int(x): col.data[x] for x in np.flatnonzero(col.given)}

    def value(self, position: str | int) -> Any:
        """The value of a position in the words of the case format (``None`` if not covered)."""
        return self.description.show_node(self.columns, self._id(position))

    def outcome(self) -> NDArray[np.int8]:
        """Per node +1 win, -1 loss, 0 draw (or not covered) from the point of view."""
        v = self.columns[VALUE]
        out = self.description.outcome(v.data, self.loopy_sets())
        return np.where(self.covered, out, 0).astype(np.int8)

    def at(self, position: str | int) -> dict[str, Any]:
        """Everything known of one position: value, outcome and every other column."""
        x = self._id(position)
        row: dict[str, Any] = {"position": self.graph.name(x), "value": self.value(x)}
        if self.covered[x]:
            row["outcome"] = OUTCOME_WORDS[int(self.outcome()[x])]
        for name, col in self.columns.items():
            if name in (VALUE, LOOPY) or not col.given[x]:
                continue
            row[name] = column_spec(name).show(self.graph, col.data[x])
        return row

    def __getitem__(self, position: str | int) -> Position:
        """``solution["a"]``: the position's answer (``KeyError`` for an unknown name)."""
        row = self.at(position)
        known = {"position", "value", "outcome", "remoteness", "move"}
        return Position(
            name=row["position"],
            value=row["value"],
            outcome=row.get("outcome"),
            remoteness=row.get("remoteness"),
            move=row.get("move"),
            columns=MappingProxyType({k: v for k, v in row.items() if k not in known}),
            solution=self,
        )

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[str]:
        """The position names, in id order."""
        return (self.graph.name(x) for x in range(self.n))

    def line(self, position: str | int, plies: int = 20) -> list[str]:
        """The principal variation from ``position`` (see ``Position.line``)."""
        moves = self.columns.get("move")
        x = self._id(position)
        out, seen = [self.graph.name(x)], {x}
        while moves is not None and moves.given[x] and len(out) <= plies:
            x = int(moves.data[x])
            out.append(self.graph.name(x))
            if x in seen:
                break
            seen.add(x)
        return out

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Position name -> its record (``records()`` keyed by position)."""
        return {r.pop("position"): r for r in self.records()}

    def to_pandas(self) -> Any:
        """The records as a ``pandas.DataFrame`` indexed by position (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - pandas comes with the dask extra
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        return pd.DataFrame.from_records(list(self.records()), index="position")

    def __repr__(self) -> str:
        """Short, like python-chess's: ``<Solution minimax 6 positions: root a = 0 (draw)>``."""
        d = self.description
        head = f"<Solution {d.semantics.value} {self.n} position{'' if self.n == 1 else 's'}"
        if self.root is None or not self.covered[self.root]:
            return head + f", {int(self.covered.sum())} answered>"
        outcome = OUTCOME_WORDS[int(self.outcome()[self.root])]
        return f"{head}: root {self.graph.name(self.root)} = {self.value(self.root)} ({outcome})>"

    def _repr_html_(self) -> str | None:
        """A notebook's view: who wins from where, one row per position (the first 50), and
        the picture of a small graph (``writers.notebook.solution_html``, lent through
        ``model.display``)."""
        return displayed("solution_html", self)

    def svg(self, highlight: Collection[int] = ()) -> str | None:
        """The graph with each position's value (``None`` above ``writers.svg.MAX_NODES``
        positions); ``highlight``: positions drawn as a witness (``writers.svg.solution_svg``,
        lent through ``model.display``)."""
        return displayed("solution_svg", self, highlight)

    def records(self) -> Iterator[dict[str, Any]]:
        """One row per covered node (for writers): position, value, outcome, other columns
        (``None`` where a column has no entry)."""
        names, rows = self.table()
        return (dict(zip(names, row, strict=True)) for row in rows)

    def table(self) -> tuple[tuple[str, ...], Iterator[tuple[Any, ...]]]:
        """The rows of ``records`` as tuples in the order of the names returned with them."""
        names, cols = self.shown_columns()
        return names, zip(*cols, strict=True)

    def shown_columns(self) -> tuple[tuple[str, ...], list[list[Any]]]:
        """The columns of ``records`` (names, then one list per name, a row per covered node),
        made a column at a time: each distinct entry of a column is shown once (a million rows
        in about a second, where a dict per row took ten)."""
        names, coded = self.coded_columns()
        each = [np.fromiter(shown, dtype=object, count=len(shown))[codes] for codes, shown in coded]
        return names, [column.tolist() for column in each]

    def coded_columns(self) -> tuple[tuple[str, ...], list[tuple[NDArray[np.intp], list[Any]]]]:
        """``shown_columns`` as codes into each column's distinct shown entries (row ``i`` of a
        column ``(codes, shown)`` is ``shown[codes[i]]``, ``model.solution.shown_codes``): the
        positions' names made once, a move shown by the index of its position's name."""
        others = [c for c in self.columns if c not in (VALUE, LOOPY)]
        xs = np.flatnonzero(self.covered)
        ids = xs.tolist()
        value = self.columns[VALUE]
        if LOOPY in self.columns:  # an infinite Grundy value reads its K: node by node
            shown = [self.value(x) for x in ids]
            values = np.arange(len(shown)), shown
        else:
            show = self.description.show
            values = shown_codes(value.data[xs], value.given[xs], lambda vs: [show(v) for v in vs])
        names = self.graph.names_of(ids)
        words = [OUTCOME_WORDS[k] for k in (-1, 0, 1)]
        outcome = self.outcome()[xs].astype(np.intp) + 1
        cols = [(np.arange(len(ids)), names), values, (outcome, words)]
        every = len(ids) == self.graph.n  # the names of all positions, in id order
        for name in others:
            col, spec = self.columns[name], column_spec(name)
            data, given = col.data[xs], col.given[xs]
            if every and spec.names_nodes and data.dtype.kind in "iu" and len(data):
                to = np.where(given, data, 0)
                if to.min() >= 0 and to.max() < len(names):  # each named by its index
                    cols.append((np.where(given, to, len(names)), [*names, None]))
                    continue
            cols.append(shown_codes(data, given, partial(spec.show_each, self.graph)))
        return ("position", "value", "outcome", *others), cols


@dataclass(frozen=True)
class Position:
    """One position of a ``Solution``: its answer in the words of the case format."""

    name: str
    value: Any
    """Score, ``won`` / ``lost`` / ``unknown``, winner 0 / 1, Grundy value or ``"inf(K)"``;
    ``None`` where the answer does not cover the position."""
    outcome: str | None
    """``win`` / ``loss`` / ``draw`` from the description's point of view."""
    remoteness: int | None
    move: str | None
    """An optimal move: the name of the successor to play."""
    columns: Mapping[str, Any]
    """Every other column's entry (registered columns beyond the four above)."""
    solution: Solution = field(repr=False, compare=False)

    def line(self, plies: int = 20) -> list[str]:
        """The principal variation from here: the positions optimal play goes through,
        following the published moves, ending at a position without a move, at a repetition
        (the repeated position ends the list), or after ``plies`` moves."""
        return self.solution.line(self.name, plies)


def _agrees(a: SolverResult, b: SolverResult) -> bool:
    """``b`` gives the same values (finite and infinite) as ``a`` wherever both answer."""
    both = a.covered_mask() & b.covered_mask()
    for name in (VALUE, LOOPY):
        ca, cb = a.columns.get(name), b.columns.get(name)
        if ca is None and cb is None:
            continue
        if ca is None or cb is None:
            if (ca or cb).given[both].any():  # type: ignore[union-attr]
                return False
            continue
        if not column_spec(name).same(ca.restrict(both), cb.restrict(both)).all():
            return False
    return True


def shown_entries(
    data: NDArray[Any], given: NDArray[np.bool_], show: Callable[[NDArray[Any]], list[Any]]
) -> list[Any]:
    """The shown entry of each entry of ``data`` (``None`` where not ``given``): ``show`` maps
    an array of entries to their shown forms, called once on the distinct entries (floats told
    apart by their bits: ``-0.0`` is not ``0.0``)."""
    codes, shown = shown_codes(data, given, show)
    return np.fromiter(shown, dtype=object, count=len(shown))[codes].tolist()  # type: ignore[no-any-return]


def shown_codes(
    data: NDArray[Any], given: NDArray[np.bool_], show: Callable[[NDArray[Any]], list[Any]]
) -> tuple[NDArray[np.intp], list[Any]]:
    """``shown_entries`` as ``(codes, shown)``: entry ``i`` is shown as ``shown[codes[i]]``;
    ``shown`` holds each distinct entry's form once, then ``None`` (the entries not given)."""
    if data.dtype.kind not in "biuf" or not len(data):
        each = show(data)
        return np.where(given, np.arange(len(each)), len(each)), [*each, None]
    if data.dtype.kind in "iu" and data.dtype != np.uint64:  # few distinct: counted, no sort
        lo, hi = int(data.min()), int(data.max())
        if hi - lo < min(len(data), 1 << 16):
            at = data.astype(np.int64) - lo
            seen = np.zeros(hi - lo + 1, dtype=np.bool_)
            seen[at] = True
            distinct = np.flatnonzero(seen)
            code = np.zeros(hi - lo + 1, dtype=np.intp)
            code[distinct] = np.arange(len(distinct))
            shown = [*show((distinct + lo).astype(data.dtype)), None]
            return np.where(given, code[at], len(distinct)), shown
    bits = data.view(np.int64) if data.dtype == np.float64 else data
    _, first, back = np.unique(bits, return_index=True, return_inverse=True)
    return np.where(given, back.ravel(), len(first)), [*show(data[first]), None]
