"""The field contract checks (moves, minimax remoteness, infinite Grundy values) on hand-made
graphs whose answers were worked out by hand: each confirms the right answer and refutes a
corrupted one naming the node."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from verifier import Case, GameGraph, Semantics
from verifier.checks.grundy_infinite import check_grundy_infinite
from verifier.checks.moves import check_moves
from verifier.checks.remoteness import attractor_layers, check_minimax_remoteness
from verifier.model import MAX, MIN, SolverResult, Verdict
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import CheckContext, Options


def minimax_case() -> Case:
    """a (Max) -> b (leaf 1), c (Min); c -> d (2), e (3): s(c) = 2, s(a) = 2, rem(c) = 1,
    rem(a) = 2 (the game a -> c -> d). h (Min) -> i (leaf 2), j (Max); j -> k (leaf 5):
    s(j) = 5, s(h) = 2, rem(h) = 1: Min keeps the score by i and the game ends there (its
    threshold layer is 2, the plies within which Max forces >= 2 whatever Min does, conceding 5;
    issue 28 item 4). f (Max) -> f, l (leaf -1): Max stays in the loop, a draw (0)."""
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "e"], "h": ["i", "j"], "j": ["k"], "f": ["f", "l"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN, "h": MIN, "j": MAX, "f": MAX},
        value={"b": 1, "d": 2, "e": 3, "i": 2, "k": 5, "l": -1},
    )
    return Case(graph=g, id="contract")


def ref(case: Case, solver: str) -> tuple[CheckContext, SolverResult]:
    rep = run_case(case, Options(engine="reference"))
    assert rep.verdict is CaseVerdict.VERIFIED, [c.detail for c in rep.checks]
    r = rep.results[solver]
    return CheckContext(case, {solver: r}), r


def test_minimax_remoteness_and_moves_by_hand() -> None:
    case = minimax_case()
    g = case.graph
    ctx, r = ref(case, "kars-iteration")
    s = dict(zip(g.names, r.values.tolist(), strict=True))
    assert (s["a"], s["c"], s["h"], s["j"], s["f"]) == (2, 2, 2, 5, 0)
    rem = {x: r.columns["remoteness"].at(g.id_of(x)) for x in "achjf"}
    assert rem == {"a": 2, "c": 1, "h": 1, "j": 1, "f": None}
    threshold = attractor_layers(g, MAX, np.asarray(g.is_terminal & (g.value >= 2)))
    assert threshold[g.id_of("h")] == 2  # the old quantity, not the length of play
    mv = {x: g.name(r.columns["move"].at(g.id_of(x))) for x in "achf"}
    assert mv == {"a": "c", "c": "d", "h": "i", "f": "f"}
    assert [c.verdict for c in check_minimax_remoteness(ctx)] == [Verdict.CONFIRMED]
    assert [c.verdict for c in check_moves(ctx)] == [Verdict.CONFIRMED]


def _with(r: SolverResult, **arrays: tuple[int, int]) -> SolverResult:
    """``r`` with one entry of each named raw field changed: ``field=(node, new)``."""
    changes = {}
    for name, (x, new) in arrays.items():
        a = np.array(getattr(r, name), copy=True)
        a[x] = new
        changes[name] = a
    return replace(r, **changes)


def _refuted_at(results: list, node: str) -> None:
    [c] = results
    assert c.verdict is Verdict.REFUTED and c.witness is not None, c.detail
    assert c.witness["node"] == node, c.witness


def test_minimax_remoteness_refutes_off_by_one_and_draws() -> None:
    case = minimax_case()
    g = case.graph
    _, r = ref(case, "kars-iteration")
    a, f = g.id_of("a"), g.id_of("f")
    for bad in (
        _with(r, remoteness=(a, 3)),
        _with(r, remoteness=(a, 1)),
        _with(r, remoteness=(f, 0)),  # a draw has no remoteness
        _with(r, remoteness=(a, -1)),  # a decided node must have one
    ):
        ctx = CheckContext(case, {"x": replace(bad, solver="x")})
        _refuted_at(check_minimax_remoteness(ctx), "a" if bad.remoteness[a] != 2 else "f")


def test_moves_refute_a_hurrying_loser_a_missing_move_and_a_non_move() -> None:
    case = minimax_case()
    g = case.graph
    _, r = ref(case, "kars-iteration")
    h, f, j = g.id_of("h"), g.id_of("f"), g.id_of("j")
    for bad, node in (
        (_with(r, move=(h, j)), "h"),  # Min gives up the score: j is worth 5 to Max
        (_with(r, move=(f, g.id_of("l"))), "f"),  # leaves the draw for a loss
        (_with(r, move=(f, -1)), "f"),  # no move named at an inner node
        (_with(r, move=(j, g.id_of("b"))), "j"),  # not a move of j
    ):
        _refuted_at(check_moves(CheckContext(case, {"x": replace(bad, solver="x")})), node)


def test_normal_play_loser_must_delay() -> None:
    # x lost: its moves y1 (won in 1) and y2 (won in 3); the loser plays y2 (remoteness 4)
    g = GameGraph.from_successors(
        {"x": ["y1", "y2"], "y1": ["t"], "y2": ["z"], "z": ["w"], "w": ["t2"]},
        semantics=Semantics.NORMAL,
    )
    case = Case(graph=g, id="delay")
    ctx, r = ref(case, "retrograde")
    x = g.id_of("x")
    assert r.columns["remoteness"].at(x) == 4 and g.name(r.columns["move"].at(x)) == "y2"
    assert [c.verdict for c in check_moves(ctx)] == [Verdict.CONFIRMED]
    hurry = replace(_with(r, move=(x, g.id_of("y1"))), solver="x")
    _refuted_at(check_moves(CheckContext(case, {"x": hurry})), "x")


def test_impartial_moves_and_infinite_values() -> None:
    # nim heap of 2 as a DAG: 2 -> 1, 0; 1 -> 0. g = 2, 1, 0: N moves to the P position 0
    g = GameGraph.from_successors({"2": ["1", "0"], "1": ["0"]}, semantics=Semantics.IMPARTIAL)
    case = Case(graph=g, id="nim2")
    ctx, r = ref(case, "grundy-mex")
    two, one = g.id_of("2"), g.id_of("1")
    assert r.values.tolist() == [2, 1, 0] and g.name(r.columns["move"].at(two)) == "0"
    assert [c.verdict for c in check_moves(ctx)] == [Verdict.CONFIRMED]
    assert [c.verdict for c in check_grundy_infinite(ctx)] == [Verdict.CONFIRMED]
    n_to_n = replace(_with(r, move=(two, one)), solver="x")
    _refuted_at(check_moves(CheckContext(case, {"x": n_to_n})), "2")
    # "inf" on an acyclic graph: no infinite option, so it cannot be infinite
    vals = r.values.copy()
    vals[two] = -1
    inf = replace(r, solver="x", values=vals, loopy={two: ()})
    _refuted_at(check_grundy_infinite(CheckContext(case, {"x": inf})), "2")


def test_loopy_k_must_be_the_finite_options() -> None:
    # u <-> v, w -> u, t: u = v = inf, w = inf(0) (Smith); claiming w = inf(1) is wrong
    g = GameGraph.from_successors(
        {"u": ["v"], "v": ["u"], "w": ["u", "t"]}, semantics=Semantics.IMPARTIAL
    )
    case = Case(graph=g, id="loop")
    ctx, r = ref(case, "grundy-loopy")
    assert [c.verdict for c in check_grundy_infinite(ctx)] == [Verdict.CONFIRMED]
    w = g.id_of("w")
    bad = replace(r, solver="x", loopy={**(r.loopy or {}), w: (1,)})
    _refuted_at(check_grundy_infinite(CheckContext(case, {"x": bad})), "w")


def test_attractor_layers_by_hand() -> None:
    # Max at a -> b (target), c; Min at c -> b, d (dead end): a in 1 ply, c never (d is not b)
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["b", "d"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": 1, "d": 0},
    )
    layers = attractor_layers(g, MAX, np.asarray(g.value == 1))
    assert dict(zip(g.names, layers.tolist(), strict=True)) == {"a": 1, "c": -1, "b": 0, "d": -1}
    layers = attractor_layers(g, MAX, np.asarray(g.value >= 0))
    assert dict(zip(g.names, layers.tolist(), strict=True)) == {"a": 1, "c": 1, "b": 0, "d": 0}


def test_sum_values_judge_every_solvers_components() -> None:
    # nim heaps 0..3 (heap k moves to every smaller heap): g(k) = k; the sum 1+2+3 is
    # 1 xor 2 xor 3 = 0. Every solver claiming g(3) = 2 (an N position still, so the sum would be
    # 1 xor 2 xor 2 = 1) is refuted by the product game, naming the sum and the solver.
    from verifier.checks.sums import sums_check
    from verifier.model import SumSpec

    g = GameGraph.from_successors(
        {"3": ["2", "1", "0"], "2": ["1", "0"], "1": ["0"]}, semantics=Semantics.IMPARTIAL
    )
    spec = SumSpec("1+2+3", (g.id_of("1"), g.id_of("2"), g.id_of("3")))
    case = Case(graph=g, id="nim-sum", sums=(spec,))
    rep = run_case(case, Options(engine="reference"))
    assert rep.verdict is CaseVerdict.VERIFIED
    name = "sum '1+2+3': every solver's component values give it"
    [ok] = [c for c in rep.checks if c.name == name]
    assert ok.verdict is Verdict.CONFIRMED and ok.detail.endswith(": 0")
    three = g.id_of("3")
    bad = {k: replace(_with(r, values=(three, 2)), loopy=r.loopy) for k, r in rep.results.items()}
    [judged] = [c for c in sums_check(CheckContext(case, bad)) if c.name == name]
    assert judged.verdict is Verdict.REFUTED and judged.witness is not None
    assert judged.witness["by_the_rule"] == "1" and judged.witness["expected"] == "0"
    assert judged.witness["components"] == {"1": "1", "2": "2", "3": "2"}
