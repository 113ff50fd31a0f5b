"""The attractor of a reachability game (ICO notes): hand-worked graphs and the W_i definition."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from solver_strategies import play, reachability_graphs

from verifier.model import GameGraph, Semantics
from verifier.solvers.attractor import attractor


def reach(succ: dict[str, Iterable[str]], owner: dict[str, int], target: list[str]) -> GameGraph:
    return GameGraph.from_successors(
        succ, semantics=Semantics.REACHABILITY, owner=owner, target=target
    )


def test_layers_and_strategies() -> None:
    # g is the target. p0 (player 0) -> q1, g: layer 1. q1 (player 1) -> p0, g: layer 2.
    # r1 (player 1) -> g, s (a dead end outside G): r1 escapes to s, outside W.
    # p2 (player 0) -> r1, s: both outside, so p2 is outside W. c0 <-> c1 (cycle): infinite play is
    # player 1's, outside W; c1 stays outside by moving to c0.
    g = reach(
        {
            "g": [],
            "p0": ["q1", "g"],
            "q1": ["p0", "g"],
            "r1": ["g", "s"],
            "s": [],
            "p2": ["r1", "s"],
            "c0": ["c1"],
            "c1": ["c0"],
        },
        {"p0": 0, "q1": 1, "r1": 1, "s": 1, "p2": 0, "c0": 0, "c1": 1},
        ["g"],
    )
    r = attractor(g)
    names = list(g.names)
    win = dict(zip(names, r.win.tolist(), strict=True))
    layer = dict(zip(names, r.layer.tolist(), strict=True))
    move = {x: (names[y] if y >= 0 else None) for x, y in zip(names, r.move.tolist(), strict=True)}
    assert win == {
        "g": True, "p0": True, "q1": True, "r1": False, "s": False, "p2": False, "c0": False,
        "c1": False,
    }  # fmt: skip
    assert layer == {
        "g": 0, "p0": 1, "q1": 2, "r1": -1, "s": -1, "p2": -1, "c0": -1, "c1": -1
    }  # fmt: skip
    assert move == {
        "g": None, "p0": "g", "q1": None, "r1": "s", "s": None, "p2": None, "c0": None,
        "c1": "c0",
    }  # fmt: skip


def test_player0_takes_the_least_layer_not_the_smallest_id() -> None:
    # a (player 0) -> b, c; b (player 1) -> d (player 0) -> t; c (player 1) -> t. Layers: t 0,
    # c 1, d 1, b 2, a 1 + min(2, 1) = 2: a goes to c although b has the smaller id.
    g = reach(
        {"a": ["b", "c"], "b": ["d"], "c": ["t"], "d": ["t"], "t": []},
        {"a": 0, "b": 1, "c": 1, "d": 0},
        ["t"],
    )
    r = attractor(g)
    assert r.layer.tolist() == [2, 2, 1, 1, 0]
    assert r.move.tolist() == [2, -1, -1, 4, -1]


def test_target_with_moves_and_player1_dead_end() -> None:
    # t is a target with a move (play is already won there); z is a player-1 dead end: not in W.
    g = reach({"t": ["z"], "z": []}, {"t": 1, "z": 1}, ["t"])
    r = attractor(g)
    assert r.win.tolist() == [True, False] and r.layer.tolist() == [0, -1]
    assert r.move.tolist() == [-1, -1]


@settings(max_examples=400, deadline=None)
@given(reachability_graphs(max_nodes=9))
def test_layers_are_the_w_i_of_the_notes(g: GameGraph) -> None:
    r = attractor(g)
    # W_0 = G; W_{i+1} = W_i + player-0 nodes with a move into W_i + player-1 nodes with moves,
    # all into W_i. Computed naively, O(n m) per the notes.
    layer = [0 if g.target[x] else -1 for x in range(g.n)]
    for i in range(g.n):
        w = [x for x in range(g.n) if 0 <= layer[x] <= i]
        for x in range(g.n):
            succ = g.successors(x).tolist()
            if layer[x] >= 0 or not succ:
                continue
            into = [y in w for y in succ]
            if (g.owner[x] == 0 and any(into)) or (g.owner[x] == 1 and all(into)):
                layer[x] = i + 1
    assert r.layer.tolist() == layer
    # Strategies: player 0 in W (off G) lowers the layer by one; player 1 outside W stays out.
    mv = r.move.tolist()
    for x in range(g.n):
        if g.target[x] or not g.successors(x).size:
            continue
        if g.owner[x] == 0 and layer[x] > 0:
            assert layer[mv[x]] == layer[x] - 1
        elif g.owner[x] == 1 and layer[x] < 0:
            assert layer[mv[x]] < 0
    # Player 0 following the strategy from W reaches G within layer(x) plies whatever player 1
    # does when player 1 plays the first move (a sample opponent).
    first = [int(g.successors(y)[0]) if g.successors(y).size else -1 for y in range(g.n)]
    both = [-1 if g.target[y] else (mv[y] if g.owner[y] == 0 else first[y]) for y in range(g.n)]
    for x in range(g.n):
        if layer[x] > 0:
            end, plies = play(g, both, x)
            assert end >= 0 and g.target[end] and plies <= layer[x]
