"""What every answer encoding shares (``verifier.io.answers``: JSON and CSV;
``verifier.io.answer_columns``: ``.npz`` and Parquet): the :class:`Answers` a reader returns and
:func:`check_header`, the check of a file's ``semantics`` and ``graph`` against the case."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.io.jsonpath import PathPart, fail, shown
from verifier.model import Case, SolverResult
from verifier.model.columns import Column
from verifier.model.describe import Description, describe

__all__ = ["Answers", "answers_of", "check_graph", "check_header", "check_semantics"]


@dataclass(frozen=True, eq=False)
class Answers:
    """Claimed answers for one case: the values over its node ids, and, read as a mapping of
    column name to masked ``Column``, every further registered answer column the file gives
    (``remoteness``, ``move``, ...: ``answers["move"]``, ``"remoteness" in answers``,
    ``answers.get(name)``, ``answers.items()``). (Not a ``collections.abc.Mapping``: its
    ``values`` are the claimed values, not the columns.)"""

    case: Case
    values: NDArray[Any]
    """Stored values in the semantics' view (score, label, region 1/0, Grundy; -1 at inf)."""
    given: NDArray[np.bool_]
    """Nodes whose value (finite or infinite) is claimed."""
    loopy: Mapping[int, tuple[int, ...]] = field(default_factory=lambda: MappingProxyType({}))
    """Grundy: node id -> K of a claimed infinite value inf(K)."""
    columns: Mapping[str, Column] = field(default_factory=lambda: MappingProxyType({}))
    """The registered answer columns the file gives (``ColumnSpec.codec``), by name."""
    file: str = "<answers>"

    def __post_init__(self) -> None:
        # read-only: the judged result shares these arrays (no copy of a complete table)
        for a in (self.values, self.given, *(c.data for c in self.columns.values())):
            if isinstance(a, np.ndarray):
                a.flags.writeable = False

    def __getitem__(self, name: str) -> Column:
        return self.columns[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    def __contains__(self, name: object) -> bool:
        return name in self.columns

    def get(self, name: str) -> Column | None:
        return self.columns.get(name)

    def keys(self) -> KeysView[str]:
        return self.columns.keys()

    def items(self) -> ItemsView[str, Column]:
        return self.columns.items()

    def array(self, name: str) -> NDArray[np.int64] | None:
        """Column ``name`` as an array over the node ids with -1 where it is not given (``None``
        when the file has no such column): the form a solver's result holds. The column's own
        array (read-only) when it is in that form already, as the readers make it: a complete
        table is not copied."""
        col = self.columns.get(name)
        if col is None:
            return None
        data = np.asarray(col.data)
        if data.dtype == np.int64 and np.array_equal(col.given, data >= 0):
            return data  # already in that form (as read): shared, read-only, not copied
        return np.where(col.given, data.astype(np.int64), -1)

    def with_column(self, name: str, a: NDArray[np.int64]) -> Answers:
        """These answers with column ``name`` replaced by ``a`` (-1 = not given)."""
        cols = {**self.columns, name: Column.where(np.asarray(a, dtype=np.int64), a >= 0)}
        return replace(self, columns=MappingProxyType(cols))

    @property
    def description(self) -> Description:
        return describe(self.case.semantics)

    @property
    def complete(self) -> bool:
        """Every node's value is claimed."""
        return bool(self.given.all())

    def result(self, name: str = "answers") -> SolverResult:
        """The claims as a solver's result (partial where the file is)."""
        base = SolverResult(
            solver=name,
            view=self.description.view,
            values=self.values,
            covered=self.given,
            loopy=dict(self.loopy) or None,
            extra={"file": self.file, "claimed": int(self.given.sum())},
        )
        return base.with_columns({k: self.array(k) for k in self.columns})


def answers_of(
    case: Case,
    values: NDArray[Any],
    given: NDArray[np.bool_],
    loopy: Mapping[int, tuple[int, ...]],
    file: str,
    columns: Mapping[str, NDArray[np.int64]],
) -> Answers:
    """The claims a reader read: values, K-sets and the answer columns the file has (by
    registered name, arrays over the node ids with -1 where not given)."""
    cols = {name: Column.where(a, a >= 0) for name, a in columns.items()}
    return Answers(
        case=case,
        values=values,
        given=given,
        loopy=MappingProxyType(dict(loopy)),
        columns=MappingProxyType(cols),
        file=file,
    )


def check_graph(meta: Any, case: Case, file: str, where: tuple[PathPart, ...]) -> None:
    """The ``graph`` block of a file, if any, must describe the case's graph."""
    if meta is None:
        return
    if not isinstance(meta, dict):
        fail(file, where, f"must be an object (got {shown(meta)})")
    g = case.graph
    checked = (
        (("positions", g.n),) if case.dataset is not None else (("positions", g.n), ("moves", g.m))
    )
    for key, have in checked:
        if key in meta and meta[key] != have:
            fail(
                file,
                (*where, key),
                f"a table for another graph: {shown(meta[key])}, the case has {shown(have)}",
            )
    if case.dataset is not None:  # a dataset's moves are not in memory: no digest to compare
        return
    from verifier.io import fingerprint

    said = meta.get("digest")
    if "digest" not in meta:
        pass
    elif isinstance(said, str) and said.startswith(fingerprint.DIGEST_PREFIX):
        if said != (ours := fingerprint.graph_digest(g)):
            fail(
                file,
                (*where, "digest"),
                f"a table for another graph: {shown(said)}, the case has {shown(ours)}",
            )
    elif not isinstance(said, str) or not said.startswith("sha256:"):
        fail(
            file,
            (*where, "digest"),
            f"a table for another graph: {shown(said)} is no digest of a graph "
            f"({fingerprint.DIGEST_PREFIX}... or sha256:...)",
        )
    elif said != fingerprint.moves_digest(g):
        # the moves by id: a table keyed by ids, or any file written before graph_digest
        fail(
            file,
            (*where, "digest"),
            f"a table for another graph, or for this graph with its positions in another "
            f"order: {shown(said)} is a digest of the moves by position id (tables keyed by ids, "
            f"and every answer file written before the order-free digest), so it depends on "
            f"the order of the positions in the case file; write the table again from this "
            f"case (solve -o), or drop graph.digest from a table keyed by names",
        )
    said = meta.get("positions_digest")
    if "positions_digest" in meta and said != fingerprint.positions_digest(g):
        fail(
            file,
            (*where, "positions_digest"),
            "a table keyed by ids for another graph, or for this graph with its positions in "
            "another order (its ids would name other positions): write it again from this "
            "case, or keyed by names (.json, .csv)",
        )


def check_header(
    header: Mapping[str, Any], case: Case, file: str, where: tuple[PathPart, ...]
) -> None:
    """The ``semantics`` and ``graph`` of a columnar table's header must be the case's."""
    check_semantics(header.get("semantics"), case, file, (*where, "semantics"))
    check_graph(header.get("graph"), case, file, (*where, "graph"))


def check_semantics(sem: Any, case: Case, file: str, where: tuple[PathPart, ...]) -> None:
    """The ``semantics`` a file names, if any, must be the case's."""
    if sem is not None and sem != case.semantics.value:
        fail(file, where, f"answers for {shown(sem)}, the case is {case.semantics.value}")
