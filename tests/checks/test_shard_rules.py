"""``checks.rules.shard_faults``: a shard of a graph judged as a graph of its own (its moves'
targets dead ends carrying their values, one per value) finds exactly the faults that
``rule_faults`` finds on the whole graph among the shard's nodes; the sharded checks run it."""

from __future__ import annotations

import numpy as np
import pytest

from verifier import api
from verifier.checks.rules import rule_faults, shard_faults, shard_graph
from verifier.equations.system import OrderSystem
from verifier.games.random_graphs import random_case
from verifier.model import GameGraph, SolverResult
from verifier.model.describe import describe


def _values(semantics: str, seed: int) -> tuple[GameGraph, np.ndarray, np.ndarray]:
    values = (-3, -1, 0, 1, 2, 5) if semantics == "minimax" else (-1, 0, 1)
    case = random_case(semantics, 300, 2.0, seed, values=values,
                       acyclic=semantics == "impartial")  # fmt: skip
    col = api.solve(case, engine="numpy").columns["value"]
    return case.graph, np.asarray(col.data).copy(), np.asarray(col.given).copy()


@pytest.mark.parametrize("semantics", ["normal", "reachability", "minimax", "impartial"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_shard_finds_the_whole_graphs_faults_among_its_nodes(semantics: str, seed: int) -> None:
    g, values, given = _values(semantics, seed)
    rng = np.random.default_rng(seed)
    bad = rng.choice(g.n, 12, replace=False)  # some values wrong, some not given
    given[bad[:3]] = False
    if semantics == "impartial":
        values[bad[3:]] = values[bad[3:]] + 1
    else:
        pool = np.unique(values[given])
        values[bad[3:]] = rng.choice(pool, 9)
    whole = SolverResult("s", describe(g.semantics).view, values, covered=given)
    want = set(rule_faults(g, whole).tolist())
    lo, hi = g.n // 3, 2 * g.n // 3  # the shard: nodes lo..hi-1, every other node outside
    src = g.edge_src
    mine = (src >= lo) & (src < hi)
    dst = g.succ_idx[mine].astype(np.int64)
    owner, value, target = g.owner[lo:hi], g.value[lo:hi], g.target[lo:hi]
    dead = g.out_degree[lo:hi] == 0  # the shard's own dead ends keep their leaf values
    sg = shard_graph(g.semantics, owner, np.where(dead, value, np.nan), target,
                     src[mine] - lo, values[dst], given[dst])  # fmt: skip
    assert sg.n <= (hi - lo) + len(np.unique(values[dst])) + 1  # one dead end per value
    got, _ = shard_faults(sg, values[lo:hi], given[lo:hi])
    assert set((got + lo).tolist()) == {x for x in want if lo <= x < hi}


def test_integer_values_index_as_floats_do() -> None:
    rng = np.random.default_rng(3)
    for semantics in ("normal", "reachability", "minimax"):
        s = OrderSystem.for_graph(random_case(semantics, 50, 2.0, 3).graph)
        for dtype in (np.int8, np.int32, np.int64, np.uint8):
            v = rng.integers(0 if dtype is np.uint8 else -3, 4, 200).astype(dtype)
            idx, bad = s.to_index(v)
            f_idx, f_bad = s.to_index(v.astype(np.float64))
            assert (bad == f_bad).all() and (idx == f_idx).all(), (semantics, dtype)
