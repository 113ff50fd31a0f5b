"""The ``verifier uniqueness`` document: the structure of a case's solution set, the headline
first, in the words of the semantics (``verifier.research.uniqueness``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from verifier.model.describe import describe
from verifier.model.words import count as counted
from verifier.research.uniqueness import SolutionSet
from verifier.writers.base import Document, Records

__all__ = ["uniqueness_document"]

SHOWN = 20
"""Free positions and components listed in the table (all of them in JSON and CSV)."""

_EQUATIONS = {
    "minimax": "(T+MM), the minimax equations",
    "normal": "the won/lost rules without ranks",
    "reachability": "the attractor rules",
    "impartial": "the mex equations",
}


def _headline(s: SolutionSet) -> str:
    eq = _EQUATIONS[s.case.semantics.value]
    if s.count == 0:
        return f"{s.case.id}: {eq} have no solution"
    if s.count == 1:
        return f"{s.case.id}: {eq} have exactly one solution: the only answer the rules allow"
    if s.count is not None:
        return f"{s.case.id}: {eq} have {s.count:,} solutions ({s.method}: {s.how})"
    if s.estimate is not None:
        return f"{s.case.id}: {eq} have about {s.estimate:,} solutions (approximate: {s.how})"
    lo, hi = s.count_bounds
    top = f"{hi:,}" if hi is not None else "astronomically many"
    return f"{s.case.id}: {eq} have between {lo:,} and {top} solutions (bounds: {s.how})"


def uniqueness_document(s: SolutionSet) -> Document:
    """Table: the headline, the free positions with their ranges, the components; JSON: all of
    ``SolutionSet.to_dict``; CSV: one row per free position."""
    g = s.case.graph
    free = np.flatnonzero(s.free).tolist()
    lines = [_headline(s)]
    if s.count == 0:  # nothing to say of the positions' values in every solution: none
        loopy_values = describe(s.case.semantics).form.infinite_values
        loopy = "; verify answers it with loopy values" if loopy_values else ""
        lines.append(f"no values for {counted(g.n, 'position')} satisfy them{loopy}")
    elif free:
        decided = set(free) <= set(s.attained) or (s.count is not None and not s.attained)
        what = "take" if decided else "may take"
        lines.append(
            f"{len(free):,} of {g.n:,} positions {what} more than one value; the others have the "
            "same value in every solution"
        )
    else:
        lines.append(f"every one of the {g.n:,} positions has the same value in every solution")
    lines.append(f"Z3 on the bounds: {s.certified}")
    if s.kars_position:
        kp = s.kars_position
        lines.append(
            f"Kars' score (the draw-closest solution) sits at the least solution at "
            f"{kp['at_least_solution']:,} free positions, at the greatest at "
            f"{kp['at_greatest_solution']:,}, strictly between at {kp['strictly_between']:,}"
        )
    rows = list(_rows(s))
    if rows:
        lines.append("")
        lines.append("free positions (value in the reference solution; range over all solutions):")
        for r in rows[:SHOWN]:
            lines.append(f"  {r['position']}: {r['reference']}  range {r['range']}")
        if len(rows) > SHOWN:
            lines.append(f"  ... {len(rows) - SHOWN:,} more (--format json or csv)")
    if s.components:
        lines.append("")
        lines.append("free components (sinks first; solutions given the nodes below):")
        for k, c in enumerate(s.components[:SHOWN]):
            names = ", ".join(g.name(x) for x in c.nodes[:6]) + (" ..." if len(c.nodes) > 6 else "")
            count = (
                "not counted" if c.count is None else f"{c.count:,}" + ("" if c.complete else "+")
            )
            dep = f"; depends on {', '.join(f'#{j}' for j in c.depends_on)}" if c.depends_on else ""
            kind = "cycle" if c.cyclic else "no cycle"
            lines.append(f"  #{k} {len(c.nodes)} position(s) ({kind}): {names}: {count}{dep}")
        if len(s.components) > SHOWN:
            lines.append(f"  ... {len(s.components) - SHOWN:,} more components (--format json)")
    lines.append(f"({s.seconds:.2f} s)")
    return Document(
        s.to_dict(),
        tuple(lines),
        Records(("position", "reference", "range", "values"), rows),
    )


def _rows(s: SolutionSet) -> Any:
    """One row per free position: the reference value, the range, the values attained."""
    g = s.case.graph
    d = describe(g.semantics)
    for x in np.flatnonzero(s.free).tolist():
        if s.lo is not None and s.hi is not None and d.scores:
            span = f"[{d.show(s.lo[x])}, {d.show(s.hi[x])}]"
        elif s.lo is not None and s.hi is not None:  # regions: the winners in the range
            span = "{" + ", ".join(sorted({str(d.show(s.lo[x])), str(d.show(s.hi[x]))})) + "}"
        elif x in s.attained:
            span = "{" + ", ".join(str(d.show(v)) for v in s.attained[x]) + "}"
        else:
            span = "not enumerated"
        values = " ".join(str(d.show(v)) for v in s.attained.get(x, ()))
        yield {
            "position": g.name(x),
            "reference": _reference(s, x),
            "range": span,
            "values": values,
        }


def _reference(s: SolutionSet, x: int) -> Any:
    """The reference solution's value at ``x`` (Grundy values: none where none was found)."""
    d = describe(s.case.graph.semantics)
    if not d.has_order and s.reference[x] < 0:  # no order: -1 where no solution was found
        return "not found"
    return d.show(s.reference[x])
