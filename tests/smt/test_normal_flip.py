"""The second labelling of a normal-play graph found without search (``verifier.smt.circular``):
always a solution when it is returned, never returned for a graph whose labelling is unique,
and never believed without checking (a wrong one sends the question back to Z3); and the drawn
nodes Z3 need not search (``changeable_nodes``): the same label in every solution."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from smt_reference import case_of, graphs

from verifier.equations.rules import derived_labels
from verifier.equations.system import OrderSystem
from verifier.model import GameGraph, Semantics, Verdict
from verifier.registry import Options
from verifier.smt import circular
from verifier.smt import uniqueness as uq
from verifier.smt.circular import changeable_nodes, flipped_labelling, lost_candidates


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


def test_the_flip_is_found_at_ids_whose_keys_pass_int32() -> None:
    # the same a <-> b, a <-> c at the top of a 70,000-node graph: the move keys id * n + id
    # pass 2^31 (ids are stored as int32), and a key computed in int32 would wrap around
    n = 70_000
    a, b, c = n - 3, n - 2, n - 1
    g = GameGraph.from_edges(n, [0, a, a, b, c, c], [a, b, c, a, a, c], semantics=Semantics.NORMAL)
    assert g.succ_idx.dtype == np.int32
    labels, _ = derived_labels(g)
    alt = flipped_labelling(g, labels)
    assert alt is not None
    assert alt[[0, 1, a, b, c]].tolist() == [2, 0, 0, 2, 2]  # node 1: a dead end, lost


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


def _normal(succ: dict[str, list[str]], draws: tuple[str, ...]) -> GameGraph:
    """A normal-play graph whose dead ends in ``draws`` are declared draws (the others lost)."""
    g = GameGraph.from_successors(succ, semantics=Semantics.NORMAL)
    value = np.where(g.is_terminal, -1.0, np.nan)
    value[[g.id_of(d) for d in draws]] = 0.0
    return g.replace(value=value)


def test_draws_without_a_cycle_are_unique_without_z3(monkeypatch: pytest.MonkeyPatch) -> None:
    # d is a declared draw: a -> d and c -> {b, d}, b -> a are drawn, and no cycle anywhere;
    # e -> f (lost) is won
    g = _normal({"a": ["d"], "b": ["a"], "c": ["b", "d"], "d": [], "e": ["f"], "f": []}, ("d",))
    labels, _ = derived_labels(g)
    assert {g.name(i): int(v) for i, v in enumerate(labels)} == {
        "a": 0, "b": 0, "c": 0, "d": 0, "e": 1, "f": -1
    }  # fmt: skip
    assert not changeable_nodes(g, labels == 0).any()
    assert len(_solutions(g)) == 1

    def no_z3(*args: object) -> None:
        raise AssertionError("Z3 asked to search")

    monkeypatch.setattr(circular, "circular_query", no_z3)
    res = uq.uniqueness(case_of(g), Options())
    assert res.verdict is Verdict.CONFIRMED and res.data["unique"] is True
    assert "no drawn node could be lost in another labelling" in res.detail


def test_nodes_above_a_drawn_cycle_stay_changeable() -> None:
    # x -> y, y <-> z, z -> w (a declared draw): x, y, z reach the drawn cycle y <-> z; w and
    # v -> w do not. y lost, z won, x won is a second labelling (z won: a move to lost y; y
    # lost: its one move leads to won z); z lost is not (its move to the draw w is not won).
    g = _normal({"x": ["y"], "y": ["z"], "z": ["y", "w"], "w": [], "v": ["w"]}, ("w",))
    labels, _ = derived_labels(g)
    assert (labels == 0).all()
    opened = changeable_nodes(g, labels == 0)
    assert {g.name(int(i)) for i in np.flatnonzero(opened)} == {"x", "y", "z"}
    # z cannot be lost (its move to the draw w is not won), nor x (its move to y, then z)
    assert np.flatnonzero(lost_candidates(g, labels == 0)).tolist() == [g.id_of("y")]
    sols = _solutions(g)
    assert len(sols) == 2  # all drawn; or y lost, z and x won
    res = uq.uniqueness(case_of(g), Options())
    assert res.data["unique"] is False and "changes 3 drawn nodes" in res.detail


FOUR = {"a": ["b"], "b": ["c"], "c": ["d"], "d": ["a"], "x": ["a", "w"], "w": [], "v": ["w"]}
"""A drawn 4-cycle (no move comes back, so no flip: Z3 must search) below x, beside a draw w."""


def test_z3_searches_the_changeable_nodes_only() -> None:
    g = _normal(FOUR, ("w",))
    labels, _ = derived_labels(g)
    assert (labels == 0).all() and flipped_labelling(g, labels) is None
    opened = changeable_nodes(g, labels == 0)
    assert {g.name(int(i)) for i in np.flatnonzero(opened)} == {"a", "b", "c", "d", "x"}
    cand = lost_candidates(g, labels == 0)
    assert {g.name(int(i)) for i in np.flatnonzero(cand)} == {"a", "b", "c", "d"}
    assert len(_solutions(g)) == 3  # all drawn; a, c lost, b, d, x won; b, d lost, a, c won
    res = uq.uniqueness(case_of(g), Options())
    assert res.data["unique"] is False and "cycle" in res.detail


def test_leaving_out_the_cycle_too_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation: if ``changeable_nodes`` left out the drawn cycle too, Z3 would not be asked and
    'unique' would be said of a graph with three labellings (the test above would fail)."""
    g = _normal(FOUR, ("w",))
    monkeypatch.setattr(
        circular, "changeable_nodes", lambda g, unknown: np.zeros(g.n, dtype=np.bool_)
    )
    assert uq.uniqueness(case_of(g), Options()).data["unique"] is True


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_nodes_left_out_of_the_search_have_one_label(g: GameGraph) -> None:
    labels, _ = derived_labels(g)
    opened = changeable_nodes(g, labels == 0)
    assert not (opened & (labels != 0)).any()
    sols = np.array(_solutions(g), dtype=np.int64).reshape(-1, g.n)
    cand = lost_candidates(g, labels == 0)
    assert not ((sols == 0) & (labels == 0) & ~cand).any()  # lost drawn nodes are candidates
    fixed = ~opened
    assert (sols[:, fixed] == labels[fixed] + 1).all()
    assert uq.uniqueness(case_of(g), Options()).data["unique"] is (len(sols) == 1)
