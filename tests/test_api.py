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
