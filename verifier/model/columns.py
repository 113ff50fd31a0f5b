"""Named per-node columns of an answer, and the registry that says how each is compared, proved
and shown.

A ``Column`` is one array with a mask of the nodes where it is *given*: no sentinel (-1, NaN)
stands for "missing" once a value is in a column. Every column a solver can publish is
registered once as a ``ColumnSpec`` with

- ``same``: its comparator (node by node), used by the agreement checks between solvers;
- which checks prove it is said by the checks themselves (``@check(..., proves=...)``);
- ``show``: its formatter, one entry as a plain JSON value (node ids become names).

Agreement, ``expect``, the report, the writers and ``Solution`` loop over ``COLUMNS`` instead of
naming fields, so a new published field (say depth to conversion) is one ``register_column``
call plus the solvers that fill it (``SolverResult(..., more={"dtc": Column(...)})``).

>>> import numpy as np
>>> c = Column.where(np.array([3, 0, 2]), np.array([True, False, True]))
>>> c.at(0), c.at(1), c.count
(3, None, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.model.bounds import MAX_EXACT, MAX_REMOTENESS
from verifier.model.graph import GameGraph

__all__ = [
    "COLUMNS",
    "LOOPY",
    "MOVE",
    "REMOTENESS",
    "VALUE",
    "AnswerCodec",
    "Column",
    "ColumnSpec",
    "answer_columns",
    "column_spec",
    "ordered",
    "plain",
    "register_column",
    "same_entries",
    "to_plain",
]

VALUE = "value"
"""The answer of the semantics' view: score, label, winner region or Grundy value."""
REMOTENESS = "remoteness"
"""Plies to the end under optimal play (or the attractor layer)."""
MOVE = "move"
"""An optimal move: the id of a successor."""
LOOPY = "loopy"
"""Grundy: the set K of an infinite loopy value (Smith's inf_K), where the value is infinite."""


@dataclass(frozen=True, eq=False)
class Column:
    """Per-node data with a mask of where it is given (the data elsewhere means nothing)."""

    data: NDArray[Any]
    given: NDArray[np.bool_]

    def __post_init__(self) -> None:
        if self.data.shape[:1] != self.given.shape:
            raise ValueError(f"column data {self.data.shape} and mask {self.given.shape} differ")

    @classmethod
    def full(cls, data: ArrayLike) -> Column:
        """A column given at every node."""
        a = np.asarray(data)
        return cls(a, np.ones(len(a), dtype=np.bool_))

    @classmethod
    def where(cls, data: ArrayLike, given: ArrayLike) -> Column:
        """A column given where ``given`` is true."""
        return cls(np.asarray(data), np.asarray(given, dtype=np.bool_))

    @classmethod
    def sparse(cls, n: int, entries: Mapping[int, Any]) -> Column:
        """An object column of ``n`` nodes given at the keys of ``entries``."""
        data = np.empty(n, dtype=object)
        given = np.zeros(n, dtype=np.bool_)
        for i, v in entries.items():
            data[int(i)], given[int(i)] = v, True
        return cls(data, given)

    def __len__(self) -> int:
        return len(self.given)

    @property
    def count(self) -> int:
        """How many nodes have an entry."""
        return int(self.given.sum())

    def at(self, i: int) -> Any:
        """The entry of node ``i`` as a plain Python value, ``None`` where not given."""
        if not self.given[i]:
            return None
        v = self.data[i]
        return v.item() if isinstance(v, np.generic) else v

    def restrict(self, mask: NDArray[np.bool_]) -> Column:
        """The same column given only inside ``mask``."""
        return Column(self.data, self.given & mask)


def same_entries(a: Column, b: Column) -> NDArray[np.bool_]:
    """Node by node: both missing, or both given and equal (NaN equals NaN)."""
    if a.data.dtype == object or b.data.dtype == object:
        eq = np.array([x == y for x, y in zip(a.data.tolist(), b.data.tolist(), strict=True)])
        eq = eq.astype(np.bool_) if len(eq) else np.zeros(0, dtype=np.bool_)
    else:
        eq = np.asarray(a.data == b.data)
        if a.data.dtype.kind == "f" and b.data.dtype.kind == "f":
            eq = eq | (np.isnan(a.data) & np.isnan(b.data))
    return np.where(a.given & b.given, eq, a.given == b.given)


def plain(g: GameGraph, v: Any) -> Any:
    """The default formatter: ``to_plain(v)``."""
    return to_plain(v)


def to_plain(v: Any) -> Any:
    """A value as a plain JSON value (integral floats as ints, NaN as ``None``)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        if v != v:
            return None
        if v.is_integer() and abs(v) < MAX_EXACT:
            return int(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def _node_name(g: GameGraph, v: Any) -> Any:
    return g.name(int(v))


@dataclass(frozen=True)
class AnswerCodec:
    """How a column's entries are written in answer files and read back (``docs/answers.md``;
    ``verifier.io.answers`` reads and writes every column registered with a codec).

    ``entry`` says what one entry is: ``"count"``, a whole number ``0 <= r < limit`` (JSON: a
    number, CSV: a cell, read exactly, ``3.0`` is 3 and ``3.00000000000000001`` is refused);
    ``"node"``, a position (JSON and CSV: its name; ``.npz`` and Parquet: its id). The columnar
    encodings hold it as ``dtype`` with -1 (Parquet: null) where it is not given; JSON and CSV
    leave it out (an empty cell)."""

    entry: Literal["count", "node"]
    noun: str
    """The entry in words, for the one-line error (``a remoteness``)."""
    dtype: Any = np.int64
    """The array dtype of the ``.npz`` and Parquet column."""
    limit: int = MAX_REMOTENESS
    """``"count"``: entries are below it."""


@dataclass(frozen=True)
class ColumnSpec:
    """How one named column is compared, proved and shown."""

    name: str
    title: str
    """A few words for people, e.g. ``remoteness (plies)``."""
    same: Callable[[Column, Column], NDArray[np.bool_]] = same_entries
    """Node-by-node comparator (agreement between solvers)."""
    show: Callable[[GameGraph, Any], Any] = plain
    """One given entry as a plain JSON value."""
    agree: bool = True
    """Compared between solvers of the same view."""
    codec: AnswerCodec | None = None
    """How answer files hold it (``None``: not in answer files). The value and the loopy K are
    the semantics' own (``Description``), not a codec."""

    @property
    def names_nodes(self) -> bool:
        """Each entry is a position's id, shown as its name (a move)."""
        return self.show is _node_name

    def show_each(self, graph: GameGraph, entries: NDArray[Any]) -> list[Any]:
        """``show`` of each entry (node entries named a whole list at a time)."""
        if self.names_nodes:
            return graph.names_of(entries.astype(np.int64).tolist())
        return [self.show(graph, v) for v in entries]


COLUMNS: dict[str, ColumnSpec] = {}
"""Every registered column, in registration order (the order of output columns)."""


def register_column(spec: ColumnSpec) -> ColumnSpec:
    """Register (or replace) a column; returns it."""
    COLUMNS[spec.name] = spec
    return spec


def column_spec(name: str) -> ColumnSpec:
    """The registered spec of ``name``; an unregistered column is compared and shown plainly."""
    return COLUMNS.get(name) or ColumnSpec(name, name)


def answer_columns() -> list[ColumnSpec]:
    """The columns answer files hold beside the value, in registration order."""
    return [spec for spec in COLUMNS.values() if spec.codec is not None]


def ordered(names: Iterable[str]) -> list[str]:
    """Column names in registration order, unregistered ones last (by name)."""
    names = set(names)
    known = [c for c in COLUMNS if c in names]
    return known + sorted(names - set(known))


register_column(ColumnSpec(VALUE, "value"))
register_column(ColumnSpec(LOOPY, "infinite Grundy value's K"))
register_column(
    ColumnSpec(REMOTENESS, "remoteness (plies)", codec=AnswerCodec("count", "a remoteness"))
)
# optimal moves are not unique (solvers may break ties differently): proved, not compared
register_column(
    ColumnSpec(MOVE, "move", show=_node_name, agree=False, codec=AnswerCodec("node", "a move"))
)
