"""The writers' common ground: the formats, the writer interface and what writers are given."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol, overload

import numpy as np
from numpy.typing import NDArray
from rich.console import Console

from verifier.model.report import CaseReport, CaseVerdict
from verifier.model.results import CheckResult, Verdict

__all__ = [
    "Coded",
    "Document",
    "Format",
    "Records",
    "Settings",
    "Writer",
    "overall_verdict",
    "reasons",
    "single_case",
]


class Format(StrEnum):
    """An output format of the command line (``--format``)."""

    table = "table"
    json = "json"
    csv = "csv"


@dataclass(frozen=True, eq=False)
class Coded(Sequence[Any]):
    """A column of cells held as codes into its distinct cells: cell ``i`` is
    ``shown[codes[i]]`` (``model.solution.shown_codes``), a million cells without a list of
    them."""

    codes: NDArray[np.intp]
    shown: Sequence[Any]

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self.shown[c] for c in self.codes[i].tolist()]
        return self.shown[int(self.codes[i])]

    def tolist(self) -> list[Any]:
        """The cells."""
        shown = np.fromiter(self.shown, dtype=object, count=len(self.shown))
        return shown[self.codes].tolist()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Records:
    """Rows for the CSV writer: the column names and one mapping per row (a missing key or
    ``None`` is an empty cell)."""

    columns: tuple[str, ...]
    rows: Iterable[Mapping[str, Any]] = ()
    cells: Sequence[Sequence[Any]] | None = None
    """The table a column at a time, in the order of ``columns`` (``None`` an empty cell, a
    list or mapping already JSON; a column a list or ``Coded``), instead of ``rows``: a large
    answer is written without a mapping per row."""


@dataclass(frozen=True)
class Document:
    """A command's result that is not a case report (a distributed run, a Grundy sequence, a
    proof), in each form a writer may write it."""

    fields: Mapping[str, Any]
    """The JSON document (the JSON writer makes it serialisable with ``jsonable``)."""
    lines: tuple[str, ...] | None = None
    """The table form as plain lines of text; ``None``: ``fields`` pretty-printed by rich."""
    records: Records | None = None
    """The CSV form; ``None``: the command has none."""
    indent: int | None = 1
    """Indentation of the JSON text (``None``: one line)."""


Brief = Literal["full", "failures", "lines"]
"""How much of each case the table writer prints."""


@dataclass(frozen=True)
class Settings:
    """What a writer is told by the command line."""

    console: Console = field(default_factory=lambda: Console(emoji=False))
    """Where the table writer prints."""
    values: bool = True
    """JSON: include the per-node values of every solver."""
    verbose: bool = False
    """Table: also list the skipped solvers."""
    brief: Brief = "full"
    """Table: ``full`` (every case's table), ``failures`` (one line per case, the table of a
    case that is not verified) or ``lines`` (one line per case, nothing more)."""


class Writer(Protocol):
    """One output format: cases are handed over as they finish, then all at once."""

    def write_case(self, report: CaseReport) -> None:
        """Called as each case is done (a streaming format writes it now)."""

    def finish(self, reports: Sequence[CaseReport], errors: Sequence[str]) -> None:
        """Called once after the last case, with every report and every bad-input message."""

    def write_document(self, doc: Document) -> None:
        """Write a result that is not a case report."""


def overall_verdict(reports: Sequence[CaseReport], errors: int) -> str:
    """The worst outcome of a run: ``bad-input``, ``refuted``, ``inconclusive``, ``solved`` (no
    proofs were run) or ``verified``."""
    if errors:
        return "bad-input"
    for verdict in (CaseVerdict.REFUTED, CaseVerdict.INCONCLUSIVE, CaseVerdict.SOLVED):
        if any(r.verdict is verdict for r in reports):
            return verdict.value
    return CaseVerdict.VERIFIED.value


def single_case(reports: Sequence[CaseReport], errors: Sequence[str]) -> bool:
    """One case was asked for and read: its output stands alone (no folder wrapper)."""
    return len(reports) == 1 and not errors


def reasons(report: CaseReport) -> list[CheckResult]:
    """Why a case is not verified: the refuted checks, root causes first, or else the checks
    that could not decide; none for a verified (or solved) case."""
    if report.verdict is CaseVerdict.REFUTED:
        return [c for f in report.findings for c in (f.check, *f.because)]
    if report.verdict is CaseVerdict.INCONCLUSIVE:
        return [c for c in report.checks if c.verdict is Verdict.UNKNOWN]
    return []
