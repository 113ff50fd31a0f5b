"""The plain-Python certificate checker: hand-made certificates, corruptions, random graphs."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings

sys.path.insert(0, str(Path(__file__).parent / "smt"))

from smt_reference import (
    attractor_ref,
    graphs,
    kars_iteration,
    minimax_moves,
    retrograde,
)

from verifier import certificates as cert
from verifier.model import MAX, MIN, GameGraph, Semantics


def _chain() -> GameGraph:
    # a -> b -> c (terminal, lost for the mover); d <-> e a cycle; f -> d, c
    return GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": [], "d": ["e"], "e": ["d"], "f": ["d", "c"]},
        semantics=Semantics.NORMAL,
    )


def test_won_lost_by_hand() -> None:
    g = _chain()
    labels = [-1, 1, -1, 0, 0, 1]
    ranks = [2, 1, 0, -1, -1, 1]
    assert cert.check_won_lost(g, labels, ranks) is None
    bad = cert.check_won_lost(g, [-1, 1, -1, 1, -1, 1], [2, 1, 0, 2, 1, 1])
    assert bad is not None and bad.node in {"d", "e"}  # circular: d won because e lost ...
    v = cert.check_won_lost(g, labels, [2, 1, 0, -1, -1, 3])
    assert v is not None and v.node == "f" and "rank" in v.reason
    v = cert.check_won_lost(g, [-1, 1, -1, 0, 0, 0], [2, 1, 0, -1, -1, -1])
    assert v is not None and v.node == "f" and "not maximal" in v.reason


def test_strategy_normal_by_hand() -> None:
    g = _chain()
    labels, ranks = [-1, 1, -1, 0, 0, 1], [2, 1, 0, -1, -1, 1]
    c, d, e = g.id_of("c"), g.id_of("d"), g.id_of("e")
    move = [g.id_of("b"), c, -1, e, d, c]
    assert cert.check_strategy_normal(g, labels, ranks, move) is None
    move[5] = d  # f moves into the draw instead of winning
    v = cert.check_strategy_normal(g, labels, ranks, move)
    assert v is not None and v.node == "f"


def test_attractor_and_region_strategy_by_hand() -> None:
    g = GameGraph.from_successors(
        {"x": ["y", "t"], "y": ["y", "z"], "z": [], "t": []},
        semantics=Semantics.REACHABILITY,
        owner={"x": 0, "y": 1, "z": 0, "t": 0},
        target=["t"],
    )
    region, layers = [1, 0, 0, 1], [1, -1, -1, 0]
    assert cert.check_attractor(g, region, layers) is None
    v = cert.check_attractor(g, [1, 1, 0, 1], [1, 2, -1, 0])
    assert v is not None and v.node == "y"  # y can stay outside (self-loop)
    move = [g.id_of("t"), g.id_of("y"), -1, -1]
    assert cert.check_strategy_region(g, region, layers, move) is None
    move[0] = g.id_of("y")
    v = cert.check_strategy_region(g, region, layers, move)
    assert v is not None and v.node == "x"


def test_minimax_strategy_by_hand() -> None:
    # p (Max) -> p, w(+1): Max must take the win, looping keeps the score but never wins
    g = GameGraph.from_successors(
        {"p": ["p", "w"]}, semantics=Semantics.MINIMAX, owner={"p": MAX}, value={"w": 1}
    )
    assert cert.check_strategy_minimax(g, [1.0, 1.0], [1, -1]) is None
    v = cert.check_strategy_minimax(g, [1.0, 1.0], [0, -1])
    assert v is not None and v.node == "p" and "force" in v.reason
    # a Min draw: m (Min) -> m, w: Min loops to keep the value <= 0
    g2 = GameGraph.from_successors(
        {"m": ["m", "w"]}, semantics=Semantics.MINIMAX, owner={"m": MIN}, value={"w": 1}
    )
    assert cert.check_strategy_minimax(g2, [0.0, 1.0], [0, -1]) is None
    v = cert.check_strategy_minimax(g2, [0.0, 1.0], [1, -1])
    assert v is not None and "rise above 0" in v.reason


@settings(max_examples=80, deadline=None)
@given(graphs(Semantics.NORMAL))
def test_retrograde_certificates_hold(g: GameGraph) -> None:
    lab, rem, move = retrograde(g)
    assert cert.check_won_lost(g, lab, rem) is None
    assert cert.check_strategy_normal(g, lab, rem, move) is None
    for x in range(g.n):  # any single label change breaks the certificate
        for v in (-1, 0, 1):
            if v != lab[x]:
                bad = list(lab)
                bad[x] = v
                assert cert.check_won_lost(g, bad, None) is not None


@settings(max_examples=80, deadline=None)
@given(graphs(Semantics.REACHABILITY))
def test_attractor_certificates_hold(g: GameGraph) -> None:
    w, layer, move = attractor_ref(g)
    assert cert.check_attractor(g, w, layer) is None
    assert cert.check_strategy_region(g, w, layer, move) is None
    for x in range(g.n):
        bad = list(w)
        bad[x] = 1 - bad[x]
        assert cert.check_attractor(g, bad, layer) is not None


def test_without_ranks_a_circular_region_passes() -> None:
    """Why ranks: a player-0 self-loop 'reaches' the target by circular reasoning."""
    g = GameGraph.from_successors(
        {"x": ["x"]}, semantics=Semantics.REACHABILITY, owner={"x": 0}, target=[]
    )
    assert cert.check_attractor(g, [1], None) is None  # closed, but not derivable
    assert cert.check_attractor(g, [1], [1]) is not None  # layers expose it


@settings(max_examples=80, deadline=None)
@given(graphs(Semantics.MINIMAX))
def test_minimax_strategy_certificates_hold(g: GameGraph) -> None:
    s = kars_iteration(g)
    assert cert.check_strategy_minimax(g, s, minimax_moves(g, s)) is None


def test_checker_needs_no_z3() -> None:
    import ast

    tree = ast.parse(Path(cert.__file__).read_text())
    imported = {
        n.module if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert not any(m and (m.startswith("z3") or "smt" in m) for m in imported)
