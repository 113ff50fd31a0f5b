"""The array certificate checker says exactly what the plain one says: the same violations, in
the same order, on random graphs with correct and corrupted answers (and both forced-region
queues: the plain one and the compiled one)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "smt"))

from smt_reference import attractor_ref, graphs, kars_iteration, minimax_moves, retrograde

from verifier import certificate_arrays as arr
from verifier import certificates as cert
from verifier import registry
from verifier.model import GameGraph, Semantics

EXAMPLES = 60


def _corrupt(data: st.DataObject, xs: list[Any], values: st.SearchStrategy[Any]) -> list[Any]:
    """``xs`` with up to three entries replaced by drawn values."""
    out = list(xs)
    if not out:
        return out
    for _ in range(data.draw(st.integers(0, 3))):
        out[data.draw(st.integers(0, len(out) - 1))] = data.draw(values)
    return out


def _same(plain: Callable[..., Any], array: Callable[..., Any], *args: Any) -> None:
    want = list(plain(*args))
    got = list(array(*args))
    assert got == want
    # numpy arrays in, same answer
    np_args = [np.asarray(a) if isinstance(a, list) else a for a in args]
    assert list(array(*np_args)) == want


@pytest.fixture(params=["plain queue", "compiled queue"])
def queue(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "compiled queue":
        if not registry.compiled_available():
            pytest.skip("numba is not installed")
        monkeypatch.setattr(registry, "COMPILED_LIMIT", 0)
    return str(request.param)


@settings(max_examples=EXAMPLES, deadline=None)
@given(graphs(Semantics.NORMAL), st.data())
def test_won_lost_and_normal_strategy(g: GameGraph, data: st.DataObject) -> None:
    lab, rem, move = retrograde(g)
    n = g.n
    lab2 = _corrupt(data, lab, st.integers(-1, 2))
    rem2 = _corrupt(data, rem, st.integers(-2, n + 1))
    mv2 = _corrupt(data, move, st.integers(-1, n - 1))
    for ranks in (rem2, None):
        _same(cert.iter_won_lost, arr.iter_won_lost, g, lab2, ranks)
    _same(cert.iter_strategy_normal, arr.iter_strategy_normal, g, lab2, rem2, mv2)
    _same(cert.iter_strategy_normal, arr.iter_strategy_normal, g, lab, rem, move)


@settings(max_examples=EXAMPLES, deadline=None)
@given(graphs(Semantics.REACHABILITY), st.data())
def test_attractor_and_region_strategy(g: GameGraph, data: st.DataObject) -> None:
    w, layer, move = attractor_ref(g)
    n = g.n
    w2 = _corrupt(data, [int(x) for x in w], st.integers(0, 1))
    ly2 = _corrupt(data, layer, st.integers(-2, n + 1))
    mv2 = _corrupt(data, move, st.integers(-1, n - 1))
    for layers in (ly2, None):
        _same(cert.iter_attractor, arr.iter_attractor, g, w2, layers)
    _same(cert.iter_strategy_region, arr.iter_strategy_region, g, w2, ly2, mv2)


def _impartial(g: GameGraph) -> GameGraph:
    """The same moves as an impartial game."""
    return GameGraph(
        semantics=Semantics.IMPARTIAL,
        succ_ptr=g.succ_ptr,
        succ_idx=g.succ_idx,
        owner=np.full(g.n, -1, dtype=np.int8),
        value=np.full(g.n, np.nan),
        target=np.zeros(g.n, dtype=np.bool_),
    )


@settings(max_examples=EXAMPLES, deadline=None)
@given(graphs(Semantics.NORMAL), st.data())
def test_impartial_strategy(g: GameGraph, data: st.DataObject) -> None:
    """The loopy solver's classes and moves pass; corrupted ones get the same violations from
    both checkers (the array one's restricted retrograde is the engine's)."""
    from verifier.solvers.loopy_grundy import _moves, loopy_grundy, outcome_classes

    h = _impartial(g)
    r = loopy_grundy(h)
    classes = outcome_classes(r.values, r.kset).astype(int).tolist()
    move = _moves(h, np.asarray(classes, dtype=np.int8), r.counter).tolist()
    assert not list(cert.iter_strategy_impartial(h, classes, move))
    _same(cert.iter_strategy_impartial, arr.iter_strategy_impartial, h, classes, move)
    cls2 = _corrupt(data, classes, st.integers(-1, 1))
    mv2 = _corrupt(data, move, st.integers(-1, g.n - 1))
    _same(cert.iter_strategy_impartial, arr.iter_strategy_impartial, h, cls2, mv2)
    _same(cert.iter_strategy_impartial, arr.iter_strategy_impartial, h, classes, mv2)


def test_impartial_strategy_refutes_a_cycle_of_n_to_p_moves() -> None:
    """``b -> {a, t}``, ``a -> b``: every move from N to P keeps the win, but ``b -> a`` goes
    round for ever (a draw): refuted at ``b`` by both checkers; ``b -> t`` wins."""
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "t"], "t": []}, semantics=Semantics.IMPARTIAL
    )
    a, t = g.id_of("a"), g.id_of("t")
    classes = [-1, 1, -1]
    for check in (cert.iter_strategy_impartial, arr.iter_strategy_impartial):
        assert not list(check(g, classes, [-1, t, -1]))
        bad = list(check(g, classes, [-1, a, -1]))
        assert [(v.node, v.reason) for v in bad] == [
            ("b", "following the moves the N position does not win (they go round)"),
            ("a", "following the moves the P position is not lost for the mover"),
        ]


def test_minimax_strategy(queue: str) -> None:
    @settings(max_examples=EXAMPLES, deadline=None)
    @given(graphs(Semantics.MINIMAX), st.data())
    def run(g: GameGraph, data: st.DataObject) -> None:
        s = [float(v) for v in kars_iteration(g)]
        move = minimax_moves(g, s)
        levels = sorted({*s, 0.0, 1.0, -1.0})
        s2 = _corrupt(data, s, st.sampled_from(levels))
        mv2 = _corrupt(data, move, st.integers(-1, g.n - 1))
        _same(cert.iter_strategy_minimax, arr.iter_strategy_minimax, g, s2, mv2)
        _same(cert.iter_strategy_minimax, arr.iter_strategy_minimax, g, s, move)
        assert not list(arr.iter_strategy_minimax(g, s, move))

    run()


def test_a_corrupted_move_is_caught_by_the_forced_region(queue: str) -> None:
    """Max's move keeps the score (a cycle of equal values) but never reaches the leaf: only
    the forced-region pass sees it, in both queues."""
    g = GameGraph.from_successors(
        {"a": ["b", "t"], "b": ["a"], "t": []},
        semantics=Semantics.MINIMAX,
        owner={"a": 0, "b": 0},
        value={"t": 1.0},
    )
    s = [1.0, 1.0, 1.0]
    t, b = g.id_of("t"), g.id_of("b")
    assert not list(arr.iter_strategy_minimax(g, s, [t, g.id_of("a"), -1]))
    bad = list(arr.iter_strategy_minimax(g, s, [b, g.id_of("a"), -1]))
    assert bad == list(cert.iter_strategy_minimax(g, s, [b, g.id_of("a"), -1]))
    assert {v.node for v in bad} == {"a", "b"}
    assert all("does not force a leaf worth 1.0" in v.reason for v in bad)


def test_checker_by_size() -> None:
    assert arr.checker(arr.PLAIN_LIMIT) is cert
    assert arr.checker(arr.PLAIN_LIMIT + 1) is arr
