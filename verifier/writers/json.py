"""The JSON writer: the ``--json`` machine report of a case (its keys are documented in the
README) and, for several cases, ``{"verdict", "cases", "errors"}``."""

from __future__ import annotations

import json
import math
import re
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import SolverResult
from verifier.model.columns import LOOPY, VALUE, ColumnSpec, column_spec, to_plain
from verifier.model.describe import describe_view
from verifier.model.graph import GameGraph
from verifier.model.report import CaseReport
from verifier.model.solution import shown_codes
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


@dataclass(frozen=True, eq=False)
class _Flat:
    """A map of position names to shown entries held as columns, not a dict of a million
    entries: position ``names[ids[i]]`` shows ``shown[codes[i]]`` (``dumps`` writes its text
    straight from them, ``as_dict`` is the dict it stands for)."""

    graph: GameGraph
    ids: NDArray[np.int64]
    codes: NDArray[np.intp]
    shown: list[Any] | None
    """Each distinct shown entry once (``model.solution.shown_codes``); ``None``: the codes
    are positions' ids, each shown by its name (a move)."""

    def __len__(self) -> int:
        return len(self.ids)

    def as_dict(self) -> dict[str, Any]:
        if self.shown is None:
            each = self.graph.names_of(self.codes.tolist())
        else:
            each = np.fromiter(self.shown, dtype=object, count=len(self.shown))[self.codes].tolist()
        return dict(zip(self.graph.names_of(self.ids.tolist()), each, strict=True))


def _solver_dict(rep: CaseReport, r: SolverResult, values: bool) -> dict[str, Any]:
    g = rep.case.graph
    d: dict[str, Any] = {"view": r.view.value, "seconds": round(r.seconds, 6)}
    cov = r.covered_mask()
    d["covered"] = int(cov.sum())
    if values:  # a column at a time: names a list at a time, each distinct entry shown once
        desc = describe_view(r.view)
        xs = np.flatnonzero(cov)
        if LOOPY in r.columns:  # an infinite Grundy value reads its K: node by node
            each = [jsonable(desc.show_node(r.columns, x)) for x in xs.tolist()]
            codes, shown = np.arange(len(each)), each
        else:
            v = r.columns[VALUE]
            codes, shown = shown_codes(
                v.data[xs], v.given[xs], lambda es: [jsonable(desc.show(e)) for e in es]
            )
        d["values"] = _Flat(g, xs, codes, shown)
        for name, col in r.columns.items():
            if name in (VALUE, LOOPY):
                continue
            spec = column_spec(name)
            xs = np.flatnonzero(col.given)
            if spec.names_nodes and col.data.dtype.kind in "iu" and len(xs):
                to = col.data[xs].astype(np.int64)
                if to.min() >= 0 and to.max() < g.n:  # positions: named when written
                    d[_JSON_KEY.get(name, name)] = _Flat(g, xs, to, None)
                    continue
            codes, shown = shown_codes(col.data[xs], col.given[xs], partial(_json_entries, spec, g))
            d[_JSON_KEY.get(name, name)] = _Flat(g, xs, codes, shown)
    d["work"] = jsonable(dict(r.work))
    if r.extra:
        d["extra"] = jsonable(dict(r.extra))
    return d


def _plain(x: Any) -> Any:
    """``x`` with each ``_Flat`` made the dict it stands for."""
    if isinstance(x, _Flat):
        return x.as_dict()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def report_to_dict(rep: CaseReport, values: bool = True) -> dict[str, Any]:
    """The machine report of one case (the ``--json`` output)."""
    return _plain(_report_doc(rep, values))  # type: ignore[no-any-return]


def _report_doc(rep: CaseReport, values: bool) -> dict[str, Any]:
    """``report_to_dict`` with the large maps left as ``_Flat`` (``dumps`` writes them)."""
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
    return _plain(_reports_doc(reports, errors, values))  # type: ignore[no-any-return]


def _reports_doc(
    reports: Sequence[CaseReport], errors: Sequence[str], values: bool
) -> dict[str, Any]:
    if single_case(reports, errors):
        return _report_doc(reports[0], values)
    return {
        "verdict": overall_verdict(reports, len(errors)),
        "cases": [_report_doc(r, values) for r in reports],
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
    escaping and one join, and put in their place (a ``_Flat`` straight from its columns)."""
    if indent is None:
        return json.dumps(doc, allow_nan=False, default=_as_dict) + "\n"
    flat: dict[str, Any] = {}
    text = json.dumps(_with_tokens(doc, flat, _Names()), indent=indent, allow_nan=False)
    if not flat:
        return text + "\n"
    pieces, at = [], 0
    spots = sorted((text.index(f'"{token}"'), token) for token in flat)
    for where, token in spots:
        line = text.rfind("\n", 0, where) + 1
        lead = len(text[line:where]) - len(text[line:where].lstrip(" "))
        m = flat[token]
        if isinstance(m, dict):
            written = _flat_text(m, lead, indent)
        else:
            written = _columns_text(m[0], m[1], m[2], lead, indent)
        pieces += [text[at:where], written]
        at = where + len(token) + 2
    return "".join([*pieces, text[at:], "\n"])


def _as_dict(x: Any) -> Any:
    if isinstance(x, _Flat):
        return x.as_dict()
    raise TypeError(f"Object of type {type(x).__name__} is not JSON serializable")


def _with_tokens(x: Any, flat: dict[str, Any], names: _Names | None = None) -> Any:
    """``x`` with each large flat map replaced by a token string unlike any other text."""
    names = _Names() if names is None else names
    if isinstance(x, _Flat):
        keys = targets = None
        if len(x) >= max(FLAT_FROM, 1) and (x.shown is None or _scalars(x.shown)):
            keys = names.texts(x.graph, x.ids, keys=True)
            targets = names.texts(x.graph, x.codes) if x.shown is None else None
        if keys is None or (x.shown is None and targets is None):
            return _with_tokens(x.as_dict(), flat, names)
        token = f"@flat-{uuid.uuid4().hex}@"
        flat[token] = (x, keys, targets)
        return token
    if isinstance(x, dict):
        if len(x) >= FLAT_FROM and set(map(type, x)) == {str} and _scalars(x.values()):
            token = f"@flat-{uuid.uuid4().hex}@"
            flat[token] = x
            return token
        return {k: _with_tokens(v, flat, names) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_with_tokens(v, flat, names) for v in x]
    return x


def _scalars(values: Any) -> bool:
    return set(map(type, values)) <= _SCALARS


def _text(v: Any) -> str:
    """A scalar's JSON text as ``json.dumps`` writes it (its own calls for strings and ints)."""
    if type(v) is str:
        return json.encoder.encode_basestring_ascii(v)
    if type(v) is int:
        return int.__repr__(v)
    return json.dumps(v, allow_nan=False)


def _flat_text(m: Mapping[str, Any], lead: int, indent: int) -> str:
    """``m`` as ``json.dumps(..., indent=indent)`` writes it on a line indented by ``lead``:
    each entry on its own line, each distinct value encoded once."""
    pad = " " * (lead + indent)
    shown: dict[tuple[type, Any], str] = {}

    def text(v: Any) -> str:  # by type and value (1 and True differ), floats by their repr
        key = (float, float.__repr__(v)) if type(v) is float else (type(v), v)
        if key not in shown:
            shown[key] = _text(v)
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


_PLAIN_NAME = re.compile(r'[\x00-\x1f"\\]')
"""A character ``json.dumps`` escapes in an ASCII string."""


class _Names:
    """The positions' names as JSON writes them between quotes, made once per graph for all
    its maps (``None``: names not all distinct strings, written through a dict)."""

    def __init__(self) -> None:
        self._of: dict[int, tuple[GameGraph, NDArray[Any] | None]] = {}

    def texts(self, g: GameGraph, ids: NDArray[Any], keys: bool = False) -> NDArray[Any] | None:
        """The texts of the names of ``ids``, in order (``keys``: distinct names)."""
        if id(g) not in self._of and 4 * len(ids) < g.n:  # a few of many: these names only
            texts = _name_texts(g.names_of(ids.tolist()))
            if texts is None or (keys and len(set(texts.tolist())) < len(texts)):
                return None
            return texts
        if id(g) not in self._of:
            names = g.names_of(range(g.n))
            texts = _name_texts(names)
            if texts is not None and g.has_names and len(set(names)) < len(names):
                texts = None  # the default names "0".."n-1" are distinct
            self._of[id(g)] = (g, texts)
        every = self._of[id(g)][1]
        return None if every is None else every[ids]


def _name_texts(names: list[Any]) -> NDArray[Any] | None:
    """The names as ``json.dumps`` writes a string, without its quotes; ``None`` unless every
    name is a ``str``."""
    if set(map(type, names)) - {str}:
        return None
    every = "".join(names)
    if not every.isascii() or _PLAIN_NAME.search(every):  # some name escaped: each escaped
        names = [json.encoder.encode_basestring_ascii(x)[1:-1] for x in names]
    return np.fromiter(names, dtype=object, count=len(names))


def _columns_text(
    m: _Flat, keys: NDArray[Any], targets: NDArray[Any] | None, lead: int, indent: int
) -> str:
    """``json.dumps(m.as_dict(), indent=indent)`` on a line indented by ``lead``, written from
    the columns: one join of each entry's key (``keys``) and its value's text (a distinct
    value's made once, with what comes between it and the next key; a position's name from
    ``targets``)."""
    pad, end = " " * (lead + indent), "\n" + " " * lead + "}"
    if m.shown is None:  # key, '": "', name, '",' up to the next key's quote
        assert targets is not None
        every = np.empty(4 * len(keys), dtype=object)
        every[0::4], every[1::4], every[2::4], every[3::4] = keys, '": "', targets, f'",\n{pad}"'
        every[-1] = '"' + end
        return f'{{\n{pad}"' + "".join(every.tolist())
    after = [f'": {_text(v)},\n{pad}"' for v in m.shown]
    texts = np.fromiter(after, dtype=object, count=len(after))[m.codes]
    texts[-1] = f'": {_text(m.shown[m.codes[-1]])}{end}'
    every = np.empty(2 * len(keys), dtype=object)
    every[0::2], every[1::2] = keys, texts
    return f'{{\n{pad}"' + "".join(every.tolist())


@dataclass(frozen=True)
class JsonWriter:
    """Writes one JSON document to standard output once everything is done."""

    settings: Settings = field(default_factory=Settings)

    def write_case(self, report: CaseReport) -> None:
        """Nothing yet: the document is written whole by ``finish``."""

    def finish(self, reports: Sequence[CaseReport], errors: Sequence[str]) -> None:
        """Write the case's report, or the folder document."""
        sys.stdout.write(dumps(_reports_doc(reports, errors, self.settings.values)))

    def write_document(self, doc: Document) -> None:
        """Write the document's fields."""
        sys.stdout.write(dumps(jsonable(doc.fields), indent=doc.indent))
