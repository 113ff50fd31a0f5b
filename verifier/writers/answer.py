r"""The answer first, in the words of the game: who wins from the root, by what, in how many
plies, the best move, the line of optimal play and, for a draw on a cycle, why.

>>> from verifier.model import GameGraph, Semantics, Case
>>> from verifier.pipeline import run_case
>>> from verifier.registry import Options
>>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
>>> rep = run_case(Case(graph=g, id="chain", root=0), Options(engine="reference"), smt=False)
>>> print(*answer_lines(rep)[0].split("; "), sep="\n")
from a: the player to move loses in 2 plies (the longest defence)
best move a -> b
line a -> b -> c
"""

from __future__ import annotations

from typing import Any

from verifier.model.describe import describe
from verifier.model.report import CaseReport, Finding
from verifier.model.results import CheckResult, View, by_check
from verifier.model.solution import Solution

__all__ = ["answer_lines", "finding_line", "finding_words", "verdict_of"]

LINE_PLIES = 12
"""Moves of the principal variation shown."""


def _plies(n: int | None, unit: str = "plies") -> str:
    if n is None:
        return ""
    one = {"plies": "ply", "moves": "move"}.get(unit, unit)
    return f" in {n} {one if n == 1 else unit}"


def verdict_of(sol: Solution, x: int) -> str:
    """Who wins from position ``x`` and by what, in the words of its semantics."""
    p = sol[x]
    view = sol.description.view
    v, o, r = p.value, p.outcome, p.remoteness
    if view is View.SCORE:
        if o == "draw":
            return "a draw (score 0)"
        who = "Max" if o == "win" else "Min"
        return f"{who} wins, score {v}{_plies(r)}"
    if view is View.LABEL:
        if o == "win":
            return f"the player to move wins{_plies(r)}"
        if o == "loss":
            extra = " (the longest defence)" if r else ""
            return f"the player to move loses{_plies(r)}{extra}"
        return "a draw: neither side can force a win"
    if view is View.REGION:
        if v == 0:
            return f"player 0 reaches the target{_plies(r, 'moves')}"
        return "player 1 keeps play away from the target"
    if o == "win":
        return f"Grundy value {v}: the player to move wins (an N position)"
    if o == "loss":
        return f"Grundy value {v}: the player to move loses (a P position)"
    return f"Grundy value {v}: a draw, play can go on forever"


def _why_draw(rep: CaseReport, sol: Solution, x: int, line: list[str]) -> str | None:
    """For a minimax draw on a cycle: the cycle both sides can keep play on, and the interval
    the equations allow (from smt-uniqueness), against Kars' draw 0."""
    if sol.description.view is not View.SCORE or sol[x].outcome != "draw":
        return None
    name = sol.graph.name(x)
    cycle = ""
    if len(line) > 1 and line[-1] in line[:-1]:
        start = line.index(line[-1])
        cycle = f"both sides can keep play on the cycle {' -> '.join(line[start:])}"
    interval: Any = None
    for c in by_check(rep.checks, "smt-uniqueness"):
        if "intervals" in c.data:
            interval = c.data["intervals"].get(name)
    parts = [f"from {name} {cycle}"] if cycle else []
    if interval is not None and interval[0] != interval[1]:
        lo, hi = (_num(b) for b in interval)
        parts.append(
            f"a solution of the rules can put {name} anywhere in [{lo}, {hi}], "
            "Kars' rule takes the draw 0"
        )
    return "; ".join(parts) or None


def _num(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def answer_lines(rep: CaseReport) -> list[str]:
    """The answer for the case's root (none without a root, or without an answer)."""
    sol, root = rep.solution, rep.case.root
    if sol is None or root is None or not sol.covered[root]:
        return []
    name = sol.graph.name(root)
    parts = [f"from {name}: {verdict_of(sol, root)}"]
    p = sol[root]
    if p.move is not None:
        parts.append(f"best move {name} -> {p.move}")
    line = sol.line(root, LINE_PLIES)
    if len(line) > 2:
        cut = " ..." if len(line) > LINE_PLIES and line[-1] not in line[:-1] else ""
        parts.append(f"line {' -> '.join(line)}{cut}")
    out = ["; ".join(parts)]
    why = _why_draw(rep, sol, root, line)
    if why:
        out.append(f"why: {why}")
    return out


def finding_words(rep: CaseReport, check: CheckResult) -> str | None:
    """What a refuted check found, in one short phrase naming the position: for a claimed
    answer ``'c' claimed lost, is won`` (the claim against the answer of the rules, in the
    words of the semantics), else ``at 'c'``; ``None`` when its witness names no position."""
    w = check.witness or {}
    node = w.get("node")
    g = rep.case.graph
    if not isinstance(node, str) or not g.has_node(node):
        return None
    if "claimed" not in w:
        return f"at {node!r}"
    x = g.id_of(node)
    d = describe(rep.case.semantics)
    sol = rep.solution
    claimed, rem = w["claimed"], w.get("remoteness")
    truth = d.show_node(sol.columns, x) if sol is not None and sol.covered[x] else None
    if truth is None:
        return f"{node!r} claimed {d.in_words(claimed)}"
    if claimed != truth:
        return f"{node!r} claimed {d.in_words(claimed)}, is {d.in_words(truth)}"
    ours = sol[x].remoteness if sol is not None else None
    if rem is not None and ours is not None and rem != ours:
        return f"{node!r} claimed {d.in_words(claimed, rem)}, is {d.in_words(truth, ours)}"
    move = w.get("move")
    if move is not None:
        legal = move in {g.name(int(y)) for y in g.successors(x)}
        why = "not a best move" if legal else "not a move of the game"
        return f"{node!r} claimed {d.in_words(claimed)} with the move {node} -> {move}, {why}"
    return f"{node!r} claimed {d.in_words(claimed)}"


def finding_line(rep: CaseReport, finding: Finding) -> str:
    """A finding in one line: ``answers bad.csv: 'c' claimed lost, is won``."""
    check = finding.check
    w = check.witness or {}
    reason = str(w.get("reason", ""))
    if reason.startswith("the case expects unique=") and "unique" in w:  # expect's own entry
        found = "exactly one solution" if w["unique"] else "more than one solution"
        expected = reason.rsplit("=", 1)[1].lower()
        return f"expect unique: {expected} expected, {check.name} finds {found}"
    words = finding_words(rep, check)
    if reason.startswith("interval differs from the case's expect"):
        return f"expect intervals ({check.name}): {words}" if words else "expect intervals"
    return f"{check.name}: {words}" if words else check.name
