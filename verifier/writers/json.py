"""The JSON writer: the ``--json`` machine report of a case (its keys are documented in the
README) and, for several cases, ``{"verdict", "cases", "errors"}``."""

from __future__ import annotations

import json
import math
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from verifier.model import SolverResult
from verifier.model.columns import LOOPY, VALUE, ColumnSpec, column_spec, to_plain
from verifier.model.describe import describe_view
from verifier.model.graph import GameGraph
from verifier.model.report import CaseReport
from verifier.model.solution import shown_entries
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


def _json_entries(spec: ColumnSpec, g: GameGraph, entries: Any) -> list[Any]:
    shown = spec.show_each(g, entries)
    return shown if set(map(type, shown)) <= {str} else list(map(jsonable, shown))


def _solver_dict(rep: CaseReport, r: SolverResult, values: bool) -> dict[str, Any]:
    g = rep.case.graph
    d: dict[str, Any] = {"view": r.view.value, "seconds": round(r.seconds, 6)}
    cov = r.covered_mask()
    d["covered"] = int(cov.sum())
    if values:  # a column at a time: names a list at a time, each distinct entry shown once
        desc = describe_view(r.view)
        xs = np.flatnonzero(cov)
        if LOOPY in r.columns:  # an infinite Grundy value reads its K: node by node
            shown = [jsonable(desc.show_node(r.columns, x)) for x in xs.tolist()]
        else:
            v = r.columns[VALUE]
            shown = shown_entries(
                v.data[xs], v.given[xs], lambda es: [jsonable(desc.show(e)) for e in es]
            )
        d["values"] = dict(zip(g.names_of(xs.tolist()), shown, strict=True))
        for name, col in r.columns.items():
            if name in (VALUE, LOOPY):
                continue
            spec = column_spec(name)
            xs = np.flatnonzero(col.given)
            shown = shown_entries(col.data[xs], col.given[xs], partial(_json_entries, spec, g))
            d[_JSON_KEY.get(name, name)] = dict(zip(g.names_of(xs.tolist()), shown, strict=True))
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


FLAT_FROM = 1000
"""A mapping of at least this many scalars (a solver's values, remoteness, moves per position)
is written by ``dumps`` a whole map at a time (``_flat_text``)."""
_SCALARS = {str, int, float, bool, type(None)}


def dumps(doc: Any, indent: int | None = 1) -> str:
    """The JSON text of a serialisable document, with its final newline: ``json.dumps``'s very
    text. Indented, the standard library encodes in Python (a million positions' values took
    tens of seconds); the large flat maps are written here instead, by the C encoder's string
    escaping and one join, and put in their place."""
    if indent is None:
        return json.dumps(doc, allow_nan=False) + "\n"
    flat: dict[str, Mapping[str, Any]] = {}
    text = json.dumps(_with_tokens(doc, flat), indent=indent, allow_nan=False)
    if not flat:
        return text + "\n"
    pieces, at = [], 0
    spots = sorted((text.index(f'"{token}"'), token) for token in flat)
    for where, token in spots:
        line = text.rfind("\n", 0, where) + 1
        lead = len(text[line:where]) - len(text[line:where].lstrip(" "))
        pieces += [text[at:where], _flat_text(flat[token], lead, indent)]
        at = where + len(token) + 2
    return "".join([*pieces, text[at:], "\n"])


def _with_tokens(x: Any, flat: dict[str, Mapping[str, Any]]) -> Any:
    """``x`` with each large flat map replaced by a token string unlike any other text."""
    if isinstance(x, dict):
        if len(x) >= FLAT_FROM and set(map(type, x)) == {str} and _scalars(x.values()):
            token = f"@flat-{uuid.uuid4().hex}@"
            flat[token] = x
            return token
        return {k: _with_tokens(v, flat) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_with_tokens(v, flat) for v in x]
    return x


def _scalars(values: Any) -> bool:
    return set(map(type, values)) <= _SCALARS


def _flat_text(m: Mapping[str, Any], lead: int, indent: int) -> str:
    """``m`` as ``json.dumps(..., indent=indent)`` writes it on a line indented by ``lead``:
    each entry on its own line, each distinct value encoded once."""
    pad = " " * (lead + indent)
    shown: dict[tuple[type, Any], str] = {}

    def text(v: Any) -> str:  # by type and value (1 and True differ), floats by their repr
        key = (float, float.__repr__(v)) if type(v) is float else (type(v), v)
        if key not in shown:
            shown[key] = json.dumps(v, allow_nan=False)
        return shown[key]

    escaped = json.encoder.encode_basestring_ascii  # json.dumps's own, for every string
    kinds = set(map(type, m.values()))
    values: Any = map(text, m.values())
    if kinds == {str}:  # names, words: no call of ours per entry
        values = map(escaped, m.values())
    elif kinds == {int}:
        values = map(int.__repr__, m.values())
    entries = map(": ".join, zip(map(escaped, m.keys()), values, strict=True))
    return "{\n" + pad + (",\n" + pad).join(entries) + "\n" + " " * lead + "}"


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
