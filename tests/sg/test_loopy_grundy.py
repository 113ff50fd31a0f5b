"""The generalized Sprague-Grundy function: a hand-worked loopy graph, rendering, Fraenkel's
conditions, and the P/N/D classes against retrograde analysis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from sg_graphs import LOOPY_VALUES, impartial_graphs, loopy_graph

from verifier.checks.loopy_classes import loopy_classes_check
from verifier.model import Case, GameGraph, Semantics, Verdict
from verifier.model.describe import describe
from verifier.registry import CheckContext, Options
from verifier.solvers.loopy_grundy import (
    DRAW,
    INF,
    LOSS,
    WIN,
    GValue,
    gsg_violations,
    loopy_grundy,
    loopy_grundy_solver,
    normal_view,
    outcome_classes,
    parse_value,
    render,
)
from verifier.solvers.retrograde import retrograde


def test_hand_worked_loopy_graph() -> None:
    g = loopy_graph()
    r = loopy_grundy(g)
    assert {g.name(x): render(r.value(x)) for x in range(g.n)} == LOOPY_VALUES
    classes = dict(zip(g.names, outcome_classes(r.values, r.kset).tolist(), strict=True))
    assert classes == {
        "t": LOSS,
        "s": WIN,
        "x": WIN,
        "u": DRAW,
        "y": WIN,
        "v": DRAW,
        "z": DRAW,
        "p": LOSS,
        "a": DRAW,
        "b": DRAW,
    }
    # x = 1 although its option u is infinite: u reverses through s (value 1) labelled earlier
    x, s = g.id_of("x"), g.id_of("s")
    assert r.counter[s] < r.counter[x]
    assert gsg_violations(g, r.values, r.kset, r.counter) == []


def test_render_and_parse() -> None:
    assert render(GValue(3)) == "3"
    assert render(GValue(None, frozenset({2, 0}))) == "inf(0,2)"
    assert render(GValue(None)) == "inf"
    for text in ("0", "7", "inf", "inf(0,2)", "inf(1)"):
        assert render(parse_value(text)) == text
    assert parse_value(4) == GValue(4)
    with pytest.raises(ValueError, match="not a Grundy value"):
        parse_value("infinity")


def test_solver_encoding() -> None:
    g = loopy_graph()
    res = loopy_grundy_solver(Case(graph=g, id="loopy"), Options())
    u, y = g.id_of("u"), g.id_of("y")
    assert res.values[u] == INF and res.loopy is not None and res.loopy[u] == (1,)
    # past the solver layer the infinite values are a column of K's, the value column is masked
    assert res.columns["loopy"].at(u) == (1,) and res.columns["value"].at(u) is None
    assert describe(Semantics.IMPARTIAL).show_node(res.columns, y) == "inf(0)"
    assert res.move is not None
    assert res.move[g.id_of("u")] == u  # a draw keeps the draw: stay in the loop
    assert res.move[g.id_of("x")] == g.id_of("t")


def test_conditions_detect_a_wrong_value() -> None:
    g = loopy_graph()
    r = loopy_grundy(g)
    bad = r.values.copy()
    bad[g.id_of("x")] = INF  # claim x is infinite: no infinite option without the mex in K
    kset = {**r.kset, g.id_of("x"): (0,)}
    assert [v["condition"] for v in gsg_violations(g, bad, kset, r.counter)] == ["C"]
    bad = r.values.copy()
    bad[g.id_of("p")] = 1
    assert gsg_violations(g, bad, r.kset, r.counter)[0]["node"] == "p"


def test_classes_check_confirms() -> None:
    case = Case(graph=loopy_graph(), id="loopy")
    checks = loopy_classes_check(CheckContext(case=case, results={}))
    assert [c.verdict for c in checks] == [Verdict.CONFIRMED, Verdict.CONFIRMED]


@settings(max_examples=200, deadline=None)
@given(impartial_graphs())
def test_classes_equal_retrograde_labels(g: GameGraph) -> None:
    r = loopy_grundy(g)
    labels = retrograde(normal_view(g)).label
    assert np.array_equal(outcome_classes(r.values, r.kset), labels)
    assert gsg_violations(g, r.values, r.kset, r.counter) == []


def _tiny_retrograde(g: GameGraph) -> list[int]:
    """An independent won/lost fixpoint, written for this test only (no counters, no queue)."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    label = [0] * g.n
    changed = True
    while changed:
        changed = False
        for x in range(g.n):
            succ = idx[ptr[x] : ptr[x + 1]]
            new = (
                -1
                if all(label[y] == 1 for y in succ)
                else 1
                if any(label[y] == -1 for y in succ)
                else 0
            )
            if label[x] == 0 and new != 0:
                label[x] = new
                changed = True
    return label


@settings(max_examples=150, deadline=None)
@given(impartial_graphs())
def test_classes_equal_an_independent_fixpoint(g: GameGraph) -> None:
    r = loopy_grundy(g)
    assert outcome_classes(r.values, r.kset).tolist() == _tiny_retrograde(g)
