"""A verify report in a notebook (``CaseReport._repr_html_``): the verdict, the answer in
words, the checks that did not confirm with their witnesses, the answer table, and for small
graphs a picture with the witness positions highlighted."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from verifier.model import Verdict
from verifier.writers.answer import answer_lines
from verifier.writers.witness import witness_words

if TYPE_CHECKING:
    from verifier.model.report import CaseReport

__all__ = ["report_html", "witness_nodes"]


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
    table = rep.solution._repr_html_().split("<svg")[0]
    picture = rep.solution.svg(witness_nodes(rep)) or ""
    return head + answer + summary + body + table + picture
