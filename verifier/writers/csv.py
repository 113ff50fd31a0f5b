"""The CSV writer: the case's answer, one row per covered node (``position``, ``value``,
``outcome``, then every other column of the ``Solution`` by name, empty where it has no entry);
for several cases one table with a leading ``case`` column. The header is always written;
quoting is RFC 4180's (the ``csv`` module's), lines end in ``\\n``."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray

from verifier.errors import UsageError
from verifier.model.columns import LOOPY, VALUE, ordered
from verifier.model.report import CaseReport
from verifier.model.solution import Solution
from verifier.writers.base import Coded, Document, Records, Settings, reasons, single_case

__all__ = ["CsvWriter", "case_records", "solution_columns", "solution_records", "write_records"]

LEADING = ("position", "value", "outcome")
"""The first columns of every row of an answer (``Solution.records``)."""


def solution_columns(solution: Solution | None) -> tuple[str, ...]:
    """The columns of ``Solution.records``: the leading ones, then the answer's other columns."""
    others = [] if solution is None else [c for c in solution.columns if c not in (VALUE, LOOPY)]
    return LEADING + tuple(others)


def solution_records(solution: Solution | None) -> Records:
    """An answer's rows (none, under the leading header, when no solver answered)."""
    if solution is None:
        return Records(solution_columns(None))
    columns, cols = solution.coded_columns()
    return Records(columns, cells=[Coded(codes, _column_cells(shown)) for codes, shown in cols])


def _with_case(reports: Sequence[CaseReport]) -> Iterator[Mapping[str, Any]]:
    for r in reports:
        if r.solution is not None:
            for row in r.solution.records():
                yield {"case": r.case.id, **row}


def case_records(reports: Sequence[CaseReport], errors: Sequence[str]) -> Records:
    """The rows of one case, or of several under a leading ``case`` column (the union of their
    columns, in the registry's order)."""
    if single_case(reports, errors):
        return solution_records(reports[0].solution)
    names = {c for r in reports for c in solution_columns(r.solution)} - set(LEADING)
    return Records(("case", *LEADING, *ordered(names)), _with_case(reports))


def _cell(v: Any) -> Any:
    """A value as a CSV cell: ``None`` empty, lists and mappings as JSON, the rest as is."""
    if v is None:
        return ""
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v)
    return v


def write_records(records: Records, out: TextIO) -> None:
    """Write the header and the rows."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(records.columns)
    if records.cells is not None:  # cells as written (None empty)
        joined = _joined(records.cells)
        if joined is not None:  # nothing to quote: the lines joined whole
            out.write(joined)
        else:
            cells = [c.tolist() if isinstance(c, Coded) else c for c in records.cells]
            text = [_texts(column) for column in cells]
            w.writerows(zip(*text, strict=True))  # a lone empty cell is written ""
    for row in records.rows:
        w.writerow([_cell(row.get(c)) for c in records.columns])


_QUOTED = ',"\r\n'
"""The characters of a cell the ``csv`` module quotes (RFC 4180)."""


def _texts(column: Sequence[Any]) -> Sequence[str]:
    """A column's cells as the ``csv`` module writes them unquoted (``None`` empty, anything
    else ``str``), without a call per cell where it can: strings and ``None``, or a few
    distinct ints (each shown once)."""
    kinds = set(map(type, column))
    if kinds <= {str}:
        return column
    if kinds <= {str, type(None)}:
        return [v or "" for v in column]
    distinct = set(column) if kinds <= {int, type(None)} else None  # none equal, as -0.0 0.0
    if distinct is not None and len(distinct) < len(column) // 8:  # few: each shown once
        shown = {v: "" if v is None else str(v) for v in distinct}
        return list(map(shown.__getitem__, column))
    return ["" if v is None else v if type(v) is str else str(v) for v in column]


def _quoted(column: Sequence[Any], text: Sequence[str]) -> bool:
    """Some cell of the column is quoted by the ``csv`` module (ints and ``None`` never)."""
    if set(map(type, column)) <= {int, type(None)}:
        return False
    every = "".join(text)
    return any(c in every for c in _QUOTED)


def _joined(cells: Sequence[Sequence[Any]]) -> str | None:
    """The rows as the ``csv`` module writes them where it quotes no cell (``None``: it quotes
    one, or writes a lone empty cell ``""``), made by one join: each row's cells and commas as
    pieces, a column's distinct cells (``Coded``) each made text once, with the commas beside
    them, a few such columns side by side as one piece."""
    rows = len(cells[0]) if cells else 0
    if len(cells) < 2 or {len(c) for c in cells} != {rows}:
        return None
    parts: list[tuple[NDArray[np.intp] | None, list[str]]] = []  # codes None: the same text
    for j, column in enumerate(cells):
        codes, shown = (column.codes, column.shown) if isinstance(column, Coded) else (None, column)
        text = list(_texts(shown))
        if _quoted(shown, text):
            return None
        end = "," if j < len(cells) - 1 else "\n"
        if codes is not None and 4 * len(text) <= rows:  # few distinct: each with its comma
            parts.append((codes, [t + end for t in text]))
        else:
            parts += [(np.arange(rows) if codes is None else codes, text), (None, [end])]
    merged = parts[:1]
    for codes, text in parts[1:]:  # beside a few distinct cells: one piece for both
        was, before = merged[-1]
        if len(before) * len(text) > max(1, min(rows // 4, 1 << 16)):
            merged.append((codes, text))
        elif was is None or codes is None:
            joint = [a + b for a in before for b in text]
            merged[-1] = (codes if was is None else was, joint)
        else:
            merged[-1] = (was * len(text) + codes, [a + b for a in before for b in text])
    pieces = np.empty(rows * len(merged), dtype=object)
    for k, (codes, text) in enumerate(merged):
        each = np.fromiter(text, dtype=object, count=len(text))
        pieces[k :: len(merged)] = text[0] if codes is None else each[codes]
    return "".join(pieces.tolist())


_NESTED = {list, tuple, dict}
"""The types of a cell written as JSON (``_cell``)."""


def _column_cells(column: list[Any]) -> list[Any]:
    """A column's entries as cells (``_cell``), the column as it is where that changes nothing
    (``None`` is written empty): a million rows without a call per cell."""
    return list(map(_cell, column)) if set(map(type, column)) & _NESTED else column


@dataclass(frozen=True)
class CsvWriter:
    """Writes one CSV table to standard output once everything is done."""

    settings: Settings = field(default_factory=Settings)

    def write_case(self, report: CaseReport) -> None:
        """Nothing yet: the table is written whole by ``finish`` (its columns are their union)."""

    def finish(self, reports: Sequence[CaseReport], errors: Sequence[str]) -> None:
        """Write the answer of the case, or of every case (bad inputs are on standard error,
        and so is each case not verified: its verdict and first reason, in one line). One case
        whose CSV the outside check certified: that very text."""
        if single_case(reports, errors) and reports[0].printed_csv is not None:
            sys.stdout.write(reports[0].printed_csv)
        else:
            write_records(case_records(reports, errors), sys.stdout)
        for r in reports:
            why = reasons(r)
            if why:
                first = why[0]
                where = r.case.path if r.case.path is not None else r.case.id
                detail = first.detail.splitlines()[0] if first.detail else ""
                line = f"{where}: {r.verdict.value.upper()}: {first.name}: {detail}"
                print(line, file=sys.stderr)

    def write_document(self, doc: Document) -> None:
        """Write the document's rows."""
        if doc.records is None:
            raise UsageError("--format csv: this command writes no CSV")
        write_records(doc.records, sys.stdout)
