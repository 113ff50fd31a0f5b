"""Valid example cases (every semantics, both encodings) and helpers shared by the io tests."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from verifier.model import Case, GameGraph

NAN = float("nan")

MINIMAX_READABLE: dict[str, Any] = {
    "semantics": "minimax",
    "id": "kars-figure-1-b-lt-d",
    "source": "Kars 1990, Example 3.2 / Figure 1, with b = -1, d = 2",
    "description": "a cycle through a Max and a Min node",
    "root": "a",
    "nodes": {
        "a": {"owner": "max", "moves": ["c", "b"]},
        "b": {"value": -1},
        "c": {"owner": "min", "moves": ["d", "a"]},
        "d": {"value": 2.5},
        "e": {"value": "win"},
    },
    "expect": {
        "values": {"a": 0, "b": -1, "c": 0, "d": 2.5},
        "intervals": {"a": [-1, 0]},
        "root_value": 0,
        "unique": False,
    },
}

MINIMAX_COMPACT: dict[str, Any] = {
    "semantics": "minimax",
    "encoding": "compact",
    "nodes": 5,
    "names": ["a", "b", "c", "d", "e"],
    "edges": {"src": [0, 2, 0, 2], "dst": [2, 3, 1, 0]},
    "owner": [0, -1, 1, -1, -1],
    "value": [None, -1, None, 2.5, 1],
    "root": 0,
    "expect": {
        "values": {"0": 0, "1": -1, "2": 0, "3": 2.5},
        "intervals": {"0": [-1, 0]},
        "root_value": 0,
        "unique": False,
    },
}

NORMAL_READABLE: dict[str, Any] = {
    "semantics": "normal",
    "nodes": {
        "p": {"moves": ["q", "r"]},
        "q": {"moves": ["p"]},
        "r": {},
        "s": {"label": "won"},
        "t": {"label": "draw"},
        "u": {"label": "lost"},
    },
    "expect": {
        "labels": {"p": "won", "q": "lost", "r": "lost", "s": "won", "t": "unknown"},
        "remoteness": {"p": 1, "r": 0},
        "unique": True,
    },
}

NORMAL_COMPACT: dict[str, Any] = {
    "semantics": "normal",
    "encoding": "compact",
    "nodes": 6,
    "edges": {"src": [0, 0, 1], "dst": [1, 2, 0]},
    "value": [None, None, None, 1, 0, -1],
    "expect": {"labels": {"0": "won", "2": "lost"}, "remoteness": {"0": 1}},
}

REACH_READABLE: dict[str, Any] = {
    "semantics": "reachability",
    "root": "x",
    "targets": ["g"],
    "nodes": {
        "x": {"owner": 0, "moves": ["y", "g"]},
        "y": {"owner": 1, "moves": ["x", "z"]},
        "z": {},
        "g": {"moves": ["g"]},
        "w": {"owner": 1},
    },
    "expect": {"winner": {"x": 0, "y": 1, "z": 1, "g": 0}, "root_value": 0},
}

REACH_COMPACT: dict[str, Any] = {
    "semantics": "reachability",
    "encoding": "compact",
    "nodes": 5,
    "names": ["x", "y", "z", "g", "w"],
    "edges": {"src": [0, 0, 1, 1, 3], "dst": [1, 3, 0, 2, 3]},
    "owner": [0, 1, -1, -1, 1],
    "targets": [3],
    "root": 0,
    "expect": {"winner": {"0": 0, "1": 1, "2": 1, "3": 0}, "root_value": 0},
}

IMPARTIAL_READABLE: dict[str, Any] = {
    "semantics": "impartial",
    "nodes": {
        "h2": {"moves": ["h1", "h0"]},
        "h1": {"moves": ["h0"]},
        "h0": {},
        "loop": {"moves": ["loop"]},
    },
    "sums": [{"name": "two-heaps", "positions": ["h2", "h1"]}],
    "expect": {
        "grundy": {"h2": 2, "h1": 1, "h0": 0, "loop": "inf"},
        "sums": {"two-heaps": 3},
    },
}

IMPARTIAL_COMPACT: dict[str, Any] = {
    "semantics": "impartial",
    "encoding": "compact",
    "nodes": 4,
    "edges": {"src": [0, 0, 1, 3], "dst": [1, 2, 2, 3]},
    "sums": [{"name": "two-heaps", "positions": [0, 1]}],
    "root": 0,
    "expect": {"grundy": {"0": 2, "3": "inf(0)"}, "sums": {"two-heaps": 3}, "root_value": 2},
}

VALID: dict[str, dict[str, Any]] = {
    "minimax-readable": MINIMAX_READABLE,
    "minimax-compact": MINIMAX_COMPACT,
    "normal-readable": NORMAL_READABLE,
    "normal-compact": NORMAL_COMPACT,
    "reachability-readable": REACH_READABLE,
    "reachability-compact": REACH_COMPACT,
    "impartial-readable": IMPARTIAL_READABLE,
    "impartial-compact": IMPARTIAL_COMPACT,
}


def text(doc: Any) -> str:
    return json.dumps(doc)


def assert_same_graph(g: GameGraph, h: GameGraph) -> None:
    assert g.semantics == h.semantics
    assert list(g.names) == list(h.names)
    np.testing.assert_array_equal(g.succ_ptr, h.succ_ptr)
    np.testing.assert_array_equal(g.succ_idx, h.succ_idx)
    np.testing.assert_array_equal(g.owner, h.owner)
    np.testing.assert_array_equal(g.value, h.value)  # NaN == NaN here
    np.testing.assert_array_equal(g.target, h.target)


def assert_same_case(a: Case, b: Case, *, keep_expect: bool = True) -> None:
    assert_same_graph(a.graph, b.graph)
    assert (a.id, a.root, a.source, a.description, a.sums) == (
        b.id,
        b.root,
        b.source,
        b.description,
        b.sums,
    )
    if keep_expect:
        assert a.expect == b.expect


def edges(g: GameGraph) -> set[tuple[str, str]]:
    return {
        (g.name(int(s)), g.name(int(d)))
        for s, d in zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True)
    }
