"""Kars' ladder L_n (Ex. 7.4): the shape the text fixes, and the visit counts of the searches."""

from __future__ import annotations

import itertools

import pytest

from verifier.games.ladder import ladder, ladder_graph
from verifier.model import MAX, MIN, NOBODY, Semantics
from verifier.model.topology import is_acyclic
from verifier.solvers.kars_dfs import kars_dfs
from verifier.solvers.kars_iteration import kars_iteration
from verifier.solvers.kars_levels import kars_levels
from verifier.solvers.kars_memo import kars_memo


@pytest.mark.parametrize("n", [1, 2, 5, 9])
@pytest.mark.parametrize("dense", [False, True])
def test_shape_follows_the_text(n: int, dense: bool) -> None:
    g = ladder_graph(n, dense=dense)
    assert g.semantics is Semantics.MINIMAX
    assert g.n == 4 * n + 2
    leaves = [x for x in range(g.n) if g.is_terminal[x]]
    assert len(leaves) == 2 * n + 1  # half of the nodes are leaves
    for x in range(g.n):  # every inner node has exactly one leaf of its own
        if not g.is_terminal[x]:
            own = [y for y in g.successors(x).tolist() if g.is_terminal[y]]
            assert [g.name(y) for y in own] == [f"{g.name(x)}'"]
            assert g.owner[x] in (MAX, MIN)
        else:
            assert g.owner[x] == NOBODY and g.in_degree[x] == 1
    for x, y in zip(g.edge_src.tolist(), g.succ_idx.tolist(), strict=True):  # bipartite
        assert g.is_terminal[y] or g.owner[x] != g.owner[y]
    assert not is_acyclic(g)
    assert g.owner[0] == MAX and g.name(0) == "t"


def test_case() -> None:
    c = ladder(3)
    assert c.root == 0 and c.id == "kars-ladder-3" and c.source and "7.4" in c.source
    assert ladder(2, dense=True).id == "kars-ladder-dense-2"
    with pytest.raises(ValueError):
        ladder_graph(0)


# Measured counts (docs/ladder.md); a change of counting or of the shape must show up here.
DFS = [8, 24, 46, 84, 144, 242, 400, 656]
MEMO = [8, 19, 33, 58, 82, 116, 149, 192]


@pytest.mark.parametrize("n", range(1, 9))
def test_visit_counts(n: int) -> None:
    g = ladder_graph(n)
    dfs, memo = kars_dfs(g, 0), kars_memo(g, 0)
    assert (dfs.visits, memo.visits) == (DFS[n - 1], MEMO[n - 1])
    assert dfs.value == memo.value == kars_levels(g).value[0] == kars_iteration(g).value[0]


def test_growth_exponential_versus_polynomial() -> None:
    d = [kars_dfs(ladder_graph(n), 0).visits for n in range(8, 12)]
    m = [kars_memo(ladder_graph(n), 0).visits for n in range(8, 12)]
    assert all(b / a > 1.5 for a, b in itertools.pairwise(d))  # about the golden ratio
    assert all(b / a < 1.3 for a, b in itertools.pairwise(m))  # about quadratic
    dense = [kars_memo(ladder_graph(n, dense=True), 0).visits for n in range(6, 9)]
    assert all(b / a > 2 for a, b in itertools.pairwise(dense))
