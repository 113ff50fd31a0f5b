"""The structure of the solution set (``verifier.research.uniqueness``) against brute force:
every assignment of every node's possible values tried on small graphs of all four semantics."""

from __future__ import annotations

import itertools
from pathlib import Path

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.equations.system import OrderSystem
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.model import Case, GameGraph, Semantics
from verifier.model.mex import mex
from verifier.research.uniqueness import solution_set

CASES = Path(__file__).resolve().parents[2] / "cases"


def brute_force(case: Case) -> list[tuple[int, ...]]:
    """Every solution of the case's equations (value indices; Grundy values), by trying all."""
    g = case.graph
    if g.semantics is Semantics.IMPARTIAL:
        domains = [range(int(d) + 1) for d in g.out_degree]
        succ = [g.successors(x).tolist() for x in range(g.n)]
        return [
            a
            for a in itertools.product(*domains)
            if all(a[x] == mex(a[y] for y in succ[x]) for x in range(g.n))
        ]
    sys = OrderSystem.for_graph(g)
    return [
        a
        for a in itertools.product(range(sys.top + 1), repeat=g.n)
        if len(sys.violations(np.array(a, dtype=np.int64))) == 0
    ]


@st.composite
def small_cases(draw: st.DrawFn) -> Case:
    sem = draw(st.sampled_from(list(Semantics)))
    n = draw(st.integers(1, 6 if sem is not Semantics.IMPARTIAL else 7))
    return random_case(
        sem,
        nodes=n,
        degree=draw(st.sampled_from([0.8, 1.3, 2.0])),
        seed=draw(st.integers(0, 10**6)),
        values=(-1, 0, 1),
        acyclic=draw(st.booleans()) and draw(st.booleans()),
    )


def _index(case: Case, values: np.ndarray) -> np.ndarray:
    if case.semantics is Semantics.IMPARTIAL:
        return np.asarray(values, dtype=np.int64)
    sys = OrderSystem.for_graph(case.graph)
    idx, bad = sys.to_index(values)
    assert not bad.any()
    return idx


@settings(max_examples=80, deadline=None)
@given(case=small_cases())
def test_counts_bounds_and_free_nodes_equal_brute_force(case: Case) -> None:
    sols = brute_force(case)
    s = solution_set(case, certify=False, counter=False)
    assert s.count == len(sols), (s.how, len(sols))
    assert s.unique == (len(sols) == 1)
    arr = np.array(sols, dtype=np.int64).reshape(len(sols), case.graph.n)
    varies = (arr != arr[0]).any(axis=0) if len(sols) else np.zeros(case.graph.n, dtype=bool)
    assert s.free.tolist() == varies.tolist()
    for x, vals in s.attained.items():
        got = sorted(_index(case, np.array(vals, dtype=np.float64)).tolist())
        assert got == sorted(set(arr[:, x].tolist())), x
    if s.lo is not None and s.hi is not None and len(sols):
        assert _index(case, s.lo).tolist() == arr.min(axis=0).tolist()
        assert _index(case, s.hi).tolist() == arr.max(axis=0).tolist()
        for x in range(case.graph.n):  # every value between the bounds is attained
            assert set(arr[:, x].tolist()) == set(range(arr[:, x].min(), arr[:, x].max() + 1))
    if sols:  # the reference solution is one of them (a self-loop alone admits none)
        assert tuple(_index(case, s.reference).tolist()) in set(sols)


@settings(max_examples=60, deadline=None)
@given(case=small_cases())
def test_components_are_the_sccs_of_the_free_nodes(case: Case) -> None:
    s = solution_set(case, certify=False, counter=False)
    g = case.graph
    free = set(np.flatnonzero(s.free).tolist())
    nxg = nx.DiGraph()
    nxg.add_nodes_from(free)
    nxg.add_edges_from(
        (int(a), int(b))
        for a, b in zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True)
        if a in free and b in free
    )
    want = {frozenset(c) for c in nx.strongly_connected_components(nxg)}
    assert {frozenset(c.nodes) for c in s.components} == want
    for k, c in enumerate(s.components):
        assert all(j < k for j in c.depends_on)  # sinks first
        cyclic = len(c.nodes) > 1 or any(nxg.has_edge(x, x) for x in c.nodes)
        assert c.cyclic == cyclic


def test_kars_figure_one_by_hand() -> None:
    # Kars' Figure 1 (b < d): a -> b, a -> c, c -> a, c -> d; every value of [lfp, gfp] at a
    case = load_any(CASES / "kars-figure1-b-lt-d.json")
    s = solution_set(case)
    sols = brute_force(case)
    assert s.count == len(sols) and s.count > 1 and s.unique is False
    assert s.certified.startswith("confirmed")
    assert sum(s.kars_position.values()) == int(s.free.sum())


def test_a_self_loop_admits_every_grundy_value_up_to_its_degree() -> None:
    # x -> x, x -> y (y a dead end: 0): g(x) = mex{g(x), 0} has no solution with g(x) = 0
    # (0 is an option) nor 1 (itself an option): none at all
    g = GameGraph.from_successors({"x": ["x", "y"]}, semantics=Semantics.IMPARTIAL)
    s = solution_set(Case(g, "loop"))
    assert s.count == len(brute_force(Case(g, "loop"))) == 0


def _two_kars_figures(linked: bool) -> Case:
    """Two copies of Kars' Figure 1 (a = c anywhere in [-1, 2]: three solutions each, as the
    values are -1, 0 or 2); ``linked``: a Min node of the second may also move to the first's
    Max node, so the second's values depend on the first's."""
    from verifier.model import MAX, MIN

    succ = {"a": ["b", "c"], "c": ["d", "a"], "a2": ["b", "c2"], "c2": ["d", "a2"]}
    if linked:
        succ["c2"] = ["d", "a2", "a"]
    owner = {"a": MAX, "c": MIN, "a2": MAX, "c2": MIN}
    g = GameGraph.from_successors(
        succ, semantics=Semantics.MINIMAX, owner=owner, value={"b": -1, "d": 2}
    )
    return Case(g, "two-figures")


def test_independent_components_multiply_and_dependent_ones_are_bounded() -> None:
    case = _two_kars_figures(linked=False)
    whole = solution_set(case, certify=False, counter=False)
    assert whole.count == len(brute_force(case)) == 9 and "enumerated" in whole.how
    parts = solution_set(
        case, certify=False, counter=False, max_enumerated=2
    )  # too many to enumerate whole
    assert parts.count == 9 and "product" in parts.how
    assert [c.count for c in parts.components] == [3, 3]
    linked = _two_kars_figures(linked=True)
    exact = len(brute_force(linked))
    bounded = solution_set(linked, certify=False, counter=False, max_enumerated=2)
    assert bounded.count is None
    low, high = bounded.count_bounds
    assert low <= exact and (high is None or exact <= high)
    assert any(c.depends_on for c in bounded.components)
    assert solution_set(linked, certify=False, counter=False).count == exact


def test_cli_uniqueness_table_json_csv(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from verifier.cli import app

    case = str(CASES / "kars-figure1-b-lt-d.json")
    r = CliRunner().invoke(app, ["uniqueness", case])
    assert r.exit_code == 0, r.output
    assert "have 3 solutions" in r.output and "a: 0  range [-1, 2]" in r.output
    r = CliRunner().invoke(app, ["uniqueness", case, "--format", "json"])
    doc = json.loads(r.output)
    assert doc["solutions"] == 3 and doc["unique"] is False
    assert doc["intervals"] == {"a": [-1, 2], "c": [-1, 2]}
    assert doc["attained"] == {"a": [-1, 0, 2], "c": [-1, 0, 2]}
    r = CliRunner().invoke(app, ["uniqueness", case, "--format", "csv"])
    assert r.output.splitlines()[0] == "position,reference,range,values"
    assert 'a,0,"[-1, 2]",-1 0 2' in r.output
    r = CliRunner().invoke(app, ["uniqueness", str(CASES / "game-tictactoe.json")])
    assert "exactly one solution" in r.output  # 1,068 drawn candidates: one Z3 question
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = CliRunner().invoke(app, ["uniqueness", str(bad)])
    assert r.exit_code == 2


@settings(max_examples=80, deadline=None)
@given(case=small_cases())
def test_component_counts_and_bounds_hold_without_enumerating_the_whole(case: Case) -> None:
    # max_enumerated=0: no enumeration over all free nodes; monotone systems may still give an
    # exact count as a product of independent components; otherwise the bounds must hold
    exact = len(brute_force(case))
    s = solution_set(case, certify=False, counter=False, max_enumerated=0)
    low, high = s.count_bounds
    if s.count is not None:
        assert s.count == exact, s.how
    assert low <= exact and (high is None or exact <= high), (s.how, exact)
    full = solution_set(case, certify=False, counter=False)
    for c in s.components:  # component counts need no whole enumeration
        if c.cyclic and len(c.nodes) <= 6:
            assert c.count is None  # max_enumerated=0 also caps components
    del full


@settings(max_examples=60, deadline=None)
@given(case=small_cases())
def test_local_counts_are_the_component_solutions_given_the_nodes_below(case: Case) -> None:
    s = solution_set(case, certify=False, counter=False)
    if case.semantics is Semantics.IMPARTIAL or s.count in (0, None):
        return
    sols = brute_force(case)
    ref = tuple(_index(case, s.reference).tolist())
    g = case.graph
    for c in s.components:
        inside = set(c.nodes)
        below = {int(y) for x in c.nodes for y in g.successors(x)} - inside
        # every solution that agrees with the reference below the component, restricted to it
        local = {
            tuple(sol[x] for x in c.nodes) for sol in sols if all(sol[y] == ref[y] for y in below)
        }
        # solutions of the component's own equations given the nodes below: at least those
        # that extend to whole solutions (more if the nodes above cannot follow: never for
        # monotone systems)
        assert c.count is not None and c.count >= len(local)
        if case.semantics in (Semantics.MINIMAX, Semantics.REACHABILITY):
            assert c.count == len(local), (c.nodes, c.count, local)
