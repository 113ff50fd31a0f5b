"""Graphs and in-memory references shared by the tests of ``verifier.distributed``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from verifier.distributed import DistributedResult
from verifier.games.summary import summarize_solution
from verifier.model import MAX, MIN, Case, GameGraph, Semantics
from verifier.model.columns import REMOTENESS, VALUE
from verifier.solvers.attractor import attractor
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.retrograde import retrograde

SEMANTICS = (Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY)


def figure_1(b: float, d: float) -> GameGraph:
    """Kars' Figure 1: a Max -> b (leaf), c; c Min -> d (leaf), a. Ids: a 0, c 1, b 2, d 3."""
    return GameGraph.from_successors(
        {"a": ["b", "c"], "c": ["d", "a"]},
        semantics=Semantics.MINIMAX,
        owner={"a": MAX, "c": MIN},
        value={"b": b, "d": d},
    )


def decorate(
    sem: Semantics, n: int, src: NDArray[Any], dst: NDArray[Any], rng: np.random.Generator
) -> GameGraph:
    """Owners, terminal values and targets drawn at random for the given moves."""
    deg = np.bincount(src, minlength=n)
    owner = np.where(deg > 0, rng.integers(0, 2, n), -1).astype(np.int8)
    value = np.full(n, np.nan)
    target = np.zeros(n, dtype=np.bool_)
    if sem is Semantics.MINIMAX:
        value[deg == 0] = rng.integers(-3, 4, int((deg == 0).sum()))
    elif sem is Semantics.NORMAL:
        owner[:] = -1
        value[deg == 0] = rng.choice([-1.0, -1.0, 1.0, 0.0, np.nan], int((deg == 0).sum()))
    else:
        target = rng.random(n) < 0.1
    return GameGraph.from_edges(n, src, dst, semantics=sem, owner=owner, value=value, target=target)


def random_graph(sem: Semantics, n: int, seed: int, mean_degree: float = 2.0) -> GameGraph:
    """A random graph with cycles, self-loops, dead ends and isolated nodes."""
    rng = np.random.default_rng(seed)
    deg = rng.poisson(mean_degree, n)
    deg[rng.random(n) < 0.15] = 0  # more terminals
    src = np.repeat(np.arange(n), deg)
    dst = rng.integers(0, n, len(src))
    key = np.unique(src * n + dst)  # drop duplicate moves
    return decorate(sem, n, key // n, key % n, rng)


@st.composite
def small_graphs(draw: st.DrawFn, sem: Semantics) -> GameGraph:
    """Hypothesis: up to 9 nodes, any moves (self-loops included), random decorations."""
    n = draw(st.integers(1, 9))
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20))
    src = np.array([s for s, _ in sorted(pairs)], dtype=np.int64)
    dst = np.array([d for _, d in sorted(pairs)], dtype=np.int64)
    seed = draw(st.integers(0, 2**32 - 1))
    return decorate(sem, n, src, dst, np.random.default_rng(seed))


def kars_def41_numpy(g: GameGraph) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Def. 4.1 literally on the whole graph each round (for graphs too big for pure Python);
    the remoteness by the iteration of ``kars_iteration`` likewise."""
    leaf = g.is_terminal
    t = np.where(leaf, g.value, 0.0)
    is_max = g.owner == MAX
    starts = np.minimum(g.succ_ptr[:-1], max(g.m - 1, 0))
    s = np.zeros(g.n)
    while True:
        succ_vals = s[g.succ_idx] if g.m else np.zeros(1)
        hi = np.maximum.reduceat(succ_vals, starts)
        lo = np.minimum.reduceat(succ_vals, starts)
        nxt = np.where(leaf, t, np.where(is_max, hi, lo))  # s_{n+1} = A s_n
        if np.array_equal(nxt, s):
            break
        s = nxt
    # r_{n+1} = R r_n on the score-keeping moves (issue 28 item 4), undefined = -1
    src = np.repeat(np.arange(g.n), g.out_degree)
    keep = (s[src] == s[g.succ_idx]) & (s[src] != 0) if g.m else np.zeros(1, dtype=bool)
    n_keep = np.add.reduceat(keep.astype(np.int64), starts)
    ahead = ~leaf & ((s > 0) == is_max)
    r = np.full(g.n, -1, dtype=np.int64)
    big = np.iinfo(np.int64).max
    while True:
        rd = r[g.succ_idx] if g.m else np.full(1, -1)
        known = keep & (rd >= 0)
        least = np.minimum.reduceat(np.where(known, rd, big), starts)
        most = np.maximum.reduceat(np.where(known, rd, -1), starts)
        n_known = np.add.reduceat(known.astype(np.int64), starts)
        inner = np.where(ahead, np.where(n_known > 0, 1 + least, -1), -1)
        inner = np.where(~ahead & (n_known == n_keep) & (n_keep > 0), 1 + most, inner)
        nxt = np.where(leaf, np.where(s != 0, 0, -1), np.where(s != 0, inner, -1))
        nxt = np.where(r >= 0, r, nxt)
        if np.array_equal(nxt, r):
            return s, r
        r = nxt


def reference(g: GameGraph, *, large: bool = False) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """The in-memory answer: values in the distributed engine's view, and remoteness / layer."""
    if g.semantics is Semantics.MINIMAX:
        if large:
            return kars_def41_numpy(g)
        k = kars_iteration(g)
        return k.value, k.remoteness
    if g.semantics is Semantics.NORMAL:
        r = retrograde(g)
        return r.label, r.remoteness
    a = attractor(g)
    return a.win.astype(np.int8), a.layer


SMALL_CASES = ("kars-figure1-b-lt-d", "knuth-won-lost-unknown", "ico-reachability")
"""One small corpus case of each semantics the distributed engine solves."""


def load_corpus_case(stem: str) -> Case:
    """A case of the corpus in ``cases/`` by its file's stem."""
    from verifier.io.formats import load_any

    return load_any(Path(__file__).parents[2] / "cases" / f"{stem}.json")


def assert_same_answer(dist: DistributedResult, case: Case) -> None:
    """The run's ``Solution`` reads as the in-memory pipeline's: the value and remoteness
    columns (data and masks), every position's value, and the summary."""
    from verifier.pipeline import run_case

    mem = run_case(case, smt=False).solution
    got = dist.solution
    assert mem is not None and got is not None
    assert got.description is mem.description and got.agreeing == (dist.solver,)
    for name in (VALUE, REMOTENESS):
        a, b = mem.columns[name], got.columns[name]
        assert np.array_equal(a.given, b.given), name
        assert np.array_equal(a.data[a.given], b.data[b.given]), name
    assert [got.value(x) for x in range(case.graph.n)] == [
        mem.value(x) for x in range(case.graph.n)
    ]
    assert summarize_solution(case, got) == summarize_solution(case, mem)
    run_keys = {"engine", "shards"}
    assert {k: v for k, v in dist.summary.items() if k not in run_keys} == summarize_solution(
        case, mem
    )


def solve_beside_stale_states(root: Path, client: Any, mine: Any, theirs: Any) -> None:
    """Solve the dataset in ``root`` with two states an earlier run left on the workers (as
    ``graph_tasks.Held``): ``mine`` for this dataset (a driver that died), ``theirs`` for
    another's; the solve drops ``mine``, never reads it, and leaves ``theirs``."""
    from verifier.distributed.tiers import graph_tasks
    from verifier.distributed.tiers.driver import solve_dataset

    graph_tasks._HELD[("old-run", 0, 0)] = mine
    graph_tasks._HELD[("other-run", 0, 0)] = theirs
    try:
        solve_dataset(root, client)
        assert set(graph_tasks._HELD) == {("other-run", 0, 0)}  # another dataset's: left
    finally:
        graph_tasks._HELD.clear()
