"""The public answer of a case: descriptions, masked columns and ``Solution``, on hand-made
graphs whose answers were worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from verifier import Case, GameGraph, Semantics
from verifier.model import MAX, MIN, SolverResult
from verifier.model.columns import LOOPY, MOVE, REMOTENESS, VALUE, Column, same_entries
from verifier.model.describe import DESCRIPTIONS, LABEL_WORDS, describe, describe_view
from verifier.model.report import CaseVerdict
from verifier.model.results import View
from verifier.model.solution import Solution
from verifier.pipeline import run_case
from verifier.registry import Options


def test_one_description_per_semantics_and_view() -> None:
    assert set(DESCRIPTIONS) == set(Semantics)
    assert len({d.view for d in DESCRIPTIONS.values()}) == len(Semantics)
    assert len({d.expect_key for d in DESCRIPTIONS.values()}) == len(Semantics)
    for d in DESCRIPTIONS.values():
        assert describe_view(d.view) is d
    assert describe(Semantics.NORMAL).words is LABEL_WORDS
    assert describe(Semantics.REACHABILITY).show(1) == 0  # region 1 = player 0 wins
    assert describe(Semantics.REACHABILITY).show(0) == 1
    assert describe(Semantics.IMPARTIAL).show(-1, kset=(2, 0)) == "inf(0,2)"
    assert (
        describe(Semantics.MINIMAX).show(2.0) == 2 and describe(Semantics.MINIMAX).show(0.5) == 0.5
    )


def test_columns_mask_instead_of_sentinels() -> None:
    r = SolverResult(
        "x",
        View.LABEL,
        np.array([1, -1, 0], dtype=np.int8),
        remoteness=np.array([1, 0, -1]),
        move=np.array([1, -1, -1]),
    )
    assert r.columns[REMOTENESS].given.tolist() == [True, True, False]
    assert r.columns[MOVE].given.tolist() == [True, False, False]
    assert r.columns[REMOTENESS].at(2) is None and r.columns[MOVE].at(0) == 1
    partial = SolverResult("y", View.SCORE, np.array([1.0, np.nan]), covered=np.array([1, 0], bool))
    assert partial.columns[VALUE].given.tolist() == [True, False]


def test_same_entries_compares_where_given() -> None:
    a = Column.where(np.array([1, 2, 3]), np.array([True, True, False]))
    b = Column.where(np.array([1, 5, 9]), np.array([True, True, False]))
    c = Column.where(np.array([1, 2, 3]), np.array([True, False, False]))
    assert same_entries(a, b).tolist() == [True, False, True]  # missing on both sides is equal
    assert same_entries(a, c).tolist() == [True, False, True]  # given on one side only differs


def fig1() -> Case:
    """Kars' Figure 1 with b < d: a = max(b, c), c = min(d, a) has every a in [b, d]: a draw."""
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2},
    )
    return Case(graph=g, id="fig1", root=g.id_of("a"))


def test_minimax_solution_by_hand() -> None:
    rep = run_case(fig1(), Options(engine="reference"))
    assert rep.verdict is CaseVerdict.VERIFIED
    s = rep.solution
    assert s is not None and s.description.semantics is Semantics.MINIMAX
    # Kars: play can cycle a -> c -> a forever, so a and c are draws (0); leaves keep t
    assert [s.value(x) for x in "acbd"] == [0, 0, -1, 2]
    assert s.at("a")["outcome"] == "draw" and s.at("b")["outcome"] == "loss"  # Max's view
    assert s.at("a")["move"] == "c"  # the draw keeps the draw (b would lose for Max)
    # leaves: no move; a decided leaf is 0 plies from its end
    assert s.at("d") == {"position": "d", "value": 2, "outcome": "win", "remoteness": 0}
    assert set(s.agreeing) >= {"kars-iteration", "kars-levels"}
    assert "smt-equations" in s.confirmed[VALUE]
    assert rep.summary["root_value"] == 0 and rep.summary["drawn"] == 2


def test_normal_solution_by_hand() -> None:
    # a -> b -> c (c: no move, lost for the mover); d <-> e cycle
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "d": ["e"], "e": ["d"]}, semantics=Semantics.NORMAL
    )
    rep = run_case(Case(graph=g, id="chain", root=g.id_of("a")), Options(engine="reference"))
    s = rep.solution
    assert rep.verdict is CaseVerdict.VERIFIED and s is not None
    rows = {r["position"]: r for r in s.records()}
    assert rows["c"] == {
        "position": "c",
        "value": "lost",
        "outcome": "loss",
        "remoteness": 0,
        "move": None,
    }
    assert rows["b"]["value"] == "won" and rows["b"]["remoteness"] == 1 and rows["b"]["move"] == "c"
    assert (
        rows["a"]["value"] == "lost" and rows["a"]["remoteness"] == 2 and rows["a"]["move"] == "b"
    )
    assert rows["d"]["value"] == "draw" and rows["d"]["remoteness"] is None
    assert rows["d"]["outcome"] == "draw"
    assert s.sources[REMOTENESS] == s.sources[VALUE]  # one solver's answer, not a patchwork


def test_reachability_winner_is_the_case_formats_player() -> None:
    # player 0 at a moves to the target t or to the dead end x; player 1 at b must go to x
    g = GameGraph.from_successors(
        {"a": ["t", "x"], "b": ["x"]},
        semantics=Semantics.REACHABILITY,
        owner={"a": 0, "b": 1, "t": 0, "x": 0},
        target=["t"],
    )
    rep = run_case(Case(graph=g, id="reach"), Options(engine="reference"))
    s = rep.solution
    assert rep.verdict is CaseVerdict.VERIFIED and s is not None
    assert [s.value(x) for x in ("a", "b", "t", "x")] == [0, 1, 0, 1]
    assert s.at("a")["outcome"] == "win" and s.at("a")["remoteness"] == 1
    assert s.at("a")["move"] == "t" and s.at("b")["outcome"] == "loss"


def test_impartial_loopy_values_are_a_column_not_minus_one() -> None:
    # u <-> v with no exit: both infinite with K = {} (a draw); w moves into the loop or to
    # the end t: its finite options' values K = {0}, and no finite value fits (u has no option
    # of value mex{0} = 1), so w = inf(0): a win for the mover (move to the P position t)
    g = GameGraph.from_successors(
        {"u": ["v"], "v": ["u"], "w": ["u", "t"]}, semantics=Semantics.IMPARTIAL
    )
    rep = run_case(Case(graph=g, id="loop"), Options(engine="reference"))
    s = rep.solution
    assert rep.verdict is CaseVerdict.VERIFIED and s is not None
    assert [s.value(x) for x in "uvwt"] == ["inf", "inf", "inf(0)", 0]
    u, w = g.id_of("u"), g.id_of("w")
    assert s.columns[VALUE].at(w) is None and s.columns[LOOPY].at(w) == (0,)
    assert s.columns[LOOPY].at(u) == () and s.at("u")["outcome"] == "draw"
    assert s.at("w")["outcome"] == "win" and s.at("w")["move"] == "t"
    assert s.at("t")["outcome"] == "loss"
    assert rep.summary["won"] == 1 and rep.summary["lost"] == 1 and rep.summary["drawn"] == 2


def test_solution_prefers_the_widest_answer_and_names_agreement() -> None:
    case = fig1()
    full = SolverResult("full", View.SCORE, np.array([0.0, 0.0, -1.0, 2.0]))
    root = SolverResult(
        "root",
        View.SCORE,
        np.array([0.0, np.nan, np.nan, np.nan]),
        covered=np.eye(4, dtype=bool)[0],
    )
    wrong = SolverResult("wrong", View.SCORE, np.array([2.0, 2.0, -1.0, 2.0]))
    s = Solution.from_results(case, {"root": root, "full": full, "wrong": wrong})
    assert s is not None and s.sources[VALUE] == "full" and s.covered.all()
    assert s.agreeing == ("root", "full")
    assert Solution.from_results(case, {}) is None
    with pytest.raises(KeyError):
        s.at("nowhere")
