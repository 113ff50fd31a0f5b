"""The Z3 layer reads the descriptions and the columns: the equation factory of each semantics,
what its values mean (``wins`` / ``loses`` / ``to_move``), and the answers as masked columns."""

from __future__ import annotations

import doctest
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smt_reference import graphs, reference_results

from verifier.equations import system
from verifier.equations.system import OrderSystem
from verifier.model import GameGraph, Semantics, SolverResult
from verifier.model import describe as describe_mod
from verifier.model.columns import MOVE, REMOTENESS, VALUE
from verifier.model.describe import DESCRIPTIONS, LABEL_WORDS, describe
from verifier.model.results import View
from verifier.model.semantics import MAX, MIN, NOBODY, PLAYER0, PLAYER1
from verifier.registry import CheckContext, Options
from verifier.smt.common import Answer, answers, with_sentinel

ORDERED = [s for s, d in DESCRIPTIONS.items() if d.equations is not None]
"""The semantics whose equations are an ``OrderSystem``."""


def test_the_description_doctest_passes() -> None:
    assert doctest.testmod(describe_mod).failed == 0


# ---------------------------------------------------------------------- the equation factory
def test_for_graph_builds_with_the_constructor_the_description_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL)
    # a normal graph built by the reachability constructor: the description's name decides
    mine = replace(describe(Semantics.NORMAL), equations="reachability")
    monkeypatch.setattr(system, "describe", lambda s: mine if s is Semantics.NORMAL else None)
    got, want = OrderSystem.for_graph(g), OrderSystem.reachability(g)
    assert np.array_equal(got.kind, want.kind) and np.array_equal(got.levels, want.levels)
    assert not np.array_equal(got.levels, OrderSystem.normal(g).levels)


def test_each_description_names_a_constructor_of_its_own_semantics() -> None:
    for s in ORDERED:
        g = GameGraph.from_successors({"a": ["b"]}, semantics=s, owner={"a": MAX})
        assert describe(s).equations == s.value
        built = getattr(OrderSystem, s.value)(g)
        assert OrderSystem.for_graph(g).levels.tolist() == built.levels.tolist()


def test_for_graph_has_no_system_for_impartial_graphs() -> None:
    assert describe(Semantics.IMPARTIAL).equations is None
    g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.IMPARTIAL)
    with pytest.raises(ValueError, match="no order system for impartial graphs"):
        OrderSystem.for_graph(g)


def test_the_three_order_semantics_have_factories() -> None:
    assert set(ORDERED) == {Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY}


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_factory_builds_a_system_whose_levels_match_its_view(data: st.DataObject) -> None:
    """The value chain is the view's values: the label words (normal), lost/won for player 0
    (reachability), the leaves' scores and the draw (minimax)."""
    sem = data.draw(st.sampled_from(ORDERED))
    g = data.draw(graphs(sem))
    d = describe(sem)
    sys = OrderSystem.for_graph(g)
    assert sys.graph is g and type(sys) is OrderSystem
    levels = sys.levels.tolist()
    assert levels == sorted(set(levels))
    if d.view is View.LABEL:
        assert levels == sorted(LABEL_WORDS) == sorted(d.words)
        assert [d.word(v) for v in levels] == ["lost", "draw", "won"]
    elif d.view is View.REGION:
        assert levels == [0.0, 1.0]
        assert d.loses(sys.levels).tolist() == [True, False]
        assert [d.show(v) for v in levels] == [1, 0]  # outside W player 1 wins, inside player 0
    else:
        assert d.view is View.SCORE
        leaves = {0.0 if np.isnan(v) else float(v) for v in g.value[g.is_terminal]}
        assert set(levels) == leaves | {0.0}
    # every answer of the view converts to value indices and back
    ref = reference_results(g)["ref"]
    assert ref.view is d.view
    idx, bad = sys.to_index(ref.values)
    assert not bad.any() and np.array_equal(sys.to_values(idx), ref.values)


# ---------------------------------------------------------------------- what values mean
def test_wins_and_loses_read_the_point_of_view() -> None:
    normal = describe(Semantics.NORMAL)
    assert normal.wins(np.array([1, -1, 0])).tolist() == [True, False, False]
    assert normal.loses(np.array([1, -1, 0])).tolist() == [False, True, False]
    region = describe(Semantics.REACHABILITY)
    assert region.wins(np.array([1, 0])).tolist() == [True, False]
    assert region.loses(np.array([1, 0])).tolist() == [False, True]
    score = describe(Semantics.MINIMAX)
    assert score.wins(np.array([2.5, 0.0, -1.0])).tolist() == [True, False, False]
    assert score.loses(np.array([2.5, 0.0, -1.0])).tolist() == [False, False, True]


def test_to_move_gives_ownerless_nodes_to_player_0_in_reachability_only() -> None:
    owner = np.array([MAX, MIN, NOBODY], dtype=np.int8)
    region = describe(Semantics.REACHABILITY)
    assert region.others_move == PLAYER0
    assert region.to_move(owner, PLAYER0).tolist() == [True, False, True]
    assert region.to_move(owner, PLAYER1).tolist() == [False, True, False]
    score = describe(Semantics.MINIMAX)
    assert score.others_move is None
    assert score.to_move(owner, MAX).tolist() == [True, False, False]
    assert score.to_move(owner, MIN).tolist() == [False, True, False]


def test_owner_names_are_the_words_of_the_strategy_queries() -> None:
    assert describe(Semantics.MINIMAX).owner_name(MAX) == "Max"
    assert describe(Semantics.REACHABILITY).owner_name(PLAYER1) == "player 1"
    assert describe(Semantics.NORMAL).owner_name(MAX) == ""


# ---------------------------------------------------------------------- answers as columns
def _ctx(results: dict[str, SolverResult]) -> CheckContext:
    from smt_reference import case_of

    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    return CheckContext(case_of(g), results, Options())


def test_answers_read_the_columns_and_group_equal_ones() -> None:
    lab = np.array([1, -1, 0])
    rem = np.array([1, 0, -1])
    mv = np.array([1, -1, -1])
    same = SolverResult("a", View.LABEL, lab, remoteness=rem, move=mv)
    twin = SolverResult("b", View.LABEL, lab.copy(), remoteness=rem.copy(), move=mv.copy())
    other = SolverResult("c", View.LABEL, lab, remoteness=rem, move=np.array([1, 2, -1]))
    found = answers(_ctx({"c": other, "b": twin, "a": same}), View.LABEL)
    assert [a.solvers for a in found] == [("a", "b"), ("c",)]
    a = found[0]
    assert a.columns[REMOTENESS].given.tolist() == [True, True, False]
    assert a.ranks is not None and a.ranks.tolist() == [1, 0, -1]
    assert a.moves is not None and a.moves.tolist() == [1, -1, -1]
    assert a.label == "a+b" and a.covered.all()


def test_answers_compare_only_the_given_entries() -> None:
    """Two partial answers equal where they are covered are one answer, whatever the solver
    left elsewhere."""
    cov = np.array([True, False, True])
    x = SolverResult("x", View.LABEL, np.array([1, 0, 0]), covered=cov)
    y = SolverResult("y", View.LABEL, np.array([1, 1, 0]), covered=cov)
    found = answers(_ctx({"x": x, "y": y}), View.LABEL)
    assert [a.solvers for a in found] == [("x", "y")]
    assert found[0].covered.tolist() == cov.tolist()
    assert found[0].ranks is None and found[0].moves is None


def test_answer_of_arrays_is_the_answer_of_the_solver_result() -> None:
    vals, rem, mv = np.array([1, -1, 0]), np.array([1, 0, -1]), np.array([1, -1, -1])
    cov = np.ones(3, dtype=np.bool_)
    r = SolverResult("r", View.LABEL, vals, remoteness=rem, move=mv)
    (from_result,) = answers(_ctx({"r": r}), View.LABEL)
    built = Answer.of(("r",), vals, cov, rem, mv)
    assert built.columns.keys() == from_result.columns.keys() == {VALUE, REMOTENESS, MOVE}
    for name in built.columns:
        assert np.array_equal(
            with_sentinel(built.columns[name]), with_sentinel(from_result.columns[name])
        )


def test_with_sentinel_writes_minus_one_where_not_given() -> None:
    r = SolverResult("g", View.GRUNDY, np.array([0, -1, 2]), loopy={1: (0, 2)})
    assert with_sentinel(r.columns[VALUE]).tolist() == [0, -1, 2]
    assert r.columns["loopy"].at(1) == (0, 2)
