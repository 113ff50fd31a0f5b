"""The registered wrappers: names, semantics, views, work counts, coverage, NotApplicable."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.errors import NotApplicable
from verifier.games.ladder import ladder
from verifier.model import MAX, MIN, Case, GameGraph, Semantics
from verifier.model.results import View
from verifier.registry import Options, all_registered
from verifier.solvers.attractor import attractor_solver
from verifier.solvers.convert import kars_via_minimax_solver
from verifier.solvers.dag_minimax import dag_minimax_solver
from verifier.solvers.kars_dfs import kars_dfs_solver
from verifier.solvers.kars_iteration import kars_iteration_solver
from verifier.solvers.kars_levels import kars_levels_solver
from verifier.solvers.kars_memo import kars_memo_solver
from verifier.solvers.retrograde import retrograde_solver

MINIMAX_SOLVERS = [kars_iteration_solver, kars_levels_solver, kars_memo_solver, kars_dfs_solver]


def figure1_case(root: int | None = 0) -> Case:
    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": [], "c": ["d", "a"], "d": []},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": -1.0, "d": 2.0},
    )
    return Case(graph=g, id="figure-1", root=root)


def test_names_and_semantics() -> None:
    solvers = all_registered()["solvers"]
    want = {
        "retrograde": {Semantics.NORMAL},
        "dag-minimax": {Semantics.MINIMAX},
        "attractor": {Semantics.REACHABILITY},
        "kars-iteration": {Semantics.MINIMAX},
        "kars-levels": {Semantics.MINIMAX},
        "kars-dfs": {Semantics.MINIMAX},
        "kars-memo": {Semantics.MINIMAX},
        "kars-via-minimax": {Semantics.NORMAL, Semantics.REACHABILITY},
    }
    for name, sems in want.items():
        assert solvers[name].semantics == sems, name


@pytest.mark.parametrize("fn", MINIMAX_SOLVERS)
def test_minimax_wrappers(fn: object) -> None:
    res = fn(figure1_case(), Options())  # type: ignore[operator]
    assert res.view is View.SCORE
    assert res.values.tolist() == [0, -1, 0, 2]
    assert res.covered_mask().all()
    assert res.work and all(v >= 0 for v in res.work.values())
    assert res.seconds >= 0


def test_dfs_wrapper_coverage() -> None:
    small = Options(exponential_limit=3)
    res = kars_dfs_solver(figure1_case(root=2), small)  # too big: only the root
    assert res.covered_mask().tolist() == [False, False, True, False]
    assert res.values[2] == 0 and np.isnan(res.values[0])
    with pytest.raises(NotApplicable):
        kars_dfs_solver(figure1_case(root=None), small)


def test_dag_wrapper_refuses_cycles() -> None:
    with pytest.raises(NotApplicable, match="cycle"):
        dag_minimax_solver(figure1_case(), Options())
    res = dag_minimax_solver(ladder_free_dag(), Options())
    assert res.values.tolist() == [1, 1] and res.move is not None and res.move.tolist() == [1, -1]


def ladder_free_dag() -> Case:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": []}, semantics=Semantics.MINIMAX, owner={"a": MIN}, value={"b": 1}
    )
    return Case(graph=g, id="dag")


def test_normal_and_reachability_wrappers() -> None:
    g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": []}, semantics=Semantics.NORMAL)
    case = Case(graph=g, id="chain")
    ret, via = retrograde_solver(case, Options()), kars_via_minimax_solver(case, Options())
    for r in (ret, via):
        assert r.view is View.LABEL and r.values.dtype == np.int8
        assert r.values.tolist() == [-1, 1, -1]
        assert r.remoteness is not None and r.remoteness.tolist() == [2, 1, 0]
        assert r.move is not None and r.move.tolist() == [1, 2, -1]
    h = GameGraph.from_successors(
        {"a": ["b"], "b": []}, semantics=Semantics.REACHABILITY, owner={"a": 1}, target=["b"]
    )
    case = Case(graph=h, id="reach")
    att, via = attractor_solver(case, Options()), kars_via_minimax_solver(case, Options())
    for r in (att, via):
        assert r.view is View.REGION and r.values.tolist() == [1, 1]
        assert r.remoteness is not None and r.remoteness.tolist() == [1, 0]


def test_wrong_semantics_and_engine_are_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        retrograde_solver(figure1_case(), Options())
    with pytest.raises(NotApplicable):
        kars_levels_solver(figure1_case(), Options(engine="numpy"))


def test_ladder_through_the_wrappers() -> None:
    case = ladder(4)
    results = [fn(case, Options()) for fn in MINIMAX_SOLVERS]
    for r in results[1:]:
        assert r.values.tolist() == results[0].values.tolist()


def test_memo_wrapper_scores_only_the_root_of_a_large_graph() -> None:
    from dataclasses import replace

    from verifier.solvers.kars_memo import MEMO_ALL_ROOTS_LIMIT

    n = MEMO_ALL_ROOTS_LIMIT + 1  # a Max cycle 0 -> 1 -> ... -> n-1 -> 0, node 0 also to a leaf
    src = [*range(n), 0]
    dst = [*(i + 1 for i in range(n - 1)), 0, n]
    owner = [MAX] * n + [-1]
    value = [float("nan")] * n + [-1.0]
    g = GameGraph.from_edges(n + 1, src, dst, semantics=Semantics.MINIMAX, owner=owner, value=value)
    case = Case(graph=g, id="big-cycle")
    with pytest.raises(NotApplicable):
        kars_memo_solver(case, Options(engine="reference"))
    r = kars_memo_solver(replace(case, root=5), Options(engine="reference"))
    assert r.covered is not None and np.flatnonzero(r.covered).tolist() == [5]
    assert r.values[5] == 0.0  # Max keeps cycling rather than take the loss: a draw
