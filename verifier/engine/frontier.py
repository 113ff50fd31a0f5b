"""The engine's kernel: backward AND/OR propagation over CSR arrays, one frontier at a time.

Every solver of the engine is an instance of the same scheme, the one of Knuth's retrograde
exercise and of the attractor notes: a node *joins* (gets labelled) either when **one** of its
successors has joined with a signal that suffices (an OR node: player 0 with a successor in the
attractor, a position with a lost successor in retrograde analysis) or when **all** of its
successors have joined with a signal that counts down its counter (an AND node: player 1 in an
attractor, "all successors won" in retrograde analysis). Instead of a FIFO queue of single nodes
the kernel moves a whole *frontier* (all nodes of one layer) at a time:

1. gather the predecessor edges of the frontier with one CSR gather (``gather``), one gather
   per distinct signal in the frontier, dropping predecessors that have already joined;
2. OR hits: predecessors whose OR signal equals the signal of the frontier node join;
3. AND hits: ``np.subtract.at`` decrements the counters; those reaching zero join;
4. the nodes that joined form the next frontier, one layer higher.

Each edge is gathered exactly once over the whole run (a node joins once, its predecessor edges
are gathered when it is in the frontier), and the work of a layer is proportional to the
frontier's edges, not to ``n``: the run is O(n + m) whatever the number of layers. (A layer that
gathers at least ``n / SCAN_FACTOR`` edges collects its joined nodes with one scan of the layer
array instead of de-duplicating them; there are at most ``SCAN_FACTOR * m / n`` such layers.)
Long thin layers (a path has ``n`` of them) would still pay numpy's per-call overhead on every
layer, so frontiers of a few nodes are processed by a scalar loop instead (``SCALAR_FRONTIER``);
huge frontiers are processed in chunks of at most ``CHUNK_EDGES`` edges to bound peak memory.

Steps 2 and 3 are ``settle``, the one join step of both routes: the engine's ``Propagation``
runs it on the predecessors it gathers, the sharded route (``dataset.round_rules.step``) on the
messages a shard receives in a round, each a move into a node decided the round before.

The FIFO queue of the seed hands out layers in non-decreasing order; processing layer by layer
is the same order with the ties inside a layer processed together, so layers (remoteness) are
identical to the queue version's. Optimal moves are not tracked here: they follow from the
layers in one vectorized pass over the edges (``first_match_per_source``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model.bounds import INT32_MAX
from verifier.model.graph import GameGraph, index_dtype, transpose

__all__ = [
    "CHUNK_EDGES",
    "IN",
    "NEVER",
    "SCALAR_FRONTIER",
    "SCAN_FACTOR",
    "Csr",
    "Propagation",
    "RowChunk",
    "attractor_propagation",
    "edge_chunks",
    "first_match_per_source",
    "gather",
    "height_classes",
    "predecessor_csr",
    "row_chunks",
    "settle",
    "successor_csr",
]

Index = NDArray[np.int64]
"""Node ids and CSR pointers inside the engine."""

_ONE = np.int32(1)

NEVER = 127
"""A signal no node ever emits: an OR/AND trigger set to it never fires."""

IN = 1
"""The one signal of attractors and height classes: "this node has joined"."""

SCALAR_FRONTIER = 16
"""Frontiers of at most this many nodes are processed by the scalar loop."""

SCAN_FACTOR = 8
"""A layer gathering at least ``n / SCAN_FACTOR`` edges finds its joined nodes by one scan of
the layer array (O(n), sequential) instead of de-duplicating each chunk's hits; such layers
are at most ``SCAN_FACTOR * m / n`` in number, so the scans cost O(m) in all."""

CHUNK_EDGES = 1 << 19
"""Largest number of edges gathered at once (bounds the temporaries to a few tens of MB)."""


@dataclass(frozen=True, eq=False)
class Csr:
    """A compressed sparse row adjacency: the neighbours of ``x`` are ``idx[ptr[x]:ptr[x+1]]``.

    ``idx`` is ``int32`` when ids fit (half the memory and bandwidth of ``int64``).
    """

    ptr: Index
    idx: NDArray[Any]

    @property
    def n(self) -> int:
        return len(self.ptr) - 1

    def degree(self) -> Index:
        return np.diff(self.ptr)


_PRED_CACHE: weakref.WeakKeyDictionary[GameGraph, Csr] = weakref.WeakKeyDictionary()
_SUCC_CACHE: weakref.WeakKeyDictionary[GameGraph, Csr] = weakref.WeakKeyDictionary()


def _trigger(on: NDArray[np.int8] | int) -> tuple[NDArray[np.int8] | None, int]:
    """A trigger as (per-node array, None) or (None, constant)."""
    if isinstance(on, np.ndarray):
        return on.astype(np.int8, copy=False), NEVER
    return None, int(on)


def successor_csr(g: GameGraph) -> Csr:
    """The successor CSR of ``g`` with compact indices (cached per graph)."""
    c = _SUCC_CACHE.get(g)
    if c is None:
        ids = g.succ_idx.astype(index_dtype(g.n), copy=False)  # the graph's own array
        c = Csr(np.asarray(g.succ_ptr, dtype=np.int64), ids)
        _SUCC_CACHE[g] = c
    return c


def predecessor_csr(g: GameGraph) -> Csr:
    """The predecessor CSR of ``g`` (predecessors of each node in increasing id order).

    Reuses ``g.pred_ptr`` / ``g.pred_idx`` when the graph has already derived them; otherwise
    transposes (``verifier.model.graph.transpose``: scipy's linear-time CSR-to-CSC conversion, a
    counting sort in C, on large graphs) and caches the result per graph.
    """
    c = _PRED_CACHE.get(g)
    if c is not None:
        return c
    if "_pred" in g.__dict__:  # already derived by GameGraph (a cached_property)
        c = Csr(g.pred_ptr, g.pred_idx)
    else:
        dt = index_dtype(g.n)
        ptr, idx = transpose(g.n, g.succ_ptr.astype(dt), g.succ_idx.astype(dt, copy=False))
        c = Csr(ptr.astype(np.int64), idx.astype(dt, copy=False))
    _PRED_CACHE[g] = c
    return c


def gather(csr: Csr, nodes: Index) -> tuple[NDArray[np.int64] | NDArray[np.int32], Index]:
    """The neighbours of ``nodes`` concatenated in order, and how many each node has.

    ``np.repeat(nodes, counts)`` is the node each gathered neighbour belongs to. O(len(result)).
    """
    starts = csr.ptr[nodes]
    counts = csr.ptr[nodes + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return csr.idx[:0], counts
    # position of each gathered entry: starts[i] + (0, 1, ..., counts[i] - 1)
    dt = index_dtype(int(csr.ptr[-1]))
    shift = (starts - (np.cumsum(counts) - counts)).astype(dt)
    pos: NDArray[Any] = np.arange(total, dtype=dt)
    pos += np.repeat(shift, counts)
    return csr.idx[pos], counts


def edge_chunks(ptr: Index, size: int = CHUNK_EDGES) -> Iterator[tuple[int, int]]:
    """Node ranges ``[u, v)`` whose rows hold about ``size`` edges each (at least one node)."""
    n = len(ptr) - 1
    u = 0
    while u < n:
        v = int(np.searchsorted(ptr, ptr[u] + size, side="right")) - 1
        v = min(max(v, u + 1), n)
        yield u, v
        u = v


def first_match_per_source(succ: Csr, want: NDArray[Any], code: NDArray[Any]) -> Index:
    """For every node ``x``: its smallest successor ``y`` with ``code[y] == want[x]``, else -1.

    Solvers encode "the successor an optimal strategy picks" as a key per node (e.g. layer and
    label) so that one vectorized comparison per edge finds it; a ``want`` that no ``code``
    takes means "no move". Successor lists are sorted, so the first match of a row is its
    smallest qualifying successor. One O(m) pass, in chunks of ``CHUNK_EDGES`` edges.
    """
    move = np.full(succ.n, -1, dtype=np.int64)
    for c in row_chunks(succ):
        eq = code[c.dst] == np.repeat(want[c.u : c.v], c.deg)
        # first matching position of each non-empty row: min over the row of (pos if eq else b-a)
        b_a = len(c.dst)
        span = np.int32(b_a) if b_a < INT32_MAX else np.int64(b_a)
        pos = np.where(eq, np.arange(b_a, dtype=span.dtype), span)
        first = np.minimum.reduceat(pos, c.starts)
        ok = first < span
        move[c.u + c.rows[ok]] = c.dst[first[ok]]
    return move


@dataclass(frozen=True, eq=False)
class RowChunk:
    """Rows ``u..v-1`` of a CSR with their edges: ``dst`` (the neighbours, concatenated),
    ``deg`` (per row), ``rows`` (the non-empty rows, relative to ``u``) and ``starts`` (where
    each non-empty row begins in ``dst``), ready for ``np.ufunc.reduceat``."""

    u: int
    v: int
    dst: NDArray[Any]
    deg: Index
    rows: Index
    starts: Index


def row_chunks(csr: Csr) -> Iterator[RowChunk]:
    """The rows of ``csr`` in chunks of about ``CHUNK_EDGES`` edges, chunks without edges
    skipped: the loop of every per-row reduction over the edges."""
    deg = csr.degree()
    for u, v in edge_chunks(csr.ptr, CHUNK_EDGES):  # read now: tests shrink it
        a, b = int(csr.ptr[u]), int(csr.ptr[v])
        if a == b:
            continue
        rows = np.flatnonzero(deg[u:v])
        yield RowChunk(u, v, csr.idx[a:b], deg[u:v], rows, csr.ptr[u:v][rows] - a)


Hits = NDArray[np.bool_] | bool
"""Per predecessor, or for all of them: whether a trigger fires."""


def settle(
    p: NDArray[Any],
    or_hit: Hits,
    and_hit: Hits | Callable[[NDArray[Any]], NDArray[np.bool_]],
    count: NDArray[np.int32],
    layer: NDArray[np.int32],
    signal: NDArray[np.int8],
    nxt: int,
    emit: tuple[int, int],
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Steps 2 and 3 of the module docstring for ``p``, open predecessors of nodes that emitted
    one signal (a node once per move into a joined node): those whose OR trigger fires
    (``or_hit``) join at layer ``nxt`` with signal ``emit[0]``; the others whose AND trigger
    fires (``and_hit``: for all, or a function of the others that says which) count down once
    per move, and those at zero join with ``emit[1]``.
    Returns the nodes joined by OR and by AND (a node as often as it was hit: de-duplicate).

    >>> count, layer = np.array([2, 1, 1], np.int32), np.full(3, -1, np.int32)
    >>> signal = np.zeros(3, np.int8)
    >>> by_or, by_and = settle(np.array([0, 1, 2, 2]), np.array([False, False, True, True]),
    ...                        True, count, layer, signal, 4, (1, -1))
    >>> by_or.tolist(), by_and.tolist(), count.tolist(), layer.tolist(), signal.tolist()
    ([2, 2], [1], [1, 0, 1], [-1, 4, 4], [0, -1, 1])
    """
    if np.ndim(or_hit) == 0:
        hit, rest = (p, p[:0]) if or_hit else (p[:0], p)
    else:
        hit, rest = p[or_hit], p[~or_hit]
    if len(hit):
        layer[hit] = nxt
        signal[hit] = emit[0]
    q = rest[and_hit(rest)] if callable(and_hit) else rest if and_hit else rest[:0]
    if not len(q):
        return hit, q
    np.subtract.at(count, q, _ONE)  # np.int32 one: the fast path of ufunc.at
    z = q[count[q] == 0]
    if len(z):
        layer[z] = nxt
        signal[z] = emit[1]
    return hit, z


class Propagation:
    """State of one backward AND/OR propagation (see the module docstring).

    Parameters
    ----------
    pred:
        Predecessor CSR of the graph.
    count:
        Initial AND counter per node (usually the out-degree); copied.
    or_on, and_on:
        Per node (array) or for all nodes (scalar): the signal of a successor that makes the
        node join at once (OR), and the signal that decrements its counter (AND). ``NEVER``
        disables a trigger.
    or_emit, and_emit:
        The signal a node emits when it joins by OR, by AND.

    ``layer[x]`` is the layer at which ``x`` joined (-1 while it has not) and ``signal[x]`` the
    signal it emitted. ``run`` may be called several times (Kars' levels): the state persists.
    """

    def __init__(
        self,
        pred: Csr,
        count: NDArray[Any],
        *,
        or_on: NDArray[np.int8] | int,
        and_on: NDArray[np.int8] | int,
        or_emit: int,
        and_emit: int,
    ) -> None:
        n = pred.n
        self.pred = pred
        self.count = count.astype(np.int32, copy=True)
        self._or_arr, self._or_c = _trigger(or_on)
        self._and_arr, self._and_c = _trigger(and_on)
        self.or_emit = np.int8(or_emit)
        self.and_emit = np.int8(and_emit)
        self.layer = np.full(n, -1, dtype=np.int32)
        self.signal = np.zeros(n, dtype=np.int8)
        self.rounds = 0
        """Frontiers processed (numpy or scalar)."""
        self.scalar_rounds = 0
        self.edges = 0
        """Predecessor edges gathered."""
        self._stamp = np.zeros(n, dtype=np.int32)

    # ---------------------------------------------------------------- public
    def run(
        self,
        seeds: Index,
        seed_signal: int | NDArray[np.int8],
        layer0: int = 0,
        *,
        keep: bool = True,
    ) -> list[Index]:
        """Seed ``seeds`` at layer ``layer0`` and propagate until no node joins.

        Returns the frontiers (seeds first), each an array of node ids, or ``[]`` when
        ``keep`` is false; nodes already joined are dropped from ``seeds``.
        """
        seeds = np.asarray(seeds, dtype=np.int64)
        fresh = self.layer[seeds] < 0
        seeds = seeds[fresh]
        self.layer[seeds] = layer0
        if isinstance(seed_signal, np.ndarray):
            self.signal[seeds] = seed_signal[fresh]
        else:
            self.signal[seeds] = seed_signal
        out: list[Index | list[int]] | None = [] if keep else None
        frontier: Index | list[int] = seeds
        k = layer0
        while len(frontier):
            if len(frontier) <= SCALAR_FRONTIER:
                small = frontier if isinstance(frontier, list) else frontier.tolist()
                frontier, k = self._scalar_rounds(small, k, out)
                continue
            arr = np.asarray(frontier, dtype=np.int64)
            if out is not None:
                out.append(arr)
            self.rounds += 1
            frontier = self._step_numpy(arr, k + 1)
            k += 1
        return [np.asarray(f, dtype=np.int64) for f in out] if out is not None else []

    # ---------------------------------------------------------------- one layer
    def _unique(self, x: NDArray[Any]) -> Index:
        """The distinct entries of ``x`` in O(len(x)) (no sort): one survivor per value."""
        if len(x) <= 1:
            return x.astype(np.int64)
        pos = np.arange(len(x), dtype=np.int32)
        self._stamp[x] = pos
        out: Index = x[self._stamp[x] == pos].astype(np.int64)
        return out

    def _step_numpy(self, frontier: Index, nxt: int) -> Index:
        """One layer for a large frontier: gathers per signal, so that a constant trigger
        decides a whole gather at once (no per-edge signal array)."""
        joined: list[Index] | None = []
        ptr = self.pred.ptr
        total = int(ptr[frontier + 1].sum() - ptr[frontier].sum())
        if total * SCAN_FACTOR >= len(self.layer):
            # a big layer: skip per-chunk de-duplication, scan the layer array once at the end
            joined = None
        sig = self.signal[frontier]
        values = np.unique(sig)
        for sigma in values.tolist():
            part_all = frontier if len(values) == 1 else frontier[sig == sigma]
            for part in self._chunks(part_all, total):
                p, _ = gather(self.pred, part)
                self.edges += len(p)
                p = p[self.layer[p] < 0]
                if len(p) == 0:
                    continue
                or_hit = self._or_c == sigma if self._or_arr is None else self._or_arr[p] == sigma
                and_hit = self._and_c == sigma if self._and_arr is None else self._and_at(sigma)
                emit = (int(self.or_emit), int(self.and_emit))
                for j in settle(p, or_hit, and_hit, self.count, self.layer, self.signal, nxt, emit):
                    if len(j) and joined is not None:
                        joined.append(self._unique(j))
        if joined is None:
            return np.flatnonzero(self.layer == nxt)
        if not joined:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(joined)

    def _and_at(self, sigma: int) -> Callable[[NDArray[Any]], NDArray[np.bool_]]:
        """Which of the given nodes count down on signal ``sigma`` (per-node AND triggers)."""
        arr = self._and_arr
        assert arr is not None
        return lambda q: arr[q] == sigma

    def _chunks(self, frontier: Index, total: int) -> Iterator[Index]:
        """Pieces of ``frontier`` with about ``CHUNK_EDGES`` predecessor edges each
        (``total`` bounds the frontier's edges)."""
        if total <= CHUNK_EDGES:
            yield frontier
            return
        per = max(1, len(frontier) * CHUNK_EDGES // total)
        for i in range(0, len(frontier), per):
            yield frontier[i : i + per]

    def _scalar_rounds(
        self, frontier: list[int], k: int, out: list[Index | list[int]] | None
    ) -> tuple[list[int], int]:
        """The step of ``_step_numpy`` in plain Python, repeated while the frontier stays
        small (at most ``SCALAR_FRONTIER`` nodes); returns the next frontier and its layer."""
        layer, signal, count = self.layer, self.signal, self.count
        ptr, idx = self.pred.ptr, self.pred.idx
        or_arr, or_c = self._or_arr, self._or_c
        and_arr, and_c = self._and_arr, self._and_c
        or_emit, and_emit = self.or_emit, self.and_emit
        while frontier and len(frontier) <= SCALAR_FRONTIER:
            if out is not None:
                out.append(frontier)
            self.rounds += 1
            self.scalar_rounds += 1
            k += 1
            joined: list[int] = []
            for y in frontier:
                s = int(signal[y])
                preds = idx[ptr[y] : ptr[y + 1]].tolist()
                self.edges += len(preds)
                for p in preds:
                    if layer[p] >= 0:
                        continue
                    if (int(or_arr[p]) if or_arr is not None else or_c) == s:
                        layer[p] = k
                        signal[p] = or_emit
                        joined.append(p)
                    elif (int(and_arr[p]) if and_arr is not None else and_c) == s:
                        count[p] -= 1
                        if count[p] == 0:
                            layer[p] = k
                            signal[p] = and_emit
                            joined.append(p)
            frontier = joined
        return frontier, k


def attractor_propagation(
    pred: Csr, count: NDArray[Any], attacker: NDArray[np.bool_]
) -> Propagation:
    """A fresh propagation for an attractor: an ``attacker`` node joins when one successor has
    (OR), any other node when all have (AND, ``count`` = its successors); all emit ``IN``."""
    return Propagation(
        pred,
        count,
        or_on=np.where(attacker, IN, NEVER).astype(np.int8),
        and_on=np.where(attacker, NEVER, IN).astype(np.int8),
        or_emit=IN,
        and_emit=IN,
    )


def height_classes(pred: Csr, count: Index) -> tuple[Propagation, list[Index]]:
    """The nodes by height, one frontier per height (AND propagation, ``count`` = successors):
    nodes without successors at 0, a node joins when all its successors have, at 1 + their
    greatest height. Nodes on or above a cycle never join (``layer`` -1 in the propagation,
    returned for its layers and work counters)."""
    prop = Propagation(pred, count, or_on=NEVER, and_on=IN, or_emit=IN, and_emit=IN)
    return prop, prop.run(np.flatnonzero(count == 0), IN)
