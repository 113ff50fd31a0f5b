"""Why a claimed value is wrong, in the words of its semantics (Description.rule), worked out
by hand on one node per semantics."""

from __future__ import annotations

import numpy as np

from verifier import Case, GameGraph, Semantics
from verifier.claims import rule_fault
from verifier.model import MAX, SolverResult
from verifier.model.results import View


def _claim(view: View, values: list[float]) -> SolverResult:
    return SolverResult("answers", view, np.array(values))


def test_normal_minimax_reachability_impartial_rules() -> None:
    # a -> b -> c: c lost (no move), b won, a lost; claiming a won breaks a's rule
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    r = _claim(View.LABEL, [1, 1, -1])
    assert rule_fault(Case(g, "n"), r, 0) == (
        "won iff some successor is lost, lost iff every successor is won, a draw otherwise: "
        "the successors' labels make it 'lost'"
    )
    assert rule_fault(Case(g, "n"), r, 1) is None  # b keeps its rule
    # Max at m over leaves 1 and -1: the score is 1, not -1
    g = GameGraph.from_successors(
        {"m": ["p", "q"]}, semantics=Semantics.MINIMAX, owner={"m": MAX}, value={"p": 1, "q": -1}
    )
    r = _claim(View.SCORE, [-1.0, 1.0, -1.0])
    assert rule_fault(Case(g, "m"), r, 0) == (
        "a Max node's score is the largest of its successors' scores, here 1"
    )
    assert rule_fault(Case(g, "m"), _claim(View.SCORE, [1.0, -1.0, -1.0]), 1) == (
        "a leaf's score is its value t, here 1"
    )
    # player 1 at s must move to the target t: player 0 wins (region 1), not player 1
    g = GameGraph.from_successors(
        {"s": ["t"]}, semantics=Semantics.REACHABILITY, owner={"s": 1, "t": 0}, target=["t"]
    )
    assert rule_fault(Case(g, "r"), _claim(View.REGION, [0, 1]), 0) == (
        "player 1 moves: 0 wins iff every successor is player 0's: the winner is 0"
    )
    assert rule_fault(Case(g, "r"), _claim(View.REGION, [1, 0]), 1) == (
        "a target is player 0's: the winner is 0"
    )
    # heap 2 -> 1, 0; 1 -> 0: g(2) = mex{1, 0} = 2
    g = GameGraph.from_successors({"2": ["1", "0"], "1": ["0"]}, semantics=Semantics.IMPARTIAL)
    assert rule_fault(Case(g, "i"), _claim(View.GRUNDY, [1, 1, 0]), 0) == (
        "a Grundy value is the mex of its successors' values, here 2"
    )
