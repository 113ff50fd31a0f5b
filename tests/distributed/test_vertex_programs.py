"""The vertex programs and kernels of ``verifier.distributed`` on the in-process engine."""

from __future__ import annotations

import numpy as np
import pytest
from dist_graphs import (
    SEMANTICS,
    SMALL_CASES,
    assert_same_answer,
    figure_1,
    load_corpus_case,
    random_graph,
    reference,
    small_graphs,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.distributed import LocalEngine, partition_graph, solve_distributed
from verifier.distributed.kernels import (
    distinct,
    emit,
    group_count,
    ranges_index,
    segment_reduce,
)
from verifier.model import Case, GameGraph, Semantics


def run_local(g: GameGraph, parts: int) -> tuple[np.ndarray, np.ndarray | None, int]:
    r = LocalEngine().run(partition_graph(g, parts))
    return r.values, r.remoteness, r.supersteps


# ---------------------------------------------------------------------- kernels
def test_ranges_index_concatenates_rows_in_order() -> None:
    ptr = np.array([0, 2, 2, 5, 6])
    assert ranges_index(ptr, np.array([2, 0, 1])).tolist() == [2, 3, 4, 0, 1]
    assert ranges_index(ptr, np.array([1])).tolist() == []


def test_distinct_and_group_count() -> None:
    rows = np.array([5, 1, 5, 3, 1, 5])
    assert distinct(rows).tolist() == [1, 3, 5]
    keys, counts = group_count(rows)
    assert keys.tolist() == [1, 3, 5] and counts.tolist() == [2, 1, 3]
    assert distinct(np.array([], dtype=np.int64)).tolist() == []
    assert group_count(np.array([], dtype=np.int64))[1].tolist() == []


def test_segment_reduce_max_and_min() -> None:
    vals = np.array([3.0, 1.0, -4.0, 1.0, 5.0, 9.0])
    got = segment_reduce(vals, np.array([2, 3, 1]), np.array([True, False, False]))
    assert got.tolist() == [3.0, -4.0, 9.0]


def test_partitions_cover_the_graph_and_route_messages() -> None:
    g = figure_1(-1, 2)  # edges: 0:a->c(1) 1:a->b(2) 2:c->a(0) 3:c->d(3)
    parts = partition_graph(g, 3)
    assert [(p.lo, p.hi) for p in parts] == [(0, 1), (1, 3), (3, 4)]
    assert sum(p.edge_hi - p.edge_lo for p in parts) == g.m
    # node d (id 3) changed: one message to the move c -> d, owned by partition 1 (node c)
    out = emit(parts[2], np.array([0]), np.array([2.0]), 3)
    assert [b.edge.tolist() for b in out] == [[], [3], []]
    assert out[1].value.tolist() == [2.0]


# ---------------------------------------------------------------------- hand-made graphs
@pytest.mark.parametrize(
    ("b", "d", "a_val", "c_val"),
    [(-1, 2, 0, 0), (1, 2, 1, 1), (2, -1, 2, -1), (-2, -1, -1, -1)],
)
@pytest.mark.parametrize("parts", [1, 2, 4])
def test_kars_figure_1(b: float, d: float, a_val: float, c_val: float, parts: int) -> None:
    # a = max(b, min(d, 0)), c = min(d, max(b, 0)) (Kars Example 3.2, worked by hand)
    values, _, _ = run_local(figure_1(b, d), parts)
    assert values.tolist() == [a_val, c_val, b, d]


def test_kars_figure_1_supersteps_follow_def_4_1() -> None:
    # b = 1, d = 2: s_1 = (0, 0, 1, 2), s_2 = (1, 0, ..), s_3 = (1, 1, ..) = s_4; then the
    # remoteness phase on the score-keeping moves a -> b, a -> c, c -> a: the leaves b, d (layer
    # 0), a (Max, ahead: its first, b), c (Min, behind: its only score-keeping move, a)
    r = LocalEngine().run(partition_graph(figure_1(1, 2), 2))
    assert r.changed == (2, 1, 1, 0, 2, 1, 1, 0)
    assert r.remoteness is not None and r.remoteness.tolist() == [1, 2, 0, 0]


def test_retrograde_chain_and_cycle() -> None:
    # a -> b -> c (c terminal, lost): b won in 1, a lost in 2; x <-> y cycle stays unknown;
    # y also -> a: y won in 3 (a is lost), x -> y only: x lost in 4
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["c"], "c": [], "x": ["y"], "y": ["x", "a"]}, semantics=Semantics.NORMAL
    )
    values, rem, _ = run_local(g, 2)
    assert values.tolist() == [-1, 1, -1, -1, 1]
    assert rem is not None and rem.tolist() == [2, 1, 0, 4, 3]


def test_retrograde_draw_terminal_and_pure_cycle() -> None:
    g = GameGraph.from_successors(
        {"p": ["q"], "q": ["p"], "r": ["s"], "s": []},
        semantics=Semantics.NORMAL,
        value={"s": 0.0},
    )
    values, rem, _ = run_local(g, 3)
    assert values.tolist() == [0, 0, 0, 0]
    assert rem is not None and rem.tolist() == [-1, -1, -1, -1]


def test_attractor_layers() -> None:
    # a (player 0) -> b, c; b (player 1) -> a; c target; d (player 1) -> c, e; e dead end
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": ["a"], "c": [], "d": ["c", "e"], "e": []},
        semantics=Semantics.REACHABILITY,
        owner={"a": 0, "b": 1, "d": 1},
        target=["c"],
    )
    values, rem, _ = run_local(g, 2)
    assert values.tolist() == [1, 1, 1, 0, 0]
    assert rem is not None and rem.tolist() == [1, 2, 0, -1, -1]


def test_bad_owner_is_reported_by_name() -> None:
    g = GameGraph.from_successors(
        {"a": ["b"]}, semantics=Semantics.MINIMAX, value={"b": 1.0}
    )  # a has a move but no owner
    with pytest.raises(ValueError, match="'a'"):
        run_local(g, 1)


# ---------------------------------------------------------------------- against the solvers
@pytest.mark.parametrize("sem", SEMANTICS)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), parts=st.integers(1, 4))
def test_random_small_graphs_match_reference(
    sem: Semantics, data: st.DataObject, parts: int
) -> None:
    g = data.draw(small_graphs(sem))
    values, rem, _ = run_local(g, parts)
    want_values, want_rem = reference(g)
    assert values.tolist() == want_values.tolist()
    assert rem is not None and rem.tolist() == want_rem.tolist()


@pytest.mark.parametrize("sem", SEMANTICS)
def test_random_medium_graphs_match_reference(sem: Semantics) -> None:
    g = random_graph(sem, 3000, seed=7)
    values, rem, _ = run_local(g, 5)
    want_values, want_rem = reference(g)
    assert np.array_equal(values, want_values)
    assert rem is not None and np.array_equal(rem, want_rem)


def test_local_engine_through_solve_distributed() -> None:
    r = solve_distributed(figure_1(-1, 2), engine=LocalEngine(), partitions=2)
    assert r.values.tolist() == [0, 0, -1, 2]
    assert r.summary["won"] == 1 and r.summary["lost"] == 1 and r.summary["drawn"] == 2


@pytest.mark.parametrize("stem", SMALL_CASES)
def test_solution_equals_the_pipelines(stem: str) -> None:
    case = load_corpus_case(stem)
    assert_same_answer(solve_distributed(case, engine=LocalEngine(), partitions=2), case)


@pytest.mark.parametrize("sem", SEMANTICS)
def test_solution_equals_the_pipelines_on_a_random_graph(sem: Semantics) -> None:
    case = Case(graph=random_graph(sem, 300, seed=5), id="random", root=7)
    assert_same_answer(solve_distributed(case, engine=LocalEngine(), partitions=3), case)


def test_remoteness_column_is_masked_where_the_raw_field_says_none() -> None:
    r = solve_distributed(figure_1(-1, 2), engine=LocalEngine(), partitions=2)
    assert r.remoteness is not None and r.solution is not None
    rem = r.solution.columns["remoteness"]
    assert np.array_equal(rem.given, r.remoteness >= 0)
    assert rem.at(0) is None and rem.at(2) == 0  # a is a draw: no remoteness
