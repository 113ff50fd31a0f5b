"""The JSON writer: the ``--json`` machine report of a case (its keys are documented in the
README) and, for several cases, ``{"verdict", "cases", "errors"}``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verifier.model import SolverResult
from verifier.model.columns import LOOPY, VALUE, column_spec, to_plain
from verifier.model.describe import describe_view
from verifier.model.report import CaseReport
from verifier.writers.base import Document, Settings, overall_verdict, single_case

__all__ = ["JsonWriter", "dumps", "jsonable", "report_to_dict", "reports_to_doc"]


def jsonable(x: Any) -> Any:
    """Make numpy scalars/arrays, tuples, sets and NaN JSON-serialisable (recursively)."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, (list, tuple, set, frozenset)):
        items = sorted(x) if isinstance(x, (set, frozenset)) else x
        return [jsonable(v) for v in items]
    if isinstance(x, (np.generic, float)):
        v = to_plain(x)
        if isinstance(v, float) and not math.isfinite(v):
            return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return v
    if hasattr(x, "value") and isinstance(getattr(x, "value", None), str):
        return x.value
    return x


_JSON_KEY = {"move": "moves"}
"""Column -> key of the per-solver block of ``--json`` (``moves`` by its old name)."""


def _solver_dict(rep: CaseReport, r: SolverResult, values: bool) -> dict[str, Any]:
    g = rep.case.graph
    d: dict[str, Any] = {"view": r.view.value, "seconds": round(r.seconds, 6)}
    cov = r.covered_mask()
    d["covered"] = int(cov.sum())
    if values:
        desc = describe_view(r.view)
        ids = np.flatnonzero(cov).tolist()
        d["values"] = {g.name(x): jsonable(desc.show_node(r.columns, x)) for x in ids}
        for name, col in r.columns.items():
            if name in (VALUE, LOOPY):
                continue
            show = column_spec(name).show
            key = _JSON_KEY.get(name, name)
            d[key] = {
                g.name(x): jsonable(show(g, col.data[x]))
                for x in np.flatnonzero(col.given).tolist()
            }
    d["work"] = jsonable(dict(r.work))
    if r.extra:
        d["extra"] = jsonable(dict(r.extra))
    return d


def report_to_dict(rep: CaseReport, values: bool = True) -> dict[str, Any]:
    """The machine report of one case (the ``--json`` output)."""
    case = rep.case
    solvers: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for run in rep.solvers:
        if run.result is not None:
            solvers[run.name] = _solver_dict(rep, run.result, values)
        else:
            skipped[run.name] = run.skipped or ""
    return {
        "case": case.id,
        "file": str(case.path) if case.path else None,
        "source": case.source,
        "semantics": case.semantics.value,
        "nodes": case.graph.n,
        "edges": case.graph.m,
        "root": case.graph.name(case.root) if case.root is not None else None,
        "verdict": rep.verdict.value,
        "seconds": round(rep.seconds, 6),
        "stages": {k: round(v, 6) for k, v in rep.stages.items()},
        "summary": jsonable(dict(rep.summary)),
        "solvers": solvers,
        "skipped": skipped,
        "checks": [
            {
                "name": c.name,
                "verdict": c.verdict.value,
                "detail": c.detail,
                "witness": jsonable(c.witness) if c.witness is not None else None,
                "seconds": round(c.seconds, 6),
                **({"data": jsonable(dict(c.data))} if c.data else {}),
            }
            for c in rep.checks
        ],
    }


def reports_to_doc(
    reports: Sequence[CaseReport], errors: Sequence[str], values: bool = True
) -> dict[str, Any]:
    """One case's report, or ``{"verdict", "cases", "errors"}`` for several (or none read)."""
    if single_case(reports, errors):
        return report_to_dict(reports[0], values=values)
    return {
        "verdict": overall_verdict(reports, len(errors)),
        "cases": [report_to_dict(r, values=values) for r in reports],
        "errors": list(errors),
    }


def dumps(doc: Any, indent: int | None = 1) -> str:
    """The JSON text of a serialisable document, with its final newline."""
    return json.dumps(doc, indent=indent, allow_nan=False) + "\n"


@dataclass(frozen=True)
class JsonWriter:
    """Writes one JSON document to standard output once everything is done."""

    settings: Settings = field(default_factory=Settings)

    def write_case(self, report: CaseReport) -> None:
        """Nothing yet: the document is written whole by ``finish``."""

    def finish(self, reports: Sequence[CaseReport], errors: Sequence[str]) -> None:
        """Write the case's report, or the folder document."""
        sys.stdout.write(dumps(reports_to_doc(reports, errors, values=self.settings.values)))

    def write_document(self, doc: Document) -> None:
        """Write the document's fields."""
        sys.stdout.write(dumps(jsonable(doc.fields), indent=doc.indent))
