"""Valid example cases (every semantics, both encodings) and helpers shared by the io tests."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import numpy as np
from hypothesis import strategies as st

from verifier.model import MAX, MIN, NOBODY, Case, Expect, GameGraph, Semantics, SumSpec

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


# ---------------------------------------------------------------------- random valid cases
NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_-"
"""Names that survive every format (GraphML / GML included)."""


@st.composite
def random_cases(
    draw: st.DrawFn, semantics: Semantics | None = None, plain_names: bool = False
) -> Case:
    """A valid case of any semantics: cycles, self-loops, dead ends, isolated nodes."""
    sem = semantics or draw(st.sampled_from(list(Semantics)))
    n = draw(st.integers(1, 8))
    pairs = sorted(
        draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    )
    src = [s for s, _ in pairs]
    dst = [d for _, d in pairs]
    inner = [False] * n
    for s in src:
        inner[s] = True
    name_text = (
        st.text(alphabet=NAME_ALPHABET, min_size=1, max_size=6)
        if plain_names
        else st.text(min_size=1, max_size=6)
    )
    names: list[str] | int = draw(
        st.one_of(st.just(n), st.lists(name_text, min_size=n, max_size=n, unique=True))
    )
    owner = [NOBODY] * n
    value = [NAN] * n
    target = [False] * n
    numbers = st.one_of(
        st.integers(-(2**53), 2**53).map(float),
        st.floats(-1e6, 1e6, allow_nan=False),
    )
    if sem is Semantics.MINIMAX:
        for i in range(n):
            if inner[i]:
                owner[i] = draw(st.sampled_from([MAX, MIN]))
            else:
                value[i] = draw(numbers)
    elif sem is Semantics.NORMAL:
        for i in range(n):
            if not inner[i]:
                value[i] = draw(st.sampled_from([-1.0, 0.0, 1.0]))
    elif sem is Semantics.REACHABILITY:
        target = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        for i in range(n):
            choices = [0, 1] if inner[i] and not target[i] else [NOBODY, 0, 1]
            owner[i] = draw(st.sampled_from(choices))
    graph = GameGraph.from_edges(
        names, src, dst, semantics=sem, owner=owner, value=value, target=target
    )
    root = draw(st.none() | st.integers(0, n - 1))
    sums: tuple[SumSpec, ...] = ()
    if sem is Semantics.IMPARTIAL:
        sums = tuple(
            SumSpec(f"s{k}", tuple(p))
            for k, p in enumerate(
                draw(st.lists(st.lists(st.integers(0, n - 1), min_size=1, max_size=3), max_size=2))
            )
        )
    nodes = st.integers(0, n - 1)
    expect = None
    if draw(st.booleans()):
        kw: dict[str, Any] = {"unique": draw(st.none() | st.booleans())}
        if sem is Semantics.MINIMAX:
            kw["values"] = draw(st.dictionaries(nodes, numbers, max_size=3))
            kw["intervals"] = draw(st.dictionaries(nodes, st.just((-1.0, 2.5)), max_size=2))
            kw["root_value"] = draw(numbers) if root is not None else None
        elif sem is Semantics.NORMAL:
            kw["labels"] = draw(st.dictionaries(nodes, st.sampled_from(["won", "lost", "draw"])))
            kw["remoteness"] = draw(st.dictionaries(nodes, st.integers(-1, 9)))
            kw["root_value"] = "won" if root is not None else None
        elif sem is Semantics.REACHABILITY:
            kw["unique"] = None
            kw["winner"] = draw(st.dictionaries(nodes, st.integers(0, 1)))
            kw["remoteness"] = draw(st.dictionaries(nodes, st.integers(-1, 9)))
            kw["root_value"] = 1.0 if root is not None else None
        else:
            grundy = st.integers(0, 9) | st.sampled_from(["inf", "inf(0,2)"])
            kw["grundy"] = draw(st.dictionaries(nodes, grundy))
            kw["sums"] = {s.name: draw(grundy) for s in sums}
            kw["root_value"] = 3.0 if root is not None else None
        frozen: dict[str, Any] = {
            k: MappingProxyType(v) if isinstance(v, dict) else v for k, v in kw.items()
        }
        expect = Expect(**frozen)
    return Case(
        graph=graph,
        id=draw(st.text(alphabet=NAME_ALPHABET, min_size=1, max_size=8)),
        root=root,
        source=draw(st.none() | st.text(max_size=10)),
        description=draw(st.none() | st.text(max_size=10)),
        expect=expect,
        sums=sums,
    )
