"""SCCs and the condensation order, against networkx."""

from __future__ import annotations

import networkx as nx
import numpy as np
from engine_strategies import graphs
from hypothesis import given, settings

from verifier.engine import condensation
from verifier.model import GameGraph, Semantics


def test_hand_example() -> None:
    # {a, b} cycle -> {c} self-loop -> d; e isolated
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "c"], "c": ["c", "d"], "d": [], "e": []},
        semantics=Semantics.IMPARTIAL,
    )
    c = condensation(g)
    lab = dict(zip(g.names, c.label.tolist(), strict=True))
    assert c.count == 4
    assert lab["a"] == lab["b"] and len({lab["a"], lab["c"], lab["d"], lab["e"]}) == 4
    assert c.cyclic[lab["a"]] and c.cyclic[lab["c"]]
    assert not c.cyclic[lab["d"]] and not c.cyclic[lab["e"]]
    assert c.height[lab["d"]] == 0 and c.height[lab["c"]] == 1 and c.height[lab["a"]] == 2
    pos = {int(k): i for i, k in enumerate(c.order)}
    assert pos[lab["d"]] < pos[lab["c"]] < pos[lab["a"]]
    ptr, nodes = c.members()
    k = lab["a"]
    assert sorted(nodes[ptr[k] : ptr[k + 1]].tolist()) == [g.id_of("a"), g.id_of("b")]


@settings(max_examples=300, deadline=None)
@given(graphs(Semantics.IMPARTIAL, max_nodes=15))
def test_against_networkx(g: GameGraph) -> None:
    c = condensation(g)
    h = nx.DiGraph()
    h.add_nodes_from(range(g.n))
    h.add_edges_from(zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True))
    comps = {frozenset(s) for s in nx.strongly_connected_components(h)}
    mine: dict[int, set[int]] = {}
    for x, k in enumerate(c.label.tolist()):
        mine.setdefault(k, set()).add(x)
    assert {frozenset(s) for s in mine.values()} == comps
    assert c.count == len(comps)
    # order: every condensation edge goes from a later component to an earlier one
    pos = np.empty(c.count, dtype=np.int64)
    pos[c.order] = np.arange(c.count)
    assert sorted(c.order.tolist()) == list(range(c.count))
    for x, y in h.edges:
        kx, ky = c.label[x], c.label[y]
        if kx != ky:
            assert pos[ky] < pos[kx]
            assert c.height[kx] > c.height[ky]
    for k, members in mine.items():
        cyc = len(members) > 1 or any(h.has_edge(x, x) for x in members)
        assert bool(c.cyclic[k]) == cyc
