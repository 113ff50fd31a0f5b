"""The mex checks split by strongly connected component (graphs over ``MAX_TERMS`` terms)."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.games.nim import nim_piles
from verifier.games.random_graphs import random_case
from verifier.model import GameGraph, Verdict
from verifier.model.mex import mex
from verifier.model.report import CaseVerdict
from verifier.pipeline import run_case
from verifier.registry import Options
from verifier.smt import mex as mexmod
from verifier.smt.common import component_order
from verifier.smt.mex import check_counter, check_values, mex_failures
from verifier.solvers.loopy_grundy import loopy_grundy


def _plain_failures(g: GameGraph, values: np.ndarray) -> list[int]:
    """Node by node: finite value != mex of the finite options' values."""
    out = []
    for x in range(g.n):
        if values[x] < 0:
            continue
        opts = [int(values[y]) for y in g.successors(x) if values[y] >= 0]
        if values[x] != mex(opts):
            out.append(x)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_mex_failures_is_the_plain_evaluation(seed: int) -> None:
    g = random_case("impartial", 60, 2.5, seed=seed).graph
    values = loopy_grundy(g).values.copy()
    rng = np.random.default_rng(seed)
    assert mex_failures(g, values, np.arange(g.n)).tolist() == _plain_failures(g, values) == []
    for x in rng.choice(g.n, 5, replace=False):
        values[x] = rng.integers(-1, 5)
    want = _plain_failures(g, values)
    assert mex_failures(g, values, np.arange(g.n)).tolist() == want


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every graph counts as too large for one query: the split path always runs."""
    monkeypatch.setattr(mexmod, "MAX_TERMS", 40)


def _loopy_case(seed: int) -> tuple[GameGraph, np.ndarray]:
    g = random_case("impartial", 200, 2.0, seed=seed).graph
    return g, loopy_grundy(g).values.copy()


@pytest.mark.parametrize("seed", range(6))
def test_split_confirms_right_values_and_refutes_a_corrupted_one(seed: int, split: None) -> None:
    g, values = _loopy_case(seed)
    ok = check_values(g, values, Options())
    assert ok.verdict is Verdict.CONFIRMED, ok.detail
    assert "by plain evaluation" in ok.detail and "by Z3 in" in ok.detail
    _, _, cyclic = component_order(g)
    finite = values >= 0
    for region in (finite & ~cyclic, finite & cyclic):  # outside the cycles, then inside
        if not region.any():
            continue
        x = int(np.flatnonzero(region)[0])
        bad = values.copy()
        bad[x] += 1
        res = check_values(g, bad, Options())
        assert res.verdict is Verdict.REFUTED, res.detail
        assert res.witness is not None and g.name(x) in res.witness["failing_nodes"]


def test_a_z3_unknown_in_one_component_is_unknown(split: None) -> None:
    g, values = _loopy_case(1)
    _, _, cyclic = component_order(g)
    assert (cyclic & (values >= 0)).any()
    res = check_values(g, values, Options(rlimit=1, first_rlimit=1))
    assert res.verdict is Verdict.UNKNOWN, res.detail


def _circular(g: GameGraph, values: np.ndarray) -> np.ndarray:
    """The infinite nodes given finite values by iterating the mex on them alone: where it
    settles, a solution of the mex equations that only holds in a circle."""
    bad = values.copy()
    inf = np.flatnonzero(values < 0)
    bad[inf] = 0
    for _ in range(50):
        before = bad.copy()
        for x in inf.tolist():
            bad[x] = mex(int(bad[y]) for y in g.successors(x) if bad[y] >= 0)
        if np.array_equal(before, bad):
            break
    return bad


@pytest.mark.parametrize("seed", [0, 4, 13, 23])
def test_the_counter_split_by_component_refutes_circular_values(seed: int) -> None:
    g = random_case("impartial", 200, 2.0, seed=seed).graph
    values = loopy_grundy(g).values
    assert check_counter(g, values, Options()).verdict is Verdict.CONFIRMED
    bad = _circular(g, values)
    res = check_counter(g, bad, Options())
    assert res.verdict is Verdict.REFUTED, res.detail
    assert res.witness is not None and values[g.id_of(res.witness["node"])] < 0
    if seed == 13:  # a full solution of the mex equations: only condition B tells it apart
        assert mex_failures(g, bad, np.arange(g.n)).tolist() == []


def test_three_nim_piles_below_16_verify() -> None:
    """Issue 14's input: 4,096 positions, 92,160 moves, 2.5 million terms."""
    case = nim_piles(3, 16)
    rep = run_case(case, Options())
    assert rep.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.detail) for c in rep.checks if c.verdict is not Verdict.CONFIRMED
    ]
    judged = [c for c in rep.checks if c.name.startswith("grundy mex equations: answer")]
    assert judged and all("not counted above" in c.detail for c in judged)


def _needs(g: GameGraph, values: np.ndarray) -> dict[int, list[list[int]]]:
    """Condition B's needs inside the components, as ``check_counter`` builds them."""
    label, _, _ = component_order(g)
    out: dict[int, list[list[int]]] = {}
    for u in range(g.n):
        if values[u] < 0:
            continue
        for v in g.successors(u).tolist():
            if values[v] < 0 or values[v] > values[u]:
                ws = [w for w in g.successors(v).tolist() if values[w] == values[u]]
                if not any(label[w] != label[u] for w in ws):
                    out.setdefault(u, []).append(ws)
    return out


@pytest.mark.parametrize("seed", range(16))
def test_the_labelling_decides_condition_b_as_z3_does(seed: int) -> None:
    """The exact labelling (used where Z3 gives up) and Z3 agree: right values have a counter,
    circular ones have none, and the labelling's unlabelled nodes are what blocks it."""
    g = random_case("impartial", 120, 2.0, seed=seed).graph
    for values in (loopy_grundy(g).values, _circular(g, loopy_grundy(g).values)):
        needs = _needs(g, values)
        todo = sorted(needs)
        z3_says = mexmod._counter_core(todo, needs, Options())
        assert not isinstance(z3_says, str)
        by_labelling = mexmod.counter_by_labelling(todo, needs)
        assert (z3_says == []) == (by_labelling == [])
        assert set(z3_says) <= set(by_labelling)  # an unsat core lies in the blocked part


def test_where_z3_gives_up_the_labelling_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    g, values = _loopy_case(2)
    monkeypatch.setattr(mexmod, "_counter_core", lambda todo, needs, options: "canceled")
    monkeypatch.setattr(
        mexmod, "_counter_confirmed", lambda todo, needs, order, options: "canceled"
    )
    ok = check_counter(g, values, Options())
    assert ok.verdict is Verdict.CONFIRMED and "decided by the AND-OR labelling" in ok.detail
    bad = check_counter(g, _circular(g, values), Options())
    assert bad.verdict is Verdict.REFUTED and "decided by the AND-OR labelling" in bad.detail


@pytest.mark.parametrize("seed", range(8))
def test_z3_confirms_the_labellings_counter(seed: int) -> None:
    """Right values: the labelling's order is a counter and Z3, with it pinned, agrees; the
    same order backwards breaks some need (Z3 then searches for a counter itself and finds
    one). Circular values: the labelling blocks, and Z3's core lies in the blocked part."""
    g = random_case("impartial", 120, 2.0, seed=seed).graph
    values = loopy_grundy(g).values
    needs = _needs(g, values)
    todo = sorted(needs)
    order, blocked = mexmod.counter_order(todo, needs)
    assert not blocked and sorted(order) == todo
    assert mexmod._counter_confirmed(todo, needs, order, Options()) == []
    at = {u: k for k, u in enumerate(order)}
    for u in todo:  # each need has a w labelled before u (or outside todo)
        assert all(any(at.get(w, -1) < at[u] for w in ws) for ws in needs[u])
    bad = _circular(g, values)
    needs = _needs(g, bad)
    todo = sorted(needs)
    _, blocked = mexmod.counter_order(todo, needs)
    assert blocked == mexmod.counter_by_labelling(todo, needs)
