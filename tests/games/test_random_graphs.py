"""Seeded random graphs: determinism, the promised shape per semantics, argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.games.random_graphs import generate, random_case
from verifier.model import MAX, MIN, NOBODY, Semantics
from verifier.model.topology import is_acyclic

SEMANTICS = list(Semantics)


@pytest.mark.parametrize("sem", SEMANTICS)
def test_same_seed_same_graph(sem: Semantics) -> None:
    a = random_case(sem, 500, 3.0, seed=7)
    b = random_case(sem, 500, 3.0, seed=7)
    c = random_case(sem, 500, 3.0, seed=8)
    for x, y in ((a, b),):
        assert np.array_equal(x.graph.succ_ptr, y.graph.succ_ptr)
        assert np.array_equal(x.graph.succ_idx, y.graph.succ_idx)
        assert np.array_equal(x.graph.owner, y.graph.owner)
        assert np.array_equal(x.graph.value, y.graph.value, equal_nan=True)
        assert np.array_equal(x.graph.target, y.graph.target)
    assert not np.array_equal(a.graph.succ_idx, c.graph.succ_idx)
    assert a.id == "random-" + sem.value + "-500-3-7" and "seed=7" in (a.source or "")


@pytest.mark.parametrize("sem", SEMANTICS)
@given(
    nodes=st.integers(1, 60),
    degree=st.floats(0, 5),
    seed=st.integers(0, 2**32 - 1),
    frac=st.floats(0, 1),
    loops=st.booleans(),
    acyclic=st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_shape_per_semantics(
    sem: Semantics, nodes: int, degree: float, seed: int, frac: float, loops: bool, acyclic: bool
) -> None:
    case = random_case(
        sem, nodes, degree, seed, terminal_fraction=frac, self_loops=loops, acyclic=acyclic
    )
    g = case.graph
    assert g.semantics is sem and g.n == nodes
    assert g.m <= max(round(nodes * degree), 0) + nodes
    src, dst = g.edge_src, g.succ_idx
    key = src * nodes + dst
    assert (np.diff(key) > 0).all()  # sorted by (src, dst), no repeated move
    if not loops or acyclic:
        assert not (src == dst).any()
    if acyclic:
        assert (dst > src).all() and is_acyclic(g)
    dead = g.is_terminal
    if sem is Semantics.MINIMAX:
        assert (g.owner[dead] == NOBODY).all()
        assert np.isin(g.owner[~dead], [MAX, MIN]).all()
        assert np.isin(g.value[dead], [-1, 0, 1]).all() and np.isnan(g.value[~dead]).all()
    elif sem is Semantics.NORMAL:
        assert np.isin(g.value[dead], [-1, 0, 1]).all() and np.isnan(g.value[~dead]).all()
        assert (g.owner == NOBODY).all()
    elif sem is Semantics.REACHABILITY:
        chooses = ~dead & ~g.target
        assert np.isin(g.owner[chooses], [0, 1]).all()
        assert (g.owner[~chooses] == NOBODY).all() and np.isnan(g.value).all()
    else:
        assert (g.owner == NOBODY).all() and np.isnan(g.value).all() and not g.target.any()


def test_density_and_features() -> None:
    case = random_case("minimax", 20_000, 4.0, seed=3, values=(-2, 5), terminal_fraction=0.2)
    g = case.graph
    assert 0.18 < g.is_terminal.mean() < 0.22
    assert 79_000 < g.m <= 80_000  # a few repeated pairs are dropped
    assert set(np.unique(g.value[g.is_terminal]).tolist()) == {-2.0, 5.0}
    assert (g.edge_src == g.succ_idx).any()  # self-loops occur
    assert not is_acyclic(g)
    both = generate("reachability", nodes=1000, degree=2.0, seed=1)
    assert both.graph.target.any() and (both.graph.owner == 0).any()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="normal labels"):
        random_case("normal", 10, 2.0, seed=0, values=(2,))
    with pytest.raises(ValueError):
        random_case("chess", 10, 2.0, seed=0)
    with pytest.raises(ValueError, match="nodes"):
        random_case("impartial", 0, 2.0, seed=0)
    with pytest.raises(ValueError, match="terminal_fraction"):
        random_case("impartial", 10, 2.0, seed=0, terminal_fraction=1.5)
    with pytest.raises(ValueError, match="values"):
        random_case("minimax", 10, 2.0, seed=0, values=())
