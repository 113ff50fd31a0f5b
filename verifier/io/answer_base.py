"""What every answer encoding shares (``verifier.io.answers``: JSON and CSV;
``verifier.io.answer_columns``: ``.npz`` and Parquet): the :class:`Answers` a reader returns and
:func:`check_header`, the check of a file's ``semantics`` and ``graph`` against the case."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.io.jsonpath import PathPart, fail, shown
from verifier.model import Case, SolverResult
from verifier.model.columns import MOVE, REMOTENESS, Column
from verifier.model.describe import Description, describe

__all__ = ["Answers", "answers_of", "check_graph", "check_header", "check_semantics"]


@dataclass(frozen=True, eq=False)
class Answers:
    """Claimed answers for one case, as arrays over its node ids (-1 = not given)."""

    case: Case
    values: NDArray[Any]
    """Stored values in the semantics' view (score, label, region 1/0, Grundy; -1 at inf)."""
    given: NDArray[np.bool_]
    """Nodes whose value (finite or infinite) is claimed."""
    loopy: Mapping[int, tuple[int, ...]] = field(default_factory=lambda: MappingProxyType({}))
    """Grundy: node id -> K of a claimed infinite value inf(K)."""
    remoteness: NDArray[np.int64] | None = None
    move: NDArray[np.int64] | None = None
    file: str = "<answers>"
    more: Mapping[str, Column] = field(default_factory=lambda: MappingProxyType({}))
    """The further registered answer columns the file gives (``ColumnSpec.codec``)."""

    def __post_init__(self) -> None:
        # read-only: the judged result shares these arrays (no copy of a complete table)
        for a in (self.values, self.given, self.remoteness, self.move):
            if a is not None:
                a.flags.writeable = False

    @property
    def description(self) -> Description:
        return describe(self.case.semantics)

    @property
    def complete(self) -> bool:
        """Every node's value is claimed."""
        return bool(self.given.all())

    def result(self, name: str = "answers") -> SolverResult:
        """The claims as a solver's result (partial where the file is)."""
        return SolverResult(
            solver=name,
            view=self.description.view,
            values=self.values,
            covered=self.given,
            remoteness=self.remoteness,
            move=self.move,
            loopy=dict(self.loopy) or None,
            more=self.more,
            extra={"file": self.file, "claimed": int(self.given.sum())},
        )


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
    more = {
        name: Column.where(a, a >= 0)
        for name, a in columns.items()
        if name not in (REMOTENESS, MOVE)
    }
    return Answers(
        case=case,
        values=values,
        given=given,
        loopy=MappingProxyType(dict(loopy)),
        remoteness=columns.get(REMOTENESS),
        move=columns.get(MOVE),
        file=file,
        more=MappingProxyType(more),
    )


def check_graph(meta: Any, case: Case, file: str, where: tuple[PathPart, ...]) -> None:
    """The ``graph`` block of a file, if any, must describe the case's graph."""
    if meta is None:
        return
    if not isinstance(meta, dict):
        fail(file, where, f"must be an object (got {shown(meta)})")
    g = case.graph
    for key, have in (("positions", g.n), ("moves", g.m)):
        if key in meta and meta[key] != have:
            fail(
                file,
                (*where, key),
                f"a table for another graph: {shown(meta[key])}, the case has {shown(have)}",
            )
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
