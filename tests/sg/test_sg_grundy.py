"""The mex solver on acyclic graphs: hand-worked values, P/N positions, cycles refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from sg_graphs import impartial_graphs

from verifier.errors import NotApplicable
from verifier.games.nim import nim_heaps, nim_position
from verifier.games.subtraction import subtraction_game
from verifier.model import Case, GameGraph, Semantics
from verifier.registry import Options
from verifier.solvers.grundy import (
    grundy_solver,
    grundy_values,
    mex,
    pn_classes,
    winning_moves,
)
from verifier.solvers.loopy_grundy import loopy_grundy


def test_mex() -> None:
    assert mex([]) == 0
    assert mex([1, 2]) == 0
    assert mex([0, 2, 1, 4]) == 3
    assert mex(iter([0, 0, 1])) == 2


def test_nim_heaps_have_their_size_as_value() -> None:
    g = nim_heaps(6).graph
    assert grundy_values(g).tolist() == [0, 1, 2, 3, 4, 5, 6]


def test_subtraction_1_2_3_is_n_mod_4() -> None:
    g = subtraction_game({1, 2, 3}, 12).graph
    assert grundy_values(g)[:13].tolist() == [n % 4 for n in range(13)]


def test_hand_worked_dag() -> None:
    # e, f terminal (0); d -> e: 1; c -> d, e: 2; b -> c, f: mex{2, 0} = 1;
    # a -> b, c, d: mex{1, 2, 1} = 0 (a P-position: every move gives the opponent a win)
    g = GameGraph.from_successors(
        {"a": ["b", "c", "d"], "b": ["c", "f"], "c": ["d", "e"], "d": ["e"], "e": [], "f": []},
        semantics=Semantics.IMPARTIAL,
    )
    values = grundy_values(g)
    assert dict(zip(g.names, values.tolist(), strict=True)) == {
        "a": 0,
        "b": 1,
        "c": 2,
        "d": 1,
        "e": 0,
        "f": 0,
    }
    assert pn_classes(values).tolist() == [-1, 1, 1, 1, -1, -1]
    move = winning_moves(g, values)
    assert [g.name(int(m)) if m >= 0 else None for m in move] == [None, "f", "e", "e", None, None]


def test_nim_position_xor() -> None:
    case = nim_position([1, 2, 3])
    values = grundy_values(case.graph)
    assert case.root is not None and values[case.root] == 0  # 1 xor 2 xor 3 = 0
    assert all(values[x] == v for x, v in case.expect.grundy.items())  # type: ignore[union-attr]


def test_registered_solver_refuses_cycles() -> None:
    g = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.IMPARTIAL)
    with pytest.raises(NotApplicable, match="cycle"):
        grundy_solver(Case(graph=g, id="c"), Options())


def test_registered_solver_result() -> None:
    res = grundy_solver(nim_heaps(3), Options())
    assert res.values.tolist() == [0, 1, 2, 3]
    assert res.move is not None and res.move.tolist() == [-1, 0, 0, 0]


@settings(max_examples=150, deadline=None)
@given(impartial_graphs(acyclic=True))
def test_mex_solver_equals_loopy_solver_on_dags(g: GameGraph) -> None:
    values = grundy_values(g)
    assert np.array_equal(values, loopy_grundy(g).values)
    ptr, idx = g.succ_ptr, g.succ_idx
    for x in range(g.n):  # the definition, node by node
        assert values[x] == mex(values[idx[ptr[x] : ptr[x + 1]]].tolist())
