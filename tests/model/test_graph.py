"""The core model: CSR layout, predecessors, immutability, topology helpers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import CycleError, GameGraph, Semantics
from verifier.model import MAX, MIN, NOBODY, topology
from verifier.model import graph as graph_module
from verifier.model.graph import transpose
from verifier.model.topology import find_cycle, is_acyclic, reverse_topological_order, sccs


def figure1() -> GameGraph:
    return GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1, "d": 2},
    )


def test_csr_layout_and_names() -> None:
    g = figure1()
    assert list(g.names) == ["a", "c", "b", "d"]
    assert (g.n, g.m) == (4, 4)
    a, c, b, d = (g.id_of(x) for x in "acbd")
    assert sorted(g.successors(a).tolist()) == sorted([b, c])
    assert sorted(g.successors(c).tolist()) == sorted([d, a])
    assert g.predecessors(a).tolist() == [c]
    assert g.predecessors(b).tolist() == [a]
    assert g.out_degree.tolist() == [2, 2, 0, 0]
    assert g.in_degree.tolist() == [1, 1, 1, 1]
    assert g.is_terminal.tolist() == [False, False, True, True]
    assert g.owner.tolist() == [MAX, MIN, NOBODY, NOBODY]
    assert g.value_levels().tolist() == [-1.0, 0.0, 2.0]


def test_immutable() -> None:
    g = figure1()
    with pytest.raises(ValueError):
        g.succ_idx[0] = 3
    with pytest.raises(ValueError):
        g.value[2] = 5.0
    with pytest.raises(AttributeError):
        g.semantics = Semantics.NORMAL  # type: ignore[misc]


def test_duplicate_and_out_of_range_edges_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate edge"):
        GameGraph.from_edges(2, [0, 0], [1, 1], semantics=Semantics.IMPARTIAL)
    with pytest.raises(ValueError, match="out of range"):
        GameGraph.from_edges(2, [0], [2], semantics=Semantics.IMPARTIAL)


def test_successor_ids_are_stored_as_int32_when_they_fit() -> None:
    i64 = np.array([1, 2, 2], dtype=np.int64)
    ptr = np.array([0, 2, 3, 3], dtype=np.int64)
    none = np.full(3, NOBODY, dtype=np.int8)
    nan, no = np.full(3, np.nan), np.zeros(3, dtype=np.bool_)
    g = GameGraph(Semantics.NORMAL, ptr, i64, none, nan, no)
    assert g.succ_idx.dtype == np.int32 and g.succ_idx.tolist() == [1, 2, 2]
    assert not g.succ_idx.flags.writeable
    assert figure1().succ_idx.dtype == np.int32
    assert graph_module.index_dtype(2**31 - 2) is np.int32
    assert graph_module.index_dtype(2**31 - 1) is np.int64
    # an id out of range is refused before narrowing: 2^32 must not wrap around to 0
    for bad in (2**32, 2**32 + 1, -(2**32)):
        wrong = np.array([1, bad, 2], dtype=np.int64)
        with pytest.raises(ValueError, match="out of range"):
            GameGraph(Semantics.NORMAL, ptr, wrong, none, nan, no)


def test_unnamed_graph_gets_range_names() -> None:
    g = GameGraph.from_edges(3, [0, 1], [1, 2], semantics=Semantics.IMPARTIAL)
    assert list(g.names) == ["0", "1", "2"] and g.id_of("2") == 2


def test_cycle_found_and_named() -> None:
    g = figure1()
    cyc = find_cycle(g)
    assert sorted(g.name(i) for i in cyc) == ["a", "c"]
    with pytest.raises(CycleError, match=r"a -> c -> a|c -> a -> c"):
        reverse_topological_order(g)
    assert not is_acyclic(g)


def test_self_loop_is_a_cycle() -> None:
    g = GameGraph.from_successors({"p": ["p", "q"]}, semantics=Semantics.IMPARTIAL)
    assert find_cycle(g) == [g.id_of("p")]
    assert not is_acyclic(g)


@st.composite
def random_graph(draw: st.DrawFn) -> GameGraph:
    n = draw(st.integers(1, 12))
    edges = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))
    src = [e[0] for e in edges]
    dst = [e[1] for e in edges]
    return GameGraph.from_edges(n, src, dst, semantics=Semantics.IMPARTIAL)


@settings(max_examples=300, deadline=None)
@given(random_graph())
def test_topological_order_or_cycle(g: GameGraph) -> None:
    pred_sets = {y: set(g.predecessors(y).tolist()) for y in range(g.n)}
    assert all(x in pred_sets[int(y)] for x in range(g.n) for y in g.successors(x))
    try:
        order = reverse_topological_order(g)
    except CycleError:
        cyc = find_cycle(g)
        assert cyc, "CycleError raised but no cycle found"
        for i, x in enumerate(cyc):  # consecutive nodes are joined by moves
            assert cyc[(i + 1) % len(cyc)] in g.successors(x).tolist()
        assert not is_acyclic(g)
        return
    pos = np.empty(g.n, dtype=np.int64)
    pos[order] = np.arange(g.n)
    assert sorted(order.tolist()) == list(range(g.n))
    for x in range(g.n):
        for y in g.successors(x).tolist():
            assert pos[y] < pos[x]
    assert is_acyclic(g)
    assert sccs(g)[0] == g.n


@settings(max_examples=200, deadline=None)
@given(random_graph())
def test_small_and_large_graph_paths_agree(g: GameGraph) -> None:
    """Small graphs skip scipy (start-up): the numpy transpose gives scipy's arrays, and Kahn's
    count gives the SCC answer of ``is_acyclic``."""
    small = transpose(g.n, g.succ_ptr, g.succ_idx)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(graph_module, "SCIPY_TRANSPOSE_MIN_EDGES", 0)
        large = transpose(g.n, g.succ_ptr, g.succ_idx)
        mp.setattr(topology, "SCIPY_ACYCLIC_MIN_SIZE", 0)
        acyclic_by_sccs = is_acyclic(g)
    assert small[0].tolist() == large[0].tolist() and small[1].tolist() == large[1].tolist()
    assert is_acyclic(g) is acyclic_by_sccs


@st.composite
def wide_graph(draw: st.DrawFn) -> GameGraph:
    """Up to 60 nodes with a few long cycles, so components nest and the stack is deep."""
    n = draw(st.integers(1, 60))
    edges = set(draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=90)))
    for _ in range(draw(st.integers(0, 3)) if n > 1 else 0):
        ring = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=n, unique=True))
        edges |= set(zip(ring, ring[1:] + ring[:1], strict=True))
    src, dst = [e[0] for e in edges], [e[1] for e in edges]
    return GameGraph.from_edges(n, src, dst, semantics=Semantics.IMPARTIAL)


@settings(max_examples=300, deadline=None)
@given(st.one_of(random_graph(), wide_graph()))
def test_small_graph_sccs_are_scipys_labels(g: GameGraph) -> None:
    """Small graphs are decomposed in Python (no scipy import) by scipy's own algorithm: the
    same components with the same numbers, which order the uniqueness checks' work."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    a = csr_matrix((np.ones(g.m, dtype=np.int8), g.succ_idx, g.succ_ptr), shape=(g.n, g.n))
    k, labels = connected_components(a, directed=True, connection="strong")
    assert g.n + g.m < topology.SCIPY_ACYCLIC_MIN_SIZE  # the Python path
    got_k, got = sccs(g)
    assert got_k == k and got.tolist() == labels.tolist()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(topology, "SCIPY_ACYCLIC_MIN_SIZE", 0)  # the scipy path
        assert sccs(g)[1].tolist() == labels.tolist()


def test_small_graph_sccs_by_hand() -> None:
    """a <-> b, b -> c, c -> c, d -> a: {a, b} and {c} are components (c by its self-loop),
    d one alone; scipy numbers sinks first in the order their roots finish."""
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "c"], "c": ["c"], "d": ["a"]}, semantics=Semantics.IMPARTIAL
    )
    k, label = sccs(g)
    a, b, c, d = (int(label[g.id_of(x)]) for x in "abcd")
    assert k == 3 and a == b and len({a, c, d}) == 3
    assert (c, a, d) == (0, 1, 2)
