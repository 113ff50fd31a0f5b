"""The Python API as a notebook uses it: build a case, solve it, verify it, read the answer."""

from __future__ import annotations

import pytest

import verifier
from verifier import Case, GameGraph, Semantics
from verifier.model import MAX, MIN


def test_a_notebook_session_through_the_api_only() -> None:
    # Max at r chooses between a Min node m (leaves 3 and 1: Min takes 1) and the leaf 2:
    # r = max(min(3, 1), 2) = 2, Max plays the leaf, one ply from the end.
    g = GameGraph.from_successors(
        {"r": ["m", "two"], "m": ["three", "one"]},
        semantics=Semantics.MINIMAX,
        owner={"r": MAX, "m": MIN},
        value={"two": 2, "three": 3, "one": 1},
    )
    case = Case(graph=g, id="notebook", root=g.id_of("r"))
    sol = verifier.solve(case, engine="reference")
    assert (sol["r"].value, sol["r"].move, sol["r"].remoteness) == (2, "two", 1)
    assert (sol["m"].value, sol["m"].move, sol["m"].outcome) == (1, "one", "win")
    assert sol["r"].line() == ["r", "two"]
    assert list(sol) == ["r", "m", "two", "three", "one"] and len(sol) == 5
    assert sol.to_dict()["m"] == {"value": 1, "outcome": "win", "remoteness": 1, "move": "one"}
    html = sol._repr_html_()
    assert "<table>" in html and "<td>two</td>" in html and "view of Max" in html
    rep = verifier.verify(case)
    assert rep.verdict.value == "verified" and rep.witness is None
    assert rep.solution is not None and rep.solution["r"].value == 2


def test_to_pandas_is_indexed_by_position() -> None:
    pd = pytest.importorskip("pandas")
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"]}, semantics=Semantics.NORMAL)
    df = verifier.solve(Case(graph=g, id="chain")).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df.loc["a", "value"] == "lost" and df.loc["b", "remoteness"] == 1


def test_a_refuted_answer_has_a_witness() -> None:
    rep = verifier.verify(
        Case(
            graph=GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL),
            id="wrong-expect",
            # a moves to the end b, where the player to move has lost: a is won, not lost
            expect=verifier.Expect(labels={0: "lost"}),
        )
    )
    assert rep.verdict.value == "refuted"
    assert rep.witness is not None and rep.witness["node"] == "a"


def _figure1() -> Case:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2},
    )
    return Case(graph=g, id="figure-1", root=g.id_of("a"))


def test_an_unknown_engine_is_a_value_error_listing_the_engines() -> None:
    with pytest.raises(ValueError, match=r"engine 'foo': expected one of auto, reference, numpy"):
        verifier.solve(_figure1(), engine="foo")
    with pytest.raises(ValueError, match="compiled"):
        verifier.verify(_figure1(), engine="Numpy")


def test_reprs_are_short_and_say_the_answer() -> None:
    sol = verifier.solve(_figure1())
    assert repr(sol) == "<Solution minimax 4 positions: root a = 0 (draw)>"
    rep = verifier.verify(_figure1())
    n = len(rep.checks)
    assert repr(rep) == f"<CaseReport figure-1 minimax: verified, {n} checks ({n} confirmed)>"
    g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL)
    short = repr(verifier.solve(Case(graph=g, id="x")))
    assert short == "<Solution normal 2 positions, 2 answered>"


def test_the_notebook_table_leaves_missing_entries_empty() -> None:
    html = verifier.solve(_figure1())._repr_html_()
    # a (a draw) has no remoteness: an empty cell, never the word None
    assert "<tr><td>a</td><td>0</td><td>draw</td><td></td><td>c</td></tr>" in html
    assert "None" not in html


def test_solution_and_report_types_come_from_the_package() -> None:
    sol = verifier.solve(_figure1())
    assert isinstance(sol, verifier.Solution)
    assert isinstance(verifier.verify(_figure1()), verifier.CaseReport)
    assert {"Solution", "CaseReport"} <= set(verifier.__all__)
    with pytest.raises(AttributeError, match="no_such"):
        verifier.no_such  # noqa: B018
