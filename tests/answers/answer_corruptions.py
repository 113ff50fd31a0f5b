"""Single-entry corruptions of an answer table (value, remoteness, move), shared by the
answer-file tests; and the field contract's corruptions (``contract_corruptions``): each one a
specific check must refute by itself (``test_answer_contract.py``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from corruptions import move_is_optimal

from verifier.io.answers import Answers
from verifier.model import Case, Semantics
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import describe
from verifier.model.results import View
from verifier.model.solution import Solution

__all__ = ["CONTRACT_KINDS", "Corruption", "contract_corruptions", "corruptions"]


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
        if answers.array("remoteness") is not None and answers.array("remoteness")[x] >= 0:
            rem = answers.array("remoteness").copy()
            rem[x] += 1
            out.append(("remoteness", x, answers.with_column("remoteness", rem)))
        if answers.array("move") is not None and answers.array("move")[x] >= 0:
            others = [int(y) for y in g.successors(x) if y != answers.array("move")[x]]
            if others:
                mv = answers.array("move").copy()
                mv[x] = others[0]
                out.append(("move", x, answers.with_column("move", mv)))
    return out


# ---------------------------------------------------------------------- the field contract
MOVE_KINDS = (
    "move at out-degree <= 2",
    "normal draw move to a won successor",
    "impartial draw move to an N option",
)
"""Wrong moves that the ``moves`` check itself must refute (issue 28, item 3)."""
AGREE_KINDS = ("remoteness given where the rules give none",)
"""An entry given in the claims and missing in our answer: ``agree`` must refute it (in
``--linear`` mode nothing else reads a normal-play or reachability remoteness at a draw)."""
CONTRACT_KINDS = MOVE_KINDS + AGREE_KINDS


def contract_corruptions(case: Case, sol: Solution, answers: Answers) -> list[Corruption]:
    """Every corruption of ``CONTRACT_KINDS`` of a correct answer table ``answers`` (our
    solution ``sol`` judges which moves are wrong, by the harness' oracle)."""
    g = case.graph
    sem = case.semantics
    val = sol.columns[VALUE]
    loopy = sol.columns.get(LOOPY)
    inf = loopy.given if loopy is not None else np.zeros(g.n, dtype=np.bool_)

    def won_impartial(y: int) -> bool:
        if inf[y]:
            return 0 in loopy.data[y]  # type: ignore[union-attr]
        return bool(val.data[y] > 0)

    out: list[Corruption] = []
    mv, rem = answers.array("move"), answers.array("remoteness")
    for x in range(g.n):
        succ = [int(y) for y in g.successors(x)]
        if mv is not None and 0 < len(succ) <= 2 and mv[x] >= 0:
            wrong = [y for y in succ if not move_is_optimal(case, sol, x, y)]
            if wrong:
                out.append(Corruption(MOVE_KINDS[0], x, _moved(answers, x, wrong[0])))
        if mv is not None and sem is Semantics.NORMAL and succ and val.data[x] == 0:
            won = [y for y in succ if val.data[y] == 1]
            if won:
                out.append(Corruption(MOVE_KINDS[1], x, _moved(answers, x, won[0])))
        if mv is not None and inf[x] and 0 not in loopy.data[x]:  # type: ignore[union-attr]
            to_n = [y for y in succ if won_impartial(y)]
            if to_n:
                out.append(Corruption(MOVE_KINDS[2], x, _moved(answers, x, to_n[0])))
        if rem is not None and rem[x] < 0:
            r = rem.copy()
            r[x] = 1
            out.append(Corruption(AGREE_KINDS[0], x, answers.with_column("remoteness", r)))
    return out


@dataclass(frozen=True)
class Corruption:
    """One corrupted answer table: what was done, at which node."""

    kind: str
    node: int
    answers: Answers


def _moved(answers: Answers, x: int, y: int) -> Answers:
    assert answers.array("move") is not None
    mv = answers.array("move").copy()
    mv[x] = y
    return answers.with_column("move", mv)
