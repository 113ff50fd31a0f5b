"""Retrograde analysis (Knuth, TAOCP 2.2.3 ex. 28): hand-worked graphs and the defining rules."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest
from hypothesis import given, settings
from solver_strategies import normal_graphs

from verifier.model import GameGraph, Semantics
from verifier.solvers.retrograde import LOST, UNKNOWN, WON, retrograde


def normal(succ: dict[str, Iterable[str]], value: dict[str, float] | None = None) -> GameGraph:
    return GameGraph.from_successors(succ, semantics=Semantics.NORMAL, value=value)


def by_name(g: GameGraph, arr: np.ndarray) -> dict[str, int]:
    return dict(zip(g.names, arr.tolist(), strict=True))


def move_names(g: GameGraph, move: np.ndarray) -> dict[str, str | None]:
    return {g.name(x): (g.name(y) if y >= 0 else None) for x, y in enumerate(move.tolist())}


def test_chain() -> None:
    g = normal({"a": ["b"], "b": ["c"], "c": []})
    r = retrograde(g)
    assert by_name(g, r.label) == {"a": LOST, "b": WON, "c": LOST}
    assert by_name(g, r.remoteness) == {"a": 2, "b": 1, "c": 0}
    assert move_names(g, r.move) == {"a": "b", "b": "c", "c": None}
    assert r.edges_scanned == 2


def test_cycle_with_an_escape() -> None:
    # x -> y, t (t lost): x is won at once; y's only move goes to x: y is lost.
    g = normal({"x": ["y", "t"], "y": ["x"], "t": []})
    r = retrograde(g)
    assert by_name(g, r.label) == {"x": WON, "y": LOST, "t": LOST}
    assert by_name(g, r.remoteness) == {"x": 1, "y": 2, "t": 0}
    assert move_names(g, r.move) == {"x": "t", "y": "x", "t": None}


def test_cycles_and_draws_stay_unknown() -> None:
    # p <-> q: nothing to deduce. d is a draw terminal: unknown, as in Knuth; e -> d unknown.
    # u -> u (a self-loop only): unknown. f -> w (a won terminal): lost.
    g = normal(
        {"p": ["q"], "q": ["p"], "e": ["d"], "d": [], "u": ["u"], "f": ["w"], "w": []},
        value={"d": 0.0, "w": 1.0},
    )
    r = retrograde(g)
    assert by_name(g, r.label) == {
        "p": UNKNOWN, "q": UNKNOWN, "e": UNKNOWN, "d": UNKNOWN, "u": UNKNOWN, "f": LOST, "w": WON
    }  # fmt: skip
    assert by_name(g, r.remoteness) == {"p": -1, "q": -1, "e": -1, "d": -1, "u": -1, "f": 1, "w": 0}
    assert move_names(g, r.move) == {
        "p": "q", "q": "p", "e": "d", "d": None, "u": "u", "f": "w", "w": None
    }  # fmt: skip


def test_unknown_node_avoids_the_losing_move() -> None:
    # v -> w (won terminal, so moving there loses), v -> c (a cycle c <-> v): v stays unknown and
    # its move is the unknown successor c, not the smaller-named losing one.
    g = normal({"v": ["w", "c"], "w": [], "c": ["v"]}, value={"w": 1.0})
    r = retrograde(g)
    assert by_name(g, r.label) == {"v": UNKNOWN, "w": WON, "c": UNKNOWN}
    assert move_names(g, r.move)["v"] == "c"


def test_winner_hurries_and_loser_delays() -> None:
    # h -> k, z: k is lost in 2 (k -> m -> z2), z is lost now: h wins in 1 via z.
    # L -> w1, w2: w1 is won in 1 (w1 -> z3), w2 in 3 (w2 -> k): L is lost in 4, delaying via w2.
    g = normal(
        {
            "h": ["k", "z"],
            "k": ["m"],
            "m": ["z2"],
            "L": ["w1", "w2"],
            "w1": ["z3"],
            "w2": ["k"],
            "z": [],
            "z2": [],
            "z3": [],
        }
    )
    r = retrograde(g)
    rem = by_name(g, r.remoteness)
    assert by_name(g, r.label) == {
        "h": WON, "k": LOST, "m": WON, "L": LOST, "w1": WON, "w2": WON, "z": LOST, "z2": LOST,
        "z3": LOST,
    }  # fmt: skip
    assert rem == {"h": 1, "k": 2, "m": 1, "L": 4, "w1": 1, "w2": 3, "z": 0, "z2": 0, "z3": 0}
    mv = move_names(g, r.move)
    assert mv["h"] == "z" and mv["L"] == "w2" and mv["w2"] == "k"


def test_nan_terminal_is_lost_and_semantics_checked() -> None:
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.NORMAL)  # value NaN everywhere
    assert retrograde(g).label.tolist() == [WON, LOST]
    with pytest.raises(ValueError, match="normal"):
        retrograde(g.replace(semantics=Semantics.MINIMAX))


@settings(max_examples=400, deadline=None)
@given(normal_graphs(max_nodes=9))
def test_labels_follow_the_rules(g: GameGraph) -> None:
    r = retrograde(g)
    lab, rem, mv = r.label.tolist(), r.remoteness.tolist(), r.move.tolist()
    for x in range(g.n):
        succ = g.successors(x).tolist()
        if not succ:
            continue
        sl = [lab[y] for y in succ]
        if lab[x] == WON:
            assert rem[x] == 1 + min(rem[y] for y in succ if lab[y] == LOST)
            assert lab[mv[x]] == LOST and rem[mv[x]] == rem[x] - 1
        elif lab[x] == LOST:
            assert all(v == WON for v in sl)
            assert rem[x] == 1 + max(rem[y] for y in succ) == 1 + rem[mv[x]]
        else:
            assert LOST not in sl and any(v == UNKNOWN for v in sl)
            assert rem[x] == -1 and lab[mv[x]] == UNKNOWN
    # Greatest fixpoint check: the unknown nodes with the won labels removed can all keep a
    # draw (every unknown inner node has an unknown successor), i.e. nothing more is forced.
    unknown = {x for x in range(g.n) if lab[x] == UNKNOWN}
    for x in unknown:
        succ = g.successors(x).tolist()
        assert not succ or any(y in unknown for y in succ)
