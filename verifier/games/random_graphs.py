"""Seeded random game graphs for every semantics, built with numpy (for tests and benchmarks).

:func:`random_case` draws a graph of ``nodes`` nodes and about ``nodes * degree`` moves: a
``terminal_fraction`` of the nodes are dead ends, every other node has at least one move and the
rest of the moves go to uniformly random (source, target) pairs; repeated pairs are dropped, so
the mean out-degree comes out slightly below ``degree`` when the graph is dense. Cycles and
self-loops occur naturally (``self_loops=False`` removes the loops, ``acyclic=True`` only draws
moves from a node to a higher id, which leaves the last node a dead end).

Per semantics:

``minimax``
    inner nodes are Max or Min with probability 1/2; dead ends get a value drawn from ``values``.
``normal``
    dead ends get a label drawn from ``values`` (which must be among -1, 0, +1).
``reachability``
    a ``terminal_fraction`` of the nodes (any nodes, with or without moves) form the target set;
    every non-target node with moves belongs to player 0 or 1 with probability 1/2.
``impartial``
    moves only.

The same arguments give the same graph on every machine (``numpy.random.default_rng(seed)``).
Node names are ``"0" .. "n-1"`` (not materialised).

Examples
--------
>>> case = random_case("normal", 1000, 3.0, seed=1)
>>> case.graph.n, 2900 < case.graph.m <= 3000
(1000, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from verifier.games.registry import BuiltinGame, Option, TieredForm
from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, Semantics
from verifier.model.describe import describe
from verifier.model.words import number

__all__ = ["GAME", "generate", "random_case", "random_edges"]


def random_edges(
    rng: np.random.Generator,
    inner: NDArray[np.bool_],
    m: int,
    *,
    self_loops: bool = True,
    acyclic: bool = False,
    targets: int | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """About ``m`` distinct moves, sorted by (source, target), from the ``inner`` nodes only.

    Every inner node gets one move first (so it is not a dead end), the remaining moves start
    at uniformly random inner nodes. Targets are uniform over all nodes (``acyclic``: over the
    nodes with a higher id). ``targets``: draw the targets among that many nodes instead of
    ``len(inner)`` (a shard of a larger graph drawing its nodes' moves; self loops and
    ``acyclic`` then refer to the shard's local ids, so use neither).
    """
    n = len(inner) if targets is None else targets
    sources = np.flatnonzero(inner)
    if len(sources) == 0 or n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    extra = max(m - len(sources), 0)
    src = np.concatenate([sources, sources[rng.integers(0, len(sources), extra)]])
    if acyclic:
        # a target uniform in (src, n): src + 1 + floor(u * (n - 1 - src))
        span = n - 1 - src
        dst = src + 1 + (rng.random(len(src)) * span).astype(np.int64)
    else:
        dst = rng.integers(0, n, len(src))
        if not self_loops and n > 1:
            # a target uniform over the other n - 1 nodes
            dst = rng.integers(0, n - 1, len(src))
            dst += dst >= src
    keep = src != dst if (not self_loops or acyclic) else np.ones(len(src), dtype=np.bool_)
    key = np.sort(src[keep] * n + dst[keep])  # sorted by (src, dst) ...
    first = np.ones(len(key), dtype=np.bool_)
    np.not_equal(key[1:], key[:-1], out=first[1:])
    key = key[first]  # ... repeats dropped
    return key // n, key % n


def random_case(
    semantics: Semantics | str,
    nodes: int,
    degree: float,
    seed: int,
    values: Sequence[float] = (-1, 0, 1),
    terminal_fraction: float = 0.1,
    *,
    self_loops: bool = True,
    acyclic: bool = False,
) -> Case:
    """A seeded random case (see the module docstring for what each semantics gets)."""
    sem = Semantics(semantics)
    if nodes < 1:
        raise ValueError(f"nodes must be at least 1, got {nodes}")
    if degree < 0 or not 0 <= terminal_fraction <= 1:
        raise ValueError(
            f"need degree >= 0 and 0 <= terminal_fraction <= 1, got {degree}, {terminal_fraction}"
        )
    vals = np.asarray(values, dtype=np.float64)
    if len(vals) == 0 or not np.isfinite(vals).all():
        raise ValueError(f"values must be finite and not empty, got {list(values)}")
    d = describe(sem)
    codes = sorted(d.words)  # values that are words: the codes of the labels
    if codes and not np.isin(vals, codes).all():
        among = ", ".join(map(str, codes))
        raise ValueError(f"{sem.value} labels must be among {among}, got {list(values)}")
    rng = np.random.default_rng(seed)
    inner = rng.random(nodes) >= terminal_fraction
    if acyclic:
        inner[-1] = False
    src, dst = random_edges(
        rng, inner, round(nodes * degree), self_loops=self_loops, acyclic=acyclic
    )
    ptr = np.zeros(nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=nodes), out=ptr[1:])
    dead = ptr[1:] == ptr[:-1]
    owner = np.full(nodes, NOBODY, dtype=np.int8)
    value = np.full(nodes, np.nan)
    target = np.zeros(nodes, dtype=np.bool_)
    if d.value_field is not None:  # terminals take a value (a score or a label)
        value[dead] = vals[rng.integers(0, len(vals), int(dead.sum()))]
    if d.owner_names and not d.has_targets:  # every inner node has an owner
        owner[~dead] = np.where(rng.random(int((~dead).sum())) < 0.5, MAX, MIN)
    if d.has_targets:  # targets; an owner at every other inner node
        target = rng.random(nodes) < terminal_fraction
        players = np.where(rng.random(nodes) < 0.5, MAX, MIN).astype(np.int8)
        owner = np.where(~dead & ~target, players, NOBODY).astype(np.int8)
    graph = GameGraph(
        semantics=sem,
        succ_ptr=ptr,
        succ_idx=dst,
        owner=owner,
        value=value,
        target=target,
    )
    flags = ("" if self_loops else "-noloops") + ("-acyclic" if acyclic else "")
    return Case(
        graph=graph,
        id=f"random-{sem.value}-{nodes}-{degree:g}-{seed}{flags}",
        source=(
            f"verifier.games.random_graphs.random_case({sem.value!r}, nodes={nodes}, "
            f"degree={degree:g}, seed={seed}, values={tuple(number(v) for v in vals.tolist())}, "
            f"terminal_fraction={terminal_fraction:g}, self_loops={self_loops}, "
            f"acyclic={acyclic})"
        ),
    )


def generate(
    semantics: str = "normal",
    nodes: int = 1000,
    degree: float = 3.0,
    seed: int = 0,
    values: Sequence[float] = (-1, 0, 1),
    terminal_fraction: float = 0.1,
    self_loops: bool = True,
    acyclic: bool = False,
) -> Case:
    """The generator entry point (same as :func:`random_case`)."""
    return random_case(
        semantics,
        nodes,
        degree,
        seed,
        values,
        terminal_fraction,
        self_loops=self_loops,
        acyclic=acyclic,
    )


GAME = BuiltinGame(
    "random",
    "seeded random graph of any semantics",
    generate,
    options=(
        Option("semantics", str, "The semantics."),
        Option("nodes", int, "Number of nodes."),
        Option("degree", float, "Mean out-degree."),
        Option("seed", int, "The graph's seed (the same seed, the same graph)."),
        Option("values", tuple, "Values dead ends draw from, e.g. -1,0,1."),
        Option("terminal_fraction", float, "Share of dead ends."),
        Option("acyclic", bool, "A DAG only."),
    ),
    order=70,
    tiers=TieredForm("graph", "verifier.distributed.tiers.commands:generate_graph_tiers"),
)
"""On the Dask route the workers draw the graph shard by shard (another graph than the same
options give in memory), stored as the generic graph (``GraphTiers``): it does not resume."""
