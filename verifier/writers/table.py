"""The table writer: the readable rich table of each case's solvers and checks, and a total line
for several cases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from verifier.model import Verdict
from verifier.pipeline import CaseReport, CaseVerdict
from verifier.writers.base import Document, Settings

__all__ = ["TableWriter", "print_report", "print_totals"]

_STYLE = {
    Verdict.CONFIRMED: "green",
    Verdict.REFUTED: "bold red",
    Verdict.UNKNOWN: "yellow",
    CaseVerdict.VERIFIED: "bold green",
    CaseVerdict.REFUTED: "bold red",
    CaseVerdict.INCONCLUSIVE: "bold yellow",
}


def _fmt_work(work: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in work.items())


def print_report(rep: CaseReport, console: Console, verbose: bool = False) -> None:
    """A readable table of the solvers and checks of one case."""
    case = rep.case
    head = (
        f"[bold]{case.id}[/bold]  {case.semantics.value}, {case.graph.n} nodes, "
        f"{case.graph.m} moves  ->  [{_STYLE[rep.verdict]}]{rep.verdict.value.upper()}"
        f"[/{_STYLE[rep.verdict]}]  ({rep.seconds:.2f} s)"
    )
    console.print(head)
    s = rep.summary
    if "won" in s:
        parts = [f"won {s['won']}", f"lost {s['lost']}", f"drawn {s['drawn']}"]
        if s.get("max_remoteness") is not None:
            parts.append(f"longest win {s['max_remoteness']} plies")
        if s.get("root") is not None:
            parts.append(f"root {s['root']} = {s.get('root_value')}")
        console.print("  " + ", ".join(parts))
        sym = s.get("symmetry")
        if isinstance(sym, dict):
            console.print(
                f"  up to symmetry: {s['positions']} classes stand for {sym['positions']} "
                f"positions: won {sym['won']}, lost {sym['lost']}, drawn {sym['drawn']}"
            )
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column("  solver / check")
    t.add_column("verdict")
    t.add_column("seconds", justify="right")
    t.add_column("detail", overflow="fold")
    for run in rep.solvers:
        if run.result is not None:
            t.add_row(
                f"  {run.name}", "ran", f"{run.result.seconds:.3f}", _fmt_work(run.result.work)
            )
        elif verbose or (run.skipped or "").startswith("crashed"):
            t.add_row(f"  {run.name}", "skipped", "", escape(run.skipped or ""))
    for c in rep.checks:
        st = _STYLE[c.verdict]
        detail = c.detail
        if c.verdict is Verdict.REFUTED and c.witness:
            detail += f"  witness: {dict(c.witness)}"
        t.add_row(
            f"  {escape(c.name)}",
            f"[{st}]{c.verdict.value}[/{st}]",
            f"{c.seconds:.3f}",
            escape(detail),
        )
    console.print(t)


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
        """Print the case's table."""
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
            self.console.print(line, markup=False)
