"""Turning a ``CaseReport`` into the ``--json`` machine report and the readable rich table."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from verifier.model import SolverResult, Verdict
from verifier.model.columns import LOOPY, VALUE, column_spec, to_plain
from verifier.model.describe import describe_view
from verifier.pipeline import CaseReport, CaseVerdict

__all__ = ["jsonable", "print_report", "report_to_dict"]

_STYLE = {
    Verdict.CONFIRMED: "green",
    Verdict.REFUTED: "bold red",
    Verdict.UNKNOWN: "yellow",
    CaseVerdict.VERIFIED: "bold green",
    CaseVerdict.REFUTED: "bold red",
    CaseVerdict.INCONCLUSIVE: "bold yellow",
}


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
    counts = {v: sum(1 for r in reports if r.verdict is v) for v in CaseVerdict}
    line = ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
    if errors:
        line += f", {errors} bad input"
    console.print(f"[bold]{len(reports) + errors} case(s):[/bold] {line}")
