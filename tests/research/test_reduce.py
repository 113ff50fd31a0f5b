"""The reductions of normal play's solution CNF (``verifier.research.reduce``) keep the number
of solutions: against every assignment tried at once with numpy (random graphs up to 12
positions), a SAT enumeration with blocking clauses, and hand-counted graphs; a set that misses
a cycle, or units from a wrong backbone, change the count (so the checks can fail)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.research.test_counting import every_solution
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.model import Case, GameGraph, Semantics
from verifier.research.backbone import Backbone, backbone
from verifier.research.counting import count_models, enumerate_models
from verifier.research.reduce import backbone_units, feedback_projection, feedback_vertex_set
from verifier.research.uniqueness import case_cnf

CASES = Path(__file__).resolve().parents[2] / "cases"


def reduced_count(case: Case, *, bb: Backbone | None = None) -> int:
    """The solutions of ``case`` counted over the reduced CNF (SAT enumeration)."""
    cnf = case_cnf(case)
    units = backbone_units(cnf, bb if bb is not None else backbone(cnf))
    found, complete = enumerate_models(
        cnf.clauses + units, feedback_projection(cnf, case.graph), 10_000
    )
    assert complete
    return len(found)


def two_cycles(k: int) -> Case:
    """``k`` two-cycles without exits: 3 labellings each."""
    succ = {f"a{i}": [f"b{i}"] for i in range(k)} | {f"b{i}": [f"a{i}"] for i in range(k)}
    return Case(GameGraph.from_successors(succ, semantics=Semantics.NORMAL), f"cycles{k}")


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 12),
    degree=st.sampled_from([0.8, 1.3, 2.0, 3.0]),
    seed=st.integers(0, 10**6),
)
def test_the_reduced_cnf_counts_every_solution(n: int, degree: float, seed: int) -> None:
    case = random_case(Semantics.NORMAL, nodes=n, degree=degree, seed=seed, values=(-1, 0, 1))
    cnf = case_cnf(case)
    fvs = feedback_vertex_set(case.graph, cnf.nodes)
    rest = set(cnf.nodes) - set(fvs)
    moves = [(x, int(y)) for x in rest for y in case.graph.successors(x).tolist() if y in rest]
    assert nx.is_directed_acyclic_graph(nx.DiGraph(moves))
    assert reduced_count(case) == len(every_solution(case))


def test_hand_counted_graphs() -> None:
    assert reduced_count(two_cycles(1)) == 3
    assert reduced_count(two_cycles(3)) == 27
    three = two_cycles(3)
    cnf = case_cnf(three)
    assert len(feedback_vertex_set(three.graph, cnf.nodes)) == 3  # one per cycle
    pytest.importorskip("pyganak", reason="the 'counting' extra (pyganak) is not installed")
    c = count_models(cnf.clauses, feedback_projection(cnf, three.graph))
    assert (c.method.value, c.count) == ("exact", 27)


def test_a_set_that_misses_a_cycle_or_a_wrong_backbone_changes_the_count() -> None:
    case = two_cycles(1)
    cnf = case_cnf(case)
    assert len(enumerate_models(cnf.clauses, (), 10)[0]) == 1  # no set: 1, not 3
    x = cnf.nodes[0]
    wrong = Backbone({x: (0, 2)}, None, True, 0, 0.0)  # "never drawn": loses a labelling
    assert reduced_count(case, bb=wrong) == 2


@pytest.mark.slow
def test_the_reduced_lgame_counts_4963() -> None:
    # the L-game with symmetry: 451 of 1,261 drawn positions cut every cycle; Ganak about 20 s
    pytest.importorskip("pyganak", reason="the 'counting' extra (pyganak) is not installed")
    case = load_any(CASES / "game-lgame-symmetric.json")
    cnf = case_cnf(case)
    units = backbone_units(cnf, backbone(cnf))
    projection = feedback_projection(cnf, case.graph)
    assert (len(units), len(projection)) == (1_031, 902)
    c = count_models(cnf.clauses + units, projection)
    assert (c.method.value, c.count) == ("exact", 4_963)
