"""Single-entry corruptions of an answer table (value, remoteness, move), shared by the
answer-file tests."""

from __future__ import annotations

from dataclasses import replace

from verifier.io.answers import Answers
from verifier.model import Case
from verifier.model.describe import describe
from verifier.model.results import View

__all__ = ["corruptions"]


def corruptions(case: Case, answers: Answers) -> list[tuple[str, int, Answers]]:
    """Every single-entry corruption of a few nodes: value, remoteness, move."""
    g = case.graph
    d = describe(case.semantics)
    out: list[tuple[str, int, Answers]] = []
    for x in range(g.n):
        values = answers.values.copy()
        if x in answers.loopy:
            continue
        if d.view is View.SCORE:
            levels = [v for v in (*g.value_levels().tolist(), 0.0) if v != values[x]]
            values[x] = levels[0] if levels else values[x]
        elif d.view is View.LABEL:
            values[x] = {1: -1, -1: 0, 0: 1}[int(values[x])]
        elif d.view is View.REGION:
            values[x] = 1 - values[x]
        else:
            values[x] = values[x] + 1
        if values[x] != answers.values[x]:
            out.append(("value", x, replace(answers, values=values)))
        if answers.remoteness is not None and answers.remoteness[x] >= 0:
            rem = answers.remoteness.copy()
            rem[x] += 1
            out.append(("remoteness", x, replace(answers, remoteness=rem)))
        if answers.move is not None and answers.move[x] >= 0:
            others = [int(y) for y in g.successors(x) if y != answers.move[x]]
            if others:
                mv = answers.move.copy()
                mv[x] = others[0]
                out.append(("move", x, replace(answers, move=mv)))
    return out
