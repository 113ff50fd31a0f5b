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

from collections.abc import Mapping
from typing import Any

from verifier.model.describe import describe
from verifier.model.report import CaseReport, Finding
from verifier.model.results import CheckResult, by_check
from verifier.model.solution import Solution

__all__ = [
    "answer_block",
    "answer_lines",
    "counts_line",
    "facts_lines",
    "finding_line",
    "finding_words",
    "printed_block",
    "symmetry_line",
    "verdict_of",
]

LINE_PLIES = 12
"""Moves of the principal variation shown."""


def verdict_of(sol: Solution, x: int) -> str:
    """Who wins from position ``x`` and by what, in the words of its semantics."""
    p = sol[x]
    return sol.description.form.verdict(p.value, p.outcome, p.remoteness)


def _why_draw(rep: CaseReport, sol: Solution, x: int, line: list[str]) -> str | None:
    """For a minimax draw on a cycle: the cycle both sides can keep play on, and the interval
    the equations allow (from smt-uniqueness), against Kars' draw 0."""
    if not sol.description.kars_score or sol[x].outcome != "draw":
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


def counts_line(rep: CaseReport) -> str | None:
    """``won 8, lost 0, drawn 0, longest win 3 plies, root s = 4`` (None if no counts)."""
    s = rep.summary
    if "won" not in s:
        return None
    parts = describe(rep.case.semantics).counts_words(s)
    if s.get("root") is not None:
        parts.append(f"root {s['root']} = {s.get('root_value')}")
    return ", ".join(parts)


def symmetry_line(summary: Mapping[str, Any]) -> str | None:
    """``up to symmetry: 765 classes stand for 5478 positions: won 2836, lost 1574, drawn
    1068`` for a case reduced by symmetry (None for another)."""
    sym = summary.get("symmetry")
    if not isinstance(sym, dict):
        return None
    return (
        f"up to symmetry: {summary['positions']} classes stand for {sym['positions']} "
        f"positions: won {sym['won']}, lost {sym['lost']}, drawn {sym['drawn']}"
    )


def facts_lines(summary: Mapping[str, Any]) -> list[str]:
    """The lines of the games' own blocks in the summary (``Facts``: chess's longest wins)."""
    from verifier.games.registry import builtin_games

    out: list[str] = []
    for game in builtin_games():
        facts = game.facts
        block = None if facts is None else summary.get(facts.key)
        if facts is not None and isinstance(block, dict):
            out += facts.lines(block)
    return out


def answer_block(rep: CaseReport) -> list[str]:
    """What the table prints first about a case, line by line: the root's answer
    (``answer_lines``), the counts, the counts up to symmetry, a game's own facts. Rendered
    once: the outside check certifies these lines (``CaseReport.printed``) and the writers
    print them (``printed_block``)."""
    out = answer_lines(rep)
    counts = counts_line(rep)
    if counts is not None:
        out.append(counts)
        sym = symmetry_line(rep.summary)
        if sym is not None:
            out.append(sym)
    return out + facts_lines(rep.summary)


def printed_block(rep: CaseReport) -> list[str]:
    """The lines to print: those the outside check certified, else ``answer_block``."""
    return list(rep.printed) if rep.printed is not None else answer_block(rep)


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
