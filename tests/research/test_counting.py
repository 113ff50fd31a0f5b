"""Exact solution counts (Ganak through ``verifier.research.counting``) and the backbone
(``verifier.research.backbone``) against second methods: every assignment tried at once with
numpy (random graphs up to 12 positions, all four semantics), a SAT enumeration with blocking
clauses (up to 10^4 solutions), the product of the components' counts against the count of the
whole formula, and graphs counted by hand."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verifier.equations.system import AND, CONST, OR, OrderSystem
from verifier.games.ladder import ladder
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.model import Case, GameGraph, Semantics
from verifier.research import counting
from verifier.research.counting import Method, count_models, enumerate_models
from verifier.research.uniqueness import case_cnf, solution_set

pytest.importorskip("pyganak", reason="the 'counting' extra (pyganak) is not installed")

CASES = Path(__file__).resolve().parents[2] / "cases"
MAX_ROWS = 2_000_000
"""Brute force only where every assignment fits in this many rows."""


def every_solution(case: Case) -> np.ndarray:
    """Every solution (rows of value indices; Grundy values): all assignments at once, each
    position's equation evaluated on whole columns."""
    g = case.graph
    succ = [g.successors(x).tolist() for x in range(g.n)]
    if g.semantics is Semantics.IMPARTIAL:
        sizes = [int(d) + 1 for d in g.out_degree]
    else:
        sys = OrderSystem.for_graph(g)
        sizes = [sys.top + 1] * g.n
    rows = np.indices(sizes, dtype=np.int16).reshape(g.n, -1).T
    ok = np.ones(len(rows), dtype=np.bool_)
    for x in range(g.n):
        cols = rows[:, succ[x]]
        if g.semantics is Semantics.IMPARTIAL:
            want = np.full(len(rows), len(succ[x]), dtype=np.int16)
            for k in range(len(succ[x]), -1, -1):  # the least value no option has
                want = np.where((cols == k).any(axis=1), want, k)
        elif sys.kind[x] == CONST:
            want = np.full(len(rows), sys.const[x], dtype=np.int16)
        elif not succ[x]:
            want = np.full(len(rows), sys.top if sys.negamax else 0, dtype=np.int16)
        elif sys.negamax:
            want = sys.top - cols.min(axis=1)
        else:
            assert sys.kind[x] in (OR, AND)
            want = cols.max(axis=1) if sys.kind[x] == OR else cols.min(axis=1)
        ok &= rows[:, x] == want
    return rows[ok]


@st.composite
def cases(draw: st.DrawFn, nodes: tuple[int, int] = (1, 12)) -> Case:
    sem = draw(st.sampled_from(list(Semantics)))
    wide = sem is Semantics.MINIMAX and draw(st.booleans())
    small = wide and nodes[1] <= 12  # brute force: 5^8 assignments at most
    n = draw(st.integers(nodes[0], min(nodes[1], 8) if small else nodes[1]))
    return random_case(
        sem,
        nodes=n,
        degree=draw(st.sampled_from([0.8, 1.3, 2.0])),
        seed=draw(st.integers(0, 10**6)),
        values=(-2, -1, 0, 1, 2) if wide else (-1, 0, 1),
        acyclic=draw(st.booleans()) and draw(st.booleans()),
    )


def _size(case: Case) -> int:
    g = case.graph
    if g.semantics is Semantics.IMPARTIAL:
        return math.prod(int(d) + 1 for d in g.out_degree)
    return int((OrderSystem.for_graph(g).top + 1) ** g.n)


def test_the_vectorised_brute_force_agrees_with_trying_one_assignment_at_a_time() -> None:
    from tests.research.test_uniqueness_structure import brute_force

    for seed in range(30):
        sem = list(Semantics)[seed % 4]
        case = random_case(sem, nodes=5, degree=1.6, seed=seed, values=(-1, 0, 1))
        assert sorted(map(tuple, every_solution(case).tolist())) == sorted(brute_force(case))


@settings(max_examples=60, deadline=None)
@given(case=cases())
def test_exact_counts_and_backbone_equal_brute_force(case: Case) -> None:
    assume(_size(case) <= MAX_ROWS)
    sols = every_solution(case)
    s = solution_set(case, certify=False, counter=True)
    assert s.method == "exact", s.how
    assert s.count == len(sols), s.how
    varies = (sols != sols[0]).any(axis=0) if len(sols) else np.zeros(case.graph.n, dtype=bool)
    assert s.free.tolist() == varies.tolist()
    index = _to_index(case)
    for x in np.flatnonzero(varies).tolist():
        assert sorted(index(np.array(s.attained[x]))) == sorted(set(sols[:, x].tolist())), x


def _to_index(case: Case):  # type: ignore[no-untyped-def]
    """The view's values (as in ``attained``) back to value indices (Grundy values)."""
    if case.semantics is Semantics.IMPARTIAL:
        return lambda v: v.astype(np.int64).tolist()
    sys = OrderSystem.for_graph(case.graph)
    if sys.negamax:
        return lambda v: (v.astype(np.int64) + 1).tolist()
    return lambda v: sys.to_index(v.astype(np.float64))[0].tolist()


@settings(max_examples=25, deadline=None)
@given(case=cases(nodes=(12, 60)))
def test_counts_equal_a_sat_enumeration_up_to_ten_thousand(case: Case) -> None:
    cnf = case_cnf(case)
    found, complete = enumerate_models(cnf.clauses, cnf.projection, 10_000)
    c = count_models(cnf.clauses, cnf.projection)
    assert c.method is Method.EXACT
    if complete:
        assert c.count == len(found)
    else:
        assert c.count is not None and c.count > 10_000
    decoded = {tuple(sorted(cnf.decode(m).items())) for m in found}
    assert len(decoded) == len(found)  # one model per solution over the projection


@settings(max_examples=25, deadline=None)
@given(case=cases(nodes=(6, 40)))
def test_the_product_of_the_components_is_the_whole_count(case: Case) -> None:
    cnf = case_cnf(case)
    parts = count_models(cnf.clauses, cnf.projection)
    whole = count_models(cnf.clauses, cnf.projection, whole=True)
    assert parts.count == whole.count and whole.components == 1


def test_a_two_cycle_without_exits_has_three_labellings() -> None:
    # a <-> b, nothing else: both drawn, or a won (b lost), or a lost (b won)
    g = GameGraph.from_successors({"a": ["b"], "b": ["a"]}, semantics=Semantics.NORMAL)
    s = solution_set(Case(g, "two"), certify=False, counter=True)
    assert (s.count, s.method) == (3, "exact")
    assert s.attained == {0: (-1, 0, 1), 1: (-1, 0, 1)}


def test_independent_cycles_multiply() -> None:
    # three separate 2-cycles: 3 * 3 * 3, counted as three components
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"], "e": ["f"], "f": ["e"]},
        semantics=Semantics.NORMAL,
    )
    cnf = case_cnf(Case(g, "three"))
    c = count_models(cnf.clauses, cnf.projection)
    assert (c.count, c.components) == (27, 3)


def test_two_independent_kars_figures_are_two_components_of_three() -> None:
    from tests.research.test_uniqueness_structure import _two_kars_figures

    cnf = case_cnf(_two_kars_figures(linked=False))
    c = count_models(cnf.clauses, cnf.projection)
    assert (c.count, c.components) == (9, 2)


def test_kars_ladder_and_figure_one_by_hand() -> None:
    # Kars' Figure 1 (b < d): a and c together -1, 0 or 2; the ladder L_10: 11 (the values of
    # its free cycle range over the leaves' values between)
    fig = solution_set(load_any(CASES / "kars-figure1-b-lt-d.json"), counter=True)
    assert (fig.count, fig.method) == (3, "exact")
    lad = solution_set(ladder(10), certify=False, counter=True)
    assert (lad.count, lad.method) == (11, "exact")
    cnf = case_cnf(ladder(10))
    assert len(enumerate_models(cnf.clauses, cnf.projection, 100)[0]) == 11


def test_a_self_loop_with_a_dead_end_has_no_grundy_solution() -> None:
    g = GameGraph.from_successors({"x": ["x", "y"]}, semantics=Semantics.IMPARTIAL)
    s = solution_set(Case(g, "loop"), certify=False, counter=True)
    assert (s.count, s.method, s.unique) == (0, "exact", False)


def test_approximate_then_bounds_when_the_exact_count_runs_out_of_time() -> None:
    pytest.importorskip("pyapproxmc")
    g = GameGraph.from_successors(
        {f"{s}{i}": [f"{'b' if s == 'a' else 'a'}{i}"] for i in range(12) for s in "ab"},
        semantics=Semantics.NORMAL,
    )
    cnf = case_cnf(Case(g, "twelve"))
    now = time.monotonic()
    est = count_models(cnf.clauses, cnf.projection, exact_until=now, seed=1)
    assert est.method is Method.APPROXIMATE and est.count is not None
    assert 3**12 / 1.8 <= est.count <= 3**12 * 1.8  # epsilon 0.8 (seeded: deterministic)
    assert "probability at least 0.8" in est.detail
    none = count_models(cnf.clauses, cnf.projection, exact_until=now, approximate_until=now)
    assert (none.method, none.count) == (Method.BOUNDS, None)


def test_missing_extra_one_line_error_or_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app

    monkeypatch.setattr(counting, "available", lambda module="pyganak": False)
    case = str(CASES / "simple-cycle-draw.json")
    r = CliRunner().invoke(app, ["uniqueness", case, "--counter"])
    assert r.exit_code == 2
    assert "'counting' extra" in r.output and len(r.output.strip().splitlines()) == 1
    s = solution_set(load_any(CASES / "game-lgame-symmetric.json"), certify=False)
    assert s.method == "bounds" and "[counting]" in s.how


def test_cli_json_names_the_method() -> None:
    from typer.testing import CliRunner

    from verifier.cli import app

    r = CliRunner().invoke(
        app, ["uniqueness", str(CASES / "kars-figure1-b-lt-d.json"), "--format", "json"]
    )
    doc = json.loads(r.output)
    assert (doc["solutions"], doc["method"]) == (3, "exact")
    r = CliRunner().invoke(app, ["uniqueness", str(CASES / "kars-figure1-b-lt-d.json")])
    assert "have 3 solutions (exact: Ganak counted" in r.output


CORPUS = sorted(
    p
    for p in CASES.iterdir()
    if p.suffix in (".json", ".gml", ".graphml") and "lgame" not in p.name
)


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_every_corpus_case_counted_exactly_as_z3_enumerates_it(path: Path) -> None:
    # the L-game (4,963 labellings) is the slow test below
    case = load_any(path)
    counted = solution_set(case, certify=False, counter=True, budget=60)
    enumerated = solution_set(case, certify=False, counter=False)
    assert counted.method == "exact", counted.how
    assert enumerated.count is not None and counted.count == enumerated.count, enumerated.how
    assert counted.free.tolist() == enumerated.free.tolist()


@pytest.mark.slow
def test_the_lgame_count_equals_a_full_sat_enumeration() -> None:
    # 4,963 circular labellings of the 1,261 drawn positions (Ganak: about 15 s; the
    # enumeration: one SAT call per labelling)
    case = load_any(CASES / "game-lgame-symmetric.json")
    s = solution_set(case, certify=False, counter=True)
    assert (s.count, s.method) == (4_963, "exact")
    cnf = case_cnf(case)
    found, complete = enumerate_models(cnf.clauses, cnf.projection, 10_000)
    assert complete and len(found) == 4_963


def test_drawn_positions_that_reach_no_cycle_are_fixed_without_the_counter() -> None:
    """Connect Four 3x3 has no cycle: its drawn positions (a full board, and what leads only to
    draws) follow from their successors, so no position is free and no counter is asked (on
    Connect Four 4x4 the counter took 47 s for the answer the fixpoint gives in 3 s); a drawn
    position before a two-cycle still varies with it (3 labellings, all of its three labels)."""
    from verifier.games.connect4 import generate

    s = solution_set(generate(3, 3), certify=False, counter=True)
    assert (s.count, s.method, int(s.free.sum())) == (1, "exact", 0)
    assert "Ganak" not in s.how
    g = GameGraph.from_successors({"x": ["p"], "p": ["q"], "q": ["p"]}, semantics=Semantics.NORMAL)
    s = solution_set(Case(g, "before"), certify=False, counter=True)
    assert (s.count, s.method) == (3, "exact")
    assert s.free.tolist() == [True, True, True]
