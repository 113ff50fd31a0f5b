"""The second labelling of a normal-play graph found without search (``verifier.smt.circular``):
always a solution when it is returned, never returned for a graph whose labelling is unique,
and never believed without checking (a wrong one sends the question back to Z3)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from smt_reference import case_of, graphs

from verifier.model import GameGraph, Semantics, Verdict
from verifier.registry import Options
from verifier.smt import circular
from verifier.smt import uniqueness as uq
from verifier.smt.circular import flipped_labelling
from verifier.smt.rules import derived_labels
from verifier.smt.system import OrderSystem


def _solutions(g: GameGraph) -> list[tuple[int, ...]]:
    """Every labelling (0 lost, 1 drawn, 2 won) that satisfies the rules (brute force)."""
    sys = OrderSystem.normal(g)
    return [
        alt
        for alt in itertools.product(range(3), repeat=g.n)
        if not len(sys.violations(np.array(alt, dtype=np.int64)))
    ]


def test_a_drawn_node_whose_moves_all_come_back() -> None:
    # a <-> b, a <-> c: a lost, b and c won is a second labelling; d -> a then is won
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": ["a"], "c": ["a", "c"], "d": ["a"]}, semantics=Semantics.NORMAL
    )
    labels, _ = derived_labels(g)
    assert labels.tolist() == [0, 0, 0, 0]
    alt = flipped_labelling(g, labels)
    assert alt is not None
    named = {g.name(i): int(v) for i, v in enumerate(alt)}
    assert named == {"a": 0, "b": 2, "c": 2, "d": 2}
    res = uq.uniqueness(case_of(g), Options())
    assert res.verdict is Verdict.CONFIRMED and res.data["unique"] is False
    assert "changes 4 drawn nodes" in res.detail


def test_no_such_node_leaves_the_search_to_z3() -> None:
    # a 3-cycle: no node's move comes back, yet no second labelling exists either
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": ["a"]}, semantics=Semantics.NORMAL)
    labels, _ = derived_labels(g)
    assert flipped_labelling(g, labels) is None
    assert uq.uniqueness(case_of(g), Options()).data["unique"] is True
    assert len(_solutions(g)) == 1


@settings(max_examples=400, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_the_flip_is_a_second_solution(g: GameGraph) -> None:
    labels, _ = derived_labels(g)
    alt = flipped_labelling(g, labels)
    if alt is None:  # about one graph in 25 of these has such a node
        return
    sols = _solutions(g)
    assert tuple(alt.tolist()) in sols
    decided = labels != 0
    assert (alt[decided] == labels[decided] + 1).all()
    assert (alt != labels + 1).any()
    assert len(sols) > 1
    assert uq.uniqueness(case_of(g), Options()).data["unique"] is False


def test_a_wrong_flip_is_not_believed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flip that is not a solution is rejected (Z3's pin and the evaluation) and Z3 is asked:
    on a graph with one labelling the answer stays 'unique'."""
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": ["a"]}, semantics=Semantics.NORMAL)
    monkeypatch.setattr(
        circular, "flipped_labelling", lambda g, labels: np.array([0, 2, 1], dtype=np.int64)
    )
    res = uq.uniqueness(case_of(g), Options())
    assert res.verdict is Verdict.CONFIRMED and res.data["unique"] is True
