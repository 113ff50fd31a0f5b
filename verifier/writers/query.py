"""``verifier query CASE POSITION...``: everything known of some positions, for a person.

For each position: its value and who wins by it, the remoteness, every move with what it leads
to (best first for the player to move), the line of optimal play, the interval of its value over
all solutions of the equations (where ``smt-uniqueness`` computed them), and the confirmed checks
that vouch for each of its columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.model.report import CaseReport
from verifier.model.results import by_check
from verifier.model.solution import Solution
from verifier.writers.answer import verdict_of
from verifier.writers.base import Document

__all__ = ["QUERY_PLIES", "move_order", "query_document"]

QUERY_PLIES = 40
"""Moves of the line of play a query shows by default (``--plies``)."""

_FOR_MOVER = {1: "wins", 0: "draws", -1: "loses"}


def _for_mover(sol: Solution, x: int, y: int) -> tuple[float, int]:
    """How good the move x -> y is for the player to move at x: (result, sign of remoteness
    preference); larger first. The result is +1 / 0 / -1 (a score for minimax)."""
    out = int(sol.outcome()[y])
    value = float(sol.columns["value"].data[y])
    return sol.description.form.for_mover(int(sol.graph.owner[x]), out, value)


def move_order(sol: Solution, x: int) -> list[int]:
    """The successors of ``x``, best first for the player to move there: the better result
    first; among equal results the shorter way to a win, the longer way to a loss."""
    rem = sol.columns.get("remoteness")

    def key(y: int) -> tuple[float, float, int]:
        mine, prefer = _for_mover(sol, x, y)
        r = float(rem.data[y]) if rem is not None and rem.given[y] else float("inf")
        return (-mine, r if prefer > 0 else -r, y)

    return sorted((int(y) for y in sol.graph.successors(x)), key=key)


def _num(v: Any) -> Any:
    """A number as the case writes it: ``3``, not ``3.0``, where the value is whole."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _interval(rep: CaseReport, name: str) -> list[Any] | None:
    for c in by_check(rep.checks, "smt-uniqueness"):
        if "intervals" in c.data:
            iv = c.data["intervals"].get(name)
            return [_num(v) for v in iv] if iv is not None else None
    return None


def _line(sol: Solution, x: int, plies: int) -> tuple[list[str], bool]:
    """The line of play from ``x`` over at most ``plies`` moves, and whether it goes on past
    them (the last position shown has a move and is not a repetition)."""
    line = sol.line(x, plies)
    moves = sol.columns.get("move")
    end = sol.graph.id_of(line[-1])
    repeated = line[-1] in line[:-1]
    cut = len(line) > plies and moves is not None and bool(moves.given[end]) and not repeated
    return line, cut


def _position(rep: CaseReport, sol: Solution, x: int, plies: int) -> dict[str, Any]:
    p = sol[x]
    name = p.name
    moves = []
    for y in move_order(sol, x):
        mine, _ = _for_mover(sol, x, y)
        sign = 0 if mine == 0 else (1 if mine > 0 else -1)
        moves.append(
            {
                "to": sol.graph.name(y),
                "value": sol.value(y),
                "remoteness": sol[y].remoteness,
                "mover": _FOR_MOVER[sign],
            }
        )
    line, cut = _line(sol, x, plies)
    return {
        "position": name,
        "value": p.value,
        "outcome": p.outcome,
        "answer": verdict_of(sol, x) if sol.covered[x] else None,
        "remoteness": p.remoteness,
        "move": p.move,
        "moves": moves,
        "line": line,
        "line_goes_on": cut,
        "interval": _interval(rep, name),
        "vouched_by": {col: _kinds(checks) for col, checks in sol.confirmed.items() if checks},
    }


def _kinds(checks: Sequence[str]) -> list[str]:
    """Check names by kind, with how many of a kind (``agree score (5)``)."""
    from verifier.writers.table import check_kind

    counts: dict[str, int] = {}
    for c in checks:
        counts[check_kind(c)] = counts.get(check_kind(c), 0) + 1
    return [k if n == 1 else f"{k} ({n})" for k, n in counts.items()]


def _lines(rep: CaseReport, doc: dict[str, Any]) -> list[str]:
    d = rep.solution.description if rep.solution is not None else None
    view = f"values from the view of {d.point_of_view}" if d else ""
    out = [f"{rep.case.id}: {rep.case.semantics.value}, {view}, verdict {rep.verdict.value}"]
    for q in doc["positions"]:
        out.append(f"{q['position']}: {q['answer'] or 'not answered'}")
        if q["move"] is not None:
            more = " -> ..." if q["line_goes_on"] else ""
            out.append(f"  best move {q['move']}; line {' -> '.join(q['line'])}{more}")
        for m in q["moves"]:
            rem = f", remoteness {m['remoteness']}" if m["remoteness"] is not None else ""
            out.append(f"  move to {m['to']}: value {m['value']}{rem} (the mover {m['mover']})")
        if q["interval"] is not None:
            lo, hi = q["interval"]
            out.append(f"  over all solutions of the equations: [{lo}, {hi}]")
        for col, checks in q["vouched_by"].items():
            out.append(f"  {col} vouched for by: {', '.join(checks)}")
    return out


def query_document(rep: CaseReport, positions: Sequence[int], plies: int = QUERY_PLIES) -> Document:
    """The query's answer for the given position ids (JSON: ``positions``, one object each);
    each line of play shows at most ``plies`` moves (``line_goes_on``: it is longer)."""
    sol = rep.solution
    fields: dict[str, Any] = {
        "case": rep.case.id,
        "semantics": rep.case.semantics.value,
        "verdict": rep.verdict.value,
        "point_of_view": sol.description.point_of_view if sol is not None else None,
        "positions": [_position(rep, sol, x, plies) for x in positions] if sol is not None else [],
    }
    return Document(fields, lines=tuple(_lines(rep, fields)))
