"""Agreement between solvers: every pair (reference, other) of solvers with the same view is
compared node by node, column by column, with each column's registered comparator.

The first solver of a view (registry order) is the reference. A column is compared where both
solvers give it and its spec says it is comparable (``ColumnSpec.agree``: optimal moves are not
unique, so they are proved by ``smt-strategy`` instead); the first column that differs refutes
the pair with a witness naming the node, both answers and the successors' answers. A column the
reference does not give is compared between the solvers that give it, the first of them being
its reference (one check per pair, named after the column).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.columns import LOOPY, VALUE, column_spec, ordered
from verifier.model.describe import describe_view
from verifier.model.results import View

__all__ = ["agreement_checks"]


def agreement_checks(case: Case, results: Mapping[str, SolverResult]) -> list[CheckResult]:
    """Compare every pair (reference, other) of solvers with the same view, node by node."""
    by_view: dict[View, list[SolverResult]] = {}
    for r in results.values():
        by_view.setdefault(r.view, []).append(r)
    out: list[CheckResult] = []
    for view, rs in by_view.items():
        for other in rs[1:]:
            out.append(_compare(case, view, rs[0], other))
        extra = {c for r in rs[1:] for c in r.columns} - set(rs[0].columns) - {LOOPY}
        for col in ordered(c for c in extra if column_spec(c).agree):
            holders = [r for r in rs if col in r.columns]
            for other in holders[1:]:
                out.append(_compare(case, view, holders[0], other, only=col))
    return out


def _compare(
    case: Case, view: View, ref: SolverResult, other: SolverResult, only: str | None = None
) -> CheckResult:
    """One pair of solvers, on every comparable column both give (or on column ``only``)."""
    t0 = time.perf_counter()
    both = ref.covered_mask() & other.covered_mask()
    name = f"agree {view.value}{' ' + only if only else ''}: {ref.solver} = {other.solver}"
    compared: list[str] = []
    cols = [only] if only else ordered(set(ref.columns) | set(other.columns))
    for col in cols:
        spec = column_spec(col)
        a, b = ref.columns.get(col), other.columns.get(col)
        if not spec.agree or ((a is None or b is None) and col != LOOPY):
            continue
        if a is None or b is None:  # one solver gives no infinite values: the other must not
            present = (a or b).given & both  # type: ignore[union-attr]
            diff = np.flatnonzero(present)
        else:
            diff = np.flatnonzero(both & ~spec.same(a, b))
        if len(diff):
            x = int(diff[0])
            witness = _witness(case, view, col, ref, other, x, len(diff))
            what = "values" if col in (VALUE, LOOPY) else spec.title
            return CheckResult(
                name,
                Verdict.REFUTED,
                f"{what} differ at node {witness['node']!r} ({len(diff)} node(s) in all)",
                witness=witness,
                seconds=time.perf_counter() - t0,
                judged=frozenset({ref.solver, other.solver}),
            )
        if col != LOOPY:
            compared.append("values" if col == VALUE else col)
    return CheckResult(
        name,
        Verdict.CONFIRMED,
        f"{int(both.sum())} nodes compared, {' and '.join(compared)} identical",
        seconds=time.perf_counter() - t0,
        judged=frozenset({ref.solver, other.solver}),
    )


def _witness(
    case: Case, view: View, col: str, ref: SolverResult, other: SolverResult, x: int, count: int
) -> dict[str, Any]:
    g = case.graph

    def shown(r: SolverResult, y: int) -> Any:
        if col in (VALUE, LOOPY):
            return describe_view(view).show_node(r.columns, y)
        c = r.columns.get(col)
        return None if c is None or not c.given[y] else column_spec(col).show(g, c.data[y])

    key = "values" if col in (VALUE, LOOPY) else col
    return {
        "node": g.name(x),
        key: {ref.solver: shown(ref, x), other.solver: shown(other, x)},
        "successors": {
            g.name(int(y)): {ref.solver: shown(ref, int(y)), other.solver: shown(other, int(y))}
            for y in g.successors(x)
        },
        "disagreements": count,
    }
