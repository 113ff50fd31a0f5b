"""A verify report in a notebook (``CaseReport._repr_html_``): the verdict, the answer in
words, the checks that did not confirm with their witnesses, the answer table, and for small
graphs a picture with the witness positions highlighted; an answer (``Solution._repr_html_``):
its table and picture. Lent to the model through ``model.display``."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from verifier.model import Verdict
from verifier.model.display import displays
from verifier.writers.answer import answer_lines
from verifier.writers.svg import solution_svg
from verifier.writers.witness import witness_words

if TYPE_CHECKING:
    from verifier.model.report import CaseReport
    from verifier.model.solution import Solution

__all__ = ["report_html", "solution_html", "witness_nodes"]

SHOWN = 50
"""The rows of an answer's table a notebook shows (then how many more)."""


def witness_nodes(rep: CaseReport) -> set[int]:
    """The positions the refuted checks' witnesses name (``node``, ``failing_nodes``)."""
    g = rep.case.graph
    names: set[str] = set()
    for c in rep.checks:
        if c.verdict is Verdict.REFUTED and c.witness:
            if isinstance(c.witness.get("node"), str):
                names.add(c.witness["node"])
            names.update(n for n in c.witness.get("failing_nodes", ()) if isinstance(n, str))
    return {g.id_of(n) for n in names if g.has_node(n)}


def _cell(v: Any) -> str:
    """A table cell: empty where a column has no entry."""
    return "" if v is None else str(v)


def _table(sol: Solution) -> str:
    """Who wins from where, one row per position (the first ``SHOWN``)."""
    rows = list(sol.records())
    head = list(rows[0]) if rows else ["position", "value", "outcome"]
    d = sol.description
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_cell(r.get(h)))}</td>" for h in head) + "</tr>"
        for r in rows[:SHOWN]
    )
    more = f"<p>... {len(rows) - SHOWN} more positions</p>" if len(rows) > SHOWN else ""
    title = (
        f"<p><b>{escape(d.semantics.value)}</b>: values from the view of "
        f"{escape(d.point_of_view)}; {len(rows)} of {sol.n} positions answered</p>"
    )
    return f"{title}<table><tr>{cells}</tr>{body}</table>{more}"


@displays("solution_html")
def solution_html(sol: Solution) -> str:
    """``Solution._repr_html_``: the answer's table, then the picture of a small graph."""
    return _table(sol) + (solution_svg(sol) or "")


@displays("report_html")
def report_html(rep: CaseReport) -> str:
    """The report as HTML (see the module docstring)."""
    case = rep.case
    head = (
        f"<p><b>{escape(case.id)}</b> ({escape(case.semantics.value)}, {case.graph.n} "
        f"positions, {case.graph.m} moves): <b>{rep.verdict.value.upper()}</b></p>"
    )
    answer = "".join(f"<p>{escape(line)}</p>" for line in answer_lines(rep))
    sem = case.semantics
    open_ = [c for c in rep.checks if c.verdict is not Verdict.CONFIRMED]
    checks = "".join(
        f"<li><b>{escape(c.verdict.value)}</b> {escape(c.name)}: {escape(c.detail)}"
        + (f"<br>{escape(words)}" if (words := witness_words(c.witness or {}, sem)) else "")
        + "</li>"
        for c in open_
    )
    confirmed = len(rep.checks) - len(open_)
    summary = f"<p>{confirmed} of {len(rep.checks)} checks confirmed</p>"
    body = f"<ul>{checks}</ul>" if checks else ""
    if rep.solution is None:
        return head + answer + summary + body
    table = _table(rep.solution)
    picture = solution_svg(rep.solution, witness_nodes(rep)) or ""
    return head + answer + summary + body + table + picture
