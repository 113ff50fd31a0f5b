"""The table writer: the readable rich table of each case's solvers and checks, and a total line
for several cases."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from verifier.model import CheckResult, Verdict
from verifier.model.report import CaseReport, CaseVerdict, Finding
from verifier.model.results import ANSWER
from verifier.model.words import count
from verifier.writers.answer import finding_line, printed_block
from verifier.writers.base import Document, Settings
from verifier.writers.witness import witness_words

__all__ = [
    "TableWriter",
    "check_kind",
    "print_line",
    "print_report",
    "print_table",
    "print_totals",
]

_STYLE = {
    Verdict.CONFIRMED: "green",
    Verdict.REFUTED: "bold red",
    Verdict.UNKNOWN: "yellow",
    CaseVerdict.VERIFIED: "bold green",
    CaseVerdict.REFUTED: "bold red",
    CaseVerdict.INCONCLUSIVE: "bold yellow",
    CaseVerdict.SOLVED: "bold cyan",
}


def _fmt_work(work: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in work.items())


def _head(rep: CaseReport) -> str:
    """The first line of a case: its name, size, verdict and seconds (rich markup)."""
    case = rep.case
    return (
        f"[bold]{escape(case.id)}[/bold]  {case.semantics.value}, {count(case.graph.n, 'node')}, "
        f"{count(case.graph.m, 'move')}  ->  [{_STYLE[rep.verdict]}]{rep.verdict.value.upper()}"
        f"[/{_STYLE[rep.verdict]}]  ({rep.seconds:.2f} s)"
        + ("  (solvers only, no proofs: run verify for them)" if _unproved(rep) else "")
    )


def print_line(rep: CaseReport, console: Console) -> None:
    """One line for a case: its head and the root's answer without the line of play (or,
    without a root, the counts)."""
    answer = next(iter(printed_block(rep)), "").split("; line ")[0]
    why = next(
        (f"refuted: {finding_line(rep, f)}" for f in rep.findings),
        next((f"unknown: {_unknown(c)}" for c in _open(rep.checks)), ""),
    )
    tail = "; ".join(t for t in (answer, why) if t)
    # never highlighted: rich's highlighter regexes run for minutes on a long hostile name
    console.print(
        _head(rep) + (f"  {escape(tail)}" if tail else ""), soft_wrap=True, highlight=False
    )


def _open(checks: Sequence[CheckResult]) -> list[CheckResult]:
    """The undecided checks, "no solver answered" first: it is why the expect entries after it
    are open."""
    undecided = [c for c in checks if c.verdict is Verdict.UNKNOWN]
    return sorted(undecided, key=lambda c: c.check != ANSWER)


def _unknown(check: CheckResult) -> str:
    """An undecided check in a case's line: its name, or for "no solver answered" why (an
    --engine none of whose solvers runs here, say)."""
    if check.check == ANSWER:
        return check.detail.split(" (", 1)[0]
    return check.name


def print_report(rep: CaseReport, console: Console, verbose: bool = False) -> None:
    """A readable table of the solvers and checks of one case."""
    console.print(_head(rep), soft_wrap=True, highlight=False)
    for line in printed_block(rep):
        console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    s = rep.summary
    skipped = s.get("certificate")
    if isinstance(skipped, str) and skipped.startswith("skipped"):
        note = f"  self-check of the certificate {skipped}"  # docs/certificates.md
        console.print(note, markup=False, highlight=False, soft_wrap=True)
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column("  solver / check")
    t.add_column("verdict")
    t.add_column("seconds", justify="right")
    t.add_column("detail", overflow="fold")
    found = rep.findings
    folded = {id(c) for f in found for c in (f.check, *f.because) if f.because}
    for f in found:  # the root causes lead, their consequences folded under them
        if f.because:
            _check_row(t, rep, f.check.name, [f.check], skip=_SAID_BY_ROOT)
            _because_row(t, f, verbose)
    ran = [run for run in rep.solvers if run.result is not None]
    if verbose:
        for run in ran:
            assert run.result is not None
            t.add_row(
                f"  {run.name}", "ran", f"{run.result.seconds:.3f}", _fmt_work(run.result.work)
            )
    elif ran:
        secs = sum(run.result.seconds for run in ran if run.result is not None)
        t.add_row(
            f"  solvers ({len(ran)})", "ran", f"{secs:.3f}", ", ".join(run.name for run in ran)
        )
    for run in rep.solvers:
        if run.result is None and (verbose or (run.skipped or "").startswith("crashed")):
            t.add_row(f"  {run.name}", "skipped", "", escape(run.skipped or ""))
    rest = [c for c in rep.checks if id(c) not in folded or (verbose and c not in _roots(found))]
    for name, group in _grouped(rest, verbose):
        _check_row(t, rep, name, group)
    if rep.stages:  # the head's seconds, stage by stage: reading to the self-check
        spent = ", ".join(f"{k} {v:.2f} s" for k, v in rep.stages.items())
        t.add_row("  wall time", "", f"{rep.seconds:.3f}", spent)
    print_table(t, console)


def print_table(t: Table, console: Console) -> None:
    """On a terminal, the table fitted to its width; elsewhere (a pipe, a file) each row on
    one line, as wide as its text and no wider: no padding, no wrapping, so grep finds a row
    whole."""
    if console.is_terminal:
        console.print(t)
        return
    buf = io.StringIO()
    Console(emoji=False, file=buf, width=1_000_000, color_system=None, soft_wrap=True).print(t)
    for line in buf.getvalue().splitlines():
        console.print(line.rstrip(), markup=False, highlight=False, soft_wrap=True)


_SAID_BY_ROOT = frozenset({"claimed", "successors", "remoteness", "move"})
"""The witness fields the detail of an answer file's judgment already says."""


def _roots(found: list[Finding]) -> list[CheckResult]:
    return [f.check for f in found if f.because]


def _because_row(t: Table, f: Finding, verbose: bool) -> None:
    """``7 other checks  refuted  fail because of it: ...`` under a root cause."""
    n = len(f.because)
    names = ", ".join(dict.fromkeys(c.name for c in f.because))
    more = "" if verbose else "; -v shows each"
    st = _STYLE[Verdict.REFUTED]
    t.add_row(
        f"  {n} other check{'s' if n != 1 else ''}",
        f"[{st}]{Verdict.REFUTED.value}[/{st}]",
        f"{sum(c.seconds for c in f.because):.3f}",
        escape(f"fail{'s' if n == 1 else ''} because of it: {names}{more}"),
    )


def _unproved(rep: CaseReport) -> bool:
    return rep.verdict is CaseVerdict.SOLVED


def check_kind(name: str) -> str:
    """The kind of a check: its name without the solvers it judged (``agree score: a = b``
    and ``moves (a)`` are kinds ``agree score`` and ``moves``)."""
    if name.startswith("agree "):
        return name.split(":")[0]
    return name.split(" (")[0] if name.endswith(")") else name


def _grouped(checks: Sequence[CheckResult], verbose: bool) -> list[tuple[str, list[CheckResult]]]:
    """One group per kind of check in order of appearance; every check alone with ``verbose``,
    and every check that is not confirmed alone always (it carries its own detail)."""
    groups: dict[str, list[CheckResult]] = {}
    out: list[tuple[str, list[CheckResult]]] = []
    for c in checks:
        if verbose or c.verdict is not Verdict.CONFIRMED:
            out.append((c.name, [c]))
            continue
        kind = check_kind(c.name)
        if kind not in groups:
            groups[kind] = []
            out.append((kind, groups[kind]))
        groups[kind].append(c)
    return out


def _check_row(
    t: Table,
    rep: CaseReport,
    name: str,
    group: list[CheckResult],
    skip: frozenset[str] = frozenset(),
) -> None:
    c = group[0]
    st = _STYLE[c.verdict]
    detail = c.detail
    if c.verdict is Verdict.REFUTED and c.witness:
        words = witness_words(c.witness, rep.case.semantics, skip)
        detail += f"  ({words})" if words else ""
    if len(group) > 1:
        name = f"{name} ({len(group)})"
        detail = f"all confirmed; first: {detail}"
    t.add_row(
        f"  {escape(name)}",
        f"[{st}]{c.verdict.value}[/{st}]",
        f"{sum(g.seconds for g in group):.3f}",
        escape(detail),
    )


def print_totals(reports: Sequence[CaseReport], errors: int, console: Console) -> None:
    """One line counting the cases by verdict (and the bad inputs)."""
    counts = {v: sum(1 for r in reports if r.verdict is v) for v in CaseVerdict}
    line = ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
    if errors:
        line += f", {errors} bad input"
    console.print(f"[bold]{len(reports) + errors} case(s):[/bold] {line}")


@dataclass(frozen=True)
class TableWriter:
    """Prints each case's table as it finishes, then the totals of several cases."""

    settings: Settings = field(default_factory=Settings)

    @property
    def console(self) -> Console:
        return self.settings.console

    def write_case(self, report: CaseReport) -> None:
        """Print the case's table, or its one line (``Settings.brief``)."""
        brief = self.settings.brief
        if brief == "lines" or (brief == "failures" and report.verdict is CaseVerdict.VERIFIED):
            print_line(report, self.console)
        else:
            print_report(report, self.console, verbose=self.settings.verbose)

    def finish(self, reports: Sequence[CaseReport], errors: Sequence[str]) -> None:
        """Print the totals when more than one case was asked for."""
        if len(reports) + len(errors) > 1:
            print_totals(reports, len(errors), self.console)

    def write_document(self, doc: Document) -> None:
        """Print the document's lines, or its fields pretty-printed."""
        if doc.lines is None:
            self.console.print(dict(doc.fields))
            return
        for line in doc.lines:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
