"""Sums: the XOR rule (with loopy values) against the explicit product game."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sg_graphs import impartial_graphs, loopy_graph

from verifier.games.nim import nim_heaps
from verifier.model import Case, Expect, GameGraph, SumSpec, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.solvers.grundy import grundy_values
from verifier.solvers.loopy_grundy import GValue, loopy_grundy, render
from verifier.solvers.sums import product_game, sum_value, sum_values


def test_rules() -> None:
    assert sum_value([GValue(3), GValue(5), GValue(1)]) == GValue(7)
    assert sum_value([GValue(2), GValue(None, frozenset({0, 3}))]) == GValue(
        None, frozenset({2, 1})
    )
    assert sum_value([GValue(None, frozenset({0})), GValue(None, frozenset({1}))]) == GValue(None)


def test_product_of_nim_heaps() -> None:
    g = nim_heaps(3).graph
    prod = product_game(g, [1, 2, 3])
    assert prod.graph.n == 2 * 3 * 4
    values = grundy_values(prod.graph)
    assert values[0] == 0  # 1 xor 2 xor 3
    assert all(values[i] == s[0] ^ s[1] ^ s[2] for i, s in enumerate(prod.states))


def test_hand_worked_loopy_sums() -> None:
    g = loopy_graph()
    lg = loopy_grundy(g)
    ids = g.id_of

    def value(*names: str) -> str:
        return render(sum_value([lg.value(ids(n)) for n in names]))

    assert value("x", "s") == "0"  # 1 + 1: the second player wins
    assert value("u", "s") == "inf(0)"  # inf(1) + 1: the mover wins (to (u, t))
    assert value("y", "x") == "inf(1)"  # inf(0) + 1: a draw
    assert value("u", "v") == "inf"
    for names in (("x", "s"), ("u", "s"), ("y", "x"), ("u", "v")):
        prod = product_game(g, [ids(n) for n in names])
        assert render(loopy_grundy(prod.graph).value(0)) == value(*names)


def test_pipeline_sum_checks_and_expectations() -> None:
    g = nim_heaps(5).graph
    good = Case(
        graph=g,
        id="nim-sum",
        sums=(SumSpec("s345", (3, 4, 5)),),
        expect=Expect(sums={"s345": 2}),
    )
    report = run_case(good)
    assert report.verdict is CaseVerdict.VERIFIED
    names = [c.name for c in report.checks if "s345" in c.name]
    assert any("product" in n for n in names) and any("Z3" in n for n in names)
    wrong = Case(graph=g, id="nim-sum", sums=good.sums, expect=Expect(sums={"s345": 3}))
    report = run_case(wrong)
    refuted = [c for c in report.checks if c.verdict is Verdict.REFUTED]
    assert report.verdict is CaseVerdict.REFUTED
    assert refuted[0].witness == {"sum": "s345", "expected": "3", "got": "2"}


@settings(max_examples=100, deadline=None)
@given(impartial_graphs(max_nodes=6), st.data())
def test_rule_equals_product_solve(g: GameGraph, data: st.DataObject) -> None:
    k = data.draw(st.integers(2, 3))
    positions = [data.draw(st.integers(0, g.n - 1)) for _ in range(k)]
    lg = loopy_grundy(g)
    prod = product_game(g, positions)
    solved = loopy_grundy(prod.graph)
    rule = [render(v) for v in sum_values(lg, prod.states)]
    assert rule == [render(solved.value(x)) for x in range(prod.graph.n)]
