"""Grundy values on the engine: nim and subtraction positions, mex, the reference, cycles."""

from __future__ import annotations

import numpy as np
import pytest
from engine_strategies import graphs, random_graph
from hypothesis import given, settings

from verifier.engine import frontier, grundy_numpy, mex_rows
from verifier.errors import CycleError
from verifier.model import GameGraph, Semantics
from verifier.solvers.grundy import grundy_values


def subtraction(n: int, moves: tuple[int, ...]) -> GameGraph:
    """Heap of size 0..n, a move removes one of ``moves`` counters."""
    src = [h for h in range(n + 1) for k in moves if h - k >= 0]
    dst = [h - k for h in range(n + 1) for k in moves if h - k >= 0]
    return GameGraph.from_edges(n + 1, src, dst, semantics=Semantics.IMPARTIAL)


def test_nim_heap_is_its_size() -> None:
    # one nim heap: from h you can move to any smaller heap, G(h) = h
    n = 40
    src = [h for h in range(n) for k in range(h)]
    dst = [k for h in range(n) for k in range(h)]
    g = GameGraph.from_edges(n, src, dst, semantics=Semantics.IMPARTIAL)
    assert grundy_numpy(g).value.tolist() == list(range(n))


def test_subtraction_1_2_3_period_4() -> None:
    g = subtraction(50, (1, 2, 3))
    assert grundy_numpy(g).value.tolist() == [h % 4 for h in range(51)]


def test_subtraction_2_3_hand_values() -> None:
    # S = {2, 3}: G = 0 0 1 1 2 0 0 1 1 2 ... (period 5)
    g = subtraction(14, (2, 3))
    assert grundy_numpy(g).value.tolist() == [0, 0, 1, 1, 2] * 3


def test_mex_rows() -> None:
    values = np.array([0, 1, 3, 5, 2, 2, 0, 0, 1, 2, 4], dtype=np.int64)
    counts = np.array([3, 1, 2, 0, 5], dtype=np.int64)
    # rows: {0,1,3} -> 2; {5} -> 0; {2,2} -> 0; {} -> 0; {0,0,1,2,4} -> 3
    assert mex_rows(values, counts).tolist() == [2, 0, 0, 0, 3]


def test_cycle_is_named() -> None:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "c"], "c": []}, semantics=Semantics.IMPARTIAL
    )
    with pytest.raises(CycleError, match=r"a -> b -> a|b -> a -> b"):
        grundy_numpy(g)


def test_heights() -> None:
    g = subtraction(6, (1, 2))
    assert grundy_numpy(g).height.tolist() == [0, 1, 2, 3, 4, 5, 6]


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.IMPARTIAL, acyclic=True))
def test_agrees_with_reference(g: GameGraph) -> None:
    assert grundy_numpy(g).value.tolist() == grundy_values(g).tolist()


@pytest.mark.parametrize("scalar", [0, 10**9])
def test_scalar_and_numpy_paths_agree(monkeypatch: pytest.MonkeyPatch, scalar: int) -> None:
    monkeypatch.setattr(frontier, "SCALAR_FRONTIER", scalar)
    monkeypatch.setattr("verifier.engine.grundy.SCALAR_FRONTIER", scalar)
    rng = np.random.default_rng(13)
    for _ in range(150):
        g = random_graph(rng, Semantics.IMPARTIAL, 30, acyclic=True)
        assert grundy_numpy(g).value.tolist() == grundy_values(g).tolist()
