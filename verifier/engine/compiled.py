"""The engine's compiled kernels (numba): the seeds' FIFO queue itself, as machine code.

The numpy engine (``verifier.engine.frontier``) moves whole frontiers with vectorized gathers and
scatters; numpy cannot fuse them, so it spends 40-50 ns per edge in temporary arrays. Here the
same algorithms run as the seeds state them, one queue entry at a time, in loops numba compiles
(``verifier.engine._kernels``): retrograde analysis with remoteness and moves (Knuth, TAOCP
2.2.3 ex. 28), attractors with layers and strategies (ICO notes), Kars' score of every node
(nested threshold attractors, proved in ``verifier.engine.kars``), Grundy values of acyclic
graphs (Sprague-Grundy) and the generalized Sprague-Grundy function of loopy impartial graphs
(Fraenkel and Yesha's labelling, ``verifier.solvers.loopy_grundy``). They are a third
implementation beside the pure-Python references and the numpy frontiers, and are compared with
both, node by node, in the tests and (``--engine auto``) in every verify.

The predecessor CSR is built by a two-pass bucket transposition and the optimal moves by a
first-match pass, both split over the threads; the queue is sequential. numba is imported on
first use (``warm_up``: about half a second and 100 MB once per process); ``available()`` says
whether it is installed.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.engine.attractor import attacker_mask, attractor_move_keys
from verifier.engine.frontier import Csr, row_chunks, successor_csr
from verifier.engine.kars import kars_moves_numpy, leaf_levels, side_roles, validate_minimax
from verifier.errors import CycleError
from verifier.model.bounds import INT32_MAX
from verifier.model.describe import PerSemantics
from verifier.model.graph import GameGraph
from verifier.model.results import AttractorResult, RetrogradeResult
from verifier.model.semantics import MAX, Semantics
from verifier.model.topology import find_cycle

__all__ = [
    "CompiledAttractor",
    "CompiledGrundy",
    "CompiledKars",
    "CompiledLoopy",
    "CompiledRetrograde",
    "attractor_compiled",
    "available",
    "first_match_compiled",
    "grundy_compiled",
    "kars_compiled",
    "loopy_grundy_compiled",
    "predecessor_csr_compiled",
    "retrograde_compiled",
    "warm_up",
]


@cache
def available() -> bool:
    """Is numba installed (so that the compiled kernels can run)?"""
    return importlib.util.find_spec("numba") is not None


@cache
def _k() -> ModuleType:
    """The kernels module (imports numba; compiles or loads the kernels from the cache).

    OpenMP's worker threads sleep between parallel loops unless the user says otherwise: by
    default they spin, which on a 2-core machine takes the core the sequential queue needs
    (measured: 4x slower on a loaded machine, and CPU time counted twice).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from verifier.engine import _kernels

    return _kernels


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


@dataclass(frozen=True, eq=False)
class CompiledRetrograde(RetrogradeResult):
    """Labels, remoteness and optimal moves of a ``normal`` game graph, and the layers."""

    layers: int


@dataclass(frozen=True, eq=False)
class CompiledAttractor(AttractorResult):
    """Player 0's winning region with layers and strategies, and the layers."""

    layers: int


@dataclass(frozen=True, eq=False)
class CompiledGrundy:
    """Grundy value and height of every node of an acyclic graph."""

    value: NDArray[np.int64]
    height: NDArray[np.int64]
    """Length of the longest play from x (0 at positions without moves)."""
    edges_scanned: int


@dataclass(frozen=True, eq=False)
class CompiledKars:
    """Kars' score of every node, the remoteness if asked for, and the work done."""

    score: NDArray[np.float64]
    """s(x) of Def. 4.1 (draw = 0)."""
    remoteness: NDArray[np.int64] | None
    """For s(x) != 0 the length of optimal play, -1 where s(x) = 0 (as
    ``verifier.engine.kars.EngineKars.remoteness``); None unless asked for."""
    move: NDArray[np.int64] | None
    """An optimal successor (the rule of ``EngineKars.move``); None unless asked for."""
    levels: int
    edges_scanned: int


@dataclass(frozen=True, eq=False)
class CompiledLoopy:
    """The generalized Sprague-Grundy function of a graph, as ``loopy_grundy`` gives it."""

    value: NDArray[np.int64]
    """Finite values ``>= 0``; -1 (``INF``) for infinite ones."""
    kptr: NDArray[np.int64]
    kval: NDArray[np.int64]
    """``K`` of node ``u`` (sorted): ``kval[kptr[u]:kptr[u + 1]]``; empty rows on finite nodes."""
    counter: NDArray[np.int64]
    """Fraenkel's counter ``c(u)`` (the order of the finite labels); -1 on infinite nodes."""
    rounds: int
    edges_scanned: int

    def kset(self) -> dict[int, tuple[int, ...]]:
        """``{node: K}`` over the infinite nodes (the ``loopy`` field of a ``SolverResult``)."""
        ptr, val = self.kptr.tolist(), self.kval.tolist()
        return {u: tuple(val[ptr[u] : ptr[u + 1]]) for u in np.flatnonzero(self.value < 0).tolist()}

    def zero_in_k(self) -> NDArray[np.bool_]:
        """Per node: ``0`` is in ``K`` (K is sorted, so it would come first)."""
        row = self.kptr[:-1]
        first = self.kval[np.minimum(row, max(len(self.kval) - 1, 0))] if len(self.kval) else row
        out: NDArray[np.bool_] = (self.kptr[1:] > row) & (first == 0)
        return out


def _csr(g: GameGraph) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """The successor CSR with compact indices, shared with the numpy engine (cached per graph)."""
    c = successor_csr(g)
    return c.ptr, c.idx


def predecessor_csr_compiled(g: GameGraph) -> Csr:
    """The predecessor CSR of ``g`` (predecessors of each node in increasing id order), by the
    compiled two-pass bucket transposition: O(n + m), not cached."""
    ptr, idx = _csr(g)
    pptr, pidx = _transpose(ptr, idx)
    return Csr(pptr.astype(np.int64), pidx)


def _transpose(ptr: NDArray[np.int64], idx: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """``(pptr, pidx)``: ``pidx`` of ``idx``'s dtype, ``pptr`` too when ``m`` fits (int32:
    half the cache footprint)."""
    k = _k()
    n, m = len(ptr) - 1, len(idx)
    start, src, low = k.bucket_scatter(ptr, idx, _threads())
    pptr = np.empty(n + 1, dtype=idx.dtype if m < INT32_MAX else np.int64)
    pptr[n] = m
    pidx = np.empty(m, dtype=idx.dtype)
    k.bucket_sort(start, src, low, pptr, pidx)
    return pptr, pidx


def _state_dtype(n: int, m: int) -> type[np.signedinteger[Any]]:
    """``st`` holds counters up to the out-degree and codes down to ``-1 - 2n``."""
    return np.int32 if max(2 * n + 2, m) < INT32_MAX else np.int64


def _run(
    pred: tuple[NDArray[Any], NDArray[Any]],
    st: NDArray[Any],
    queue: NDArray[Any],
    tail: int,
    alternate: bool,
) -> tuple[int, int]:
    """Propagate from the queue ``queue[:tail]`` (entries ``y`` / ``~y``); afterwards ``st``
    holds ``2 * layer + bit`` on joined nodes and -1 elsewhere. Returns ``(edges, layers)``."""
    _, edges, layers = _k().propagate(*pred, st, queue, 0, tail, alternate)
    _k().joined_codes(st)
    return int(edges), int(layers)


def retrograde_compiled(g: GameGraph) -> CompiledRetrograde:
    """Label every position of a ``normal`` graph won / lost / unknown, by the compiled queue.

    Won and lost terminals seed the queue at layer 0 (lost ones with the OR-signal "a lost
    successor makes you won", won ones with the AND-signal "one more won successor"); a node
    joining by OR is won and sends the AND-signal, one joining by AND is lost and sends the
    OR-signal. ``code = 2 * remoteness + [lost]`` is then the key the optimal moves match.

    >>> g = GameGraph.from_successors({"a": ["b"], "b": ["c"], "c": []},
    ...                               semantics=Semantics.NORMAL)
    >>> r = retrograde_compiled(g)
    >>> r.label.tolist(), r.remoteness.tolist(), r.move.tolist()
    ([-1, 1, -1], [2, 1, 0], [1, 2, -1])
    """
    g.expect_semantics(Semantics.NORMAL)
    ptr, idx = _csr(g)
    pred = _transpose(ptr, idx)
    st = np.empty(g.n, dtype=_state_dtype(g.n, g.m))
    queue = np.empty(g.n, dtype=st.dtype)
    tail = _k().retrograde_start(ptr, g.value, st, queue)  # layer 0: the decided terminals
    edges, layers = _run(pred, st, queue, tail, alternate=True)
    del pred, queue
    code = st  # 2 * remoteness + [lost] on decided nodes
    label = np.empty(g.n, dtype=np.int8)
    rem = np.empty(g.n, dtype=np.int64)
    want = np.empty_like(code)
    _k().retrograde_keys(ptr, code, label, rem, want)
    move = _k().first_match(ptr, idx, want, code)
    return CompiledRetrograde(
        label=label, remoteness=rem, move=move, edges_scanned=edges, layers=layers
    )


def attractor_compiled(g: GameGraph) -> CompiledAttractor:
    """Solve a ``reachability`` game: player 0's attractor of the targets, by the compiled queue.

    A player-0 node is an AND node whose counter starts at 1 (one successor in W suffices), a
    player-1 node's counter is its number of moves (all must lead into W), a non-target dead end
    never joins; the targets seed the queue at layer 0.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["a"], "c": []},
    ...     semantics=Semantics.REACHABILITY, owner={"a": 0, "b": 1}, target=["c"])
    >>> r = attractor_compiled(g)
    >>> r.win.tolist(), r.layer.tolist(), r.move.tolist()
    ([True, True, True], [1, 2, 0], [2, -1, -1])
    """
    g.expect_semantics(Semantics.REACHABILITY)
    attacker = attacker_mask(g)
    ptr, idx = _csr(g)
    pred = _transpose(ptr, idx)
    st = g.out_degree.astype(_state_dtype(g.n, g.m))
    st[attacker & (st > 0)] = 1
    seeds = np.flatnonzero(g.target)
    st[seeds] = -1  # joined at layer 0 (code 0)
    queue = np.empty(g.n, dtype=st.dtype)
    queue[: len(seeds)] = seeds
    edges, layers = _run(pred, st, queue, len(seeds), alternate=False)
    del pred, queue
    code = st
    layer = np.where(code >= 0, code >> 1, -1).astype(np.int64)
    want = attractor_move_keys(layer, attacker, g.target)
    move = _k().first_match(ptr, idx, want, layer)
    return CompiledAttractor(
        win=layer >= 0, layer=layer, move=move, edges_scanned=edges, layers=layers
    )


def _side_state(g: GameGraph, winner_is_max: bool, dtype: type[np.signedinteger[Any]]) -> Any:
    """Counters of one side's attractors: the winner's nodes need one successor in (counter 1,
    an OR node), the other player's all of them (counter = out-degree); leaves 0 until seeded."""
    st = g.out_degree.astype(dtype)
    st[side_roles(g, winner_is_max) & (st > 0)] = 1
    return st


def kars_compiled(g: GameGraph, *, moves: bool = False) -> CompiledKars:
    """Kars' score of every node of a ``minimax`` graph by the compiled queue, one pass per side.

    ``verifier.engine.kars`` proves that ``s(x) >= c > 0`` iff ``x`` is in Max's attractor of the
    leaves with ``t >= c`` and that the attractors are nested, so one queue serves all
    thresholds: seed the leaves of the largest positive value, run the queue dry (every node that
    joined scores that value), seed the next value's leaves with the counters as they are, and so
    on; Min's side is the mirror image. ``moves``: one more queue run on the score-keeping
    moves gives the remoteness (``_kars_remoteness``), O(n + m); the optimal moves then follow
    by the numpy engine's rule (``kars_moves_numpy``).

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "c": ["d", "a"]},
    ...     semantics=Semantics.MINIMAX, owner={"a": 0, "c": 1},
    ...     value={"b": -1.0, "d": 2.0})
    >>> kars_compiled(g).score.tolist()
    [0.0, 0.0, -1.0, 2.0]
    """
    validate_minimax(g)
    ptr, idx = _csr(g)
    pred = _transpose(ptr, idx)
    dt = _state_dtype(g.n, g.m)
    score = np.zeros(g.n, dtype=np.float64)
    queue = np.empty(g.n, dtype=dt)
    edges = levels = 0
    for winner_is_max in (True, False):
        st = _side_state(g, winner_is_max, dt)
        tail = 0
        for c, leaves in leaf_levels(g, winner_is_max):
            head = tail
            st[leaves] = -1  # joined at layer 0
            tail = head + len(leaves)
            queue[head:tail] = leaves
            tail, e, _ = _k().propagate(*pred, st, queue, head, tail, False)
            score[queue[head:tail]] = c  # everything that joined from this value's leaves
            edges += int(e)
            levels += 1
    rem = move = None
    if moves:
        rem = _kars_remoteness(g, score, ptr, idx, dt)
        move = kars_moves_numpy(g, score, rem)
    return CompiledKars(score=score, remoteness=rem, move=move, levels=levels, edges_scanned=edges)


def _kars_remoteness(
    g: GameGraph,
    score: NDArray[np.float64],
    ptr: NDArray[np.int64],
    idx: NDArray[Any],
    dt: type[np.signedinteger[Any]],
) -> NDArray[np.int64]:
    """The length of optimal play (issue 28 item 4) by one queue run on the score-keeping moves
    (x -> y with s(x) = s(y) != 0): the successor rows filtered, then transposed by the bucket
    sort; the side ahead (Max at s > 0, Min at s < 0) needs one score-keeping successor in
    (counter 1), the side behind all of them (counter = their number); the leaves of score != 0
    seed the queue at layer 0. -1 where s(x) = 0."""
    n = g.n
    keep = np.zeros(len(idx), dtype=np.bool_)
    count = np.zeros(n, dtype=np.int64)
    for c in row_chunks(Csr(ptr, idx)):
        a = int(ptr[c.u])
        sx = np.repeat(score[c.u : c.v], c.deg)
        k = (score[c.dst] == sx) & (sx != 0)
        keep[a : a + len(k)] = k
        count[c.u + c.rows] = np.add.reduceat(k.astype(np.int64), c.starts)
    kptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count, out=kptr[1:])
    pred = _transpose(kptr, idx[keep])
    st = count.astype(dt)
    ahead = ~g.is_terminal & ((score > 0) == (g.owner == MAX)) & (st > 0)
    st[ahead] = 1
    seeds = np.flatnonzero(g.is_terminal & (score != 0))
    st[seeds] = -1  # joined at layer 0
    queue = np.empty(n, dtype=dt)
    queue[: len(seeds)] = seeds
    _run(pred, st, queue, len(seeds), alternate=False)
    return np.where((score != 0) & (st >= 0), st >> 1, -1).astype(np.int64)  # code 2 * layer


def grundy_compiled(g: GameGraph) -> CompiledGrundy:
    """Grundy values ``G(x) = mex{G(y) : x -> y}`` of an acyclic graph, by the compiled queue.

    Every node is an AND node (it joins when all of its successors have), the positions without
    moves seed the queue, so the queue lists the nodes children first and its layers are the
    heights; one pass along it takes the mexes. Nodes left out lie on or above a cycle:
    ``CycleError`` names one cycle.

    >>> g = GameGraph.from_successors({"a": ["b", "c"], "b": ["c"], "c": []},
    ...                               semantics=Semantics.IMPARTIAL)
    >>> grundy_compiled(g).value.tolist()
    [2, 1, 0]
    """
    ptr, idx = _csr(g)
    pred = _transpose(ptr, idx)
    st = g.out_degree.astype(_state_dtype(g.n, g.m))
    seeds = np.flatnonzero(st == 0)
    st[seeds] = -1  # height 0
    queue = np.empty(g.n, dtype=st.dtype)
    queue[: len(seeds)] = seeds
    tail, edges, _ = _k().propagate(*pred, st, queue, 0, len(seeds), False)
    del pred
    if tail < g.n:
        _k().joined_codes(st)
        cycle = find_cycle(g, np.flatnonzero(st < 0))
        raise CycleError([g.name(i) for i in cycle])
    value = np.zeros(g.n, dtype=np.int64)
    _k().mex_in_order(ptr, idx, queue, value)
    _k().joined_codes(st)
    height = (st >> 1).astype(np.int64)
    return CompiledGrundy(value=value, height=height, edges_scanned=int(edges))


def loopy_grundy_compiled(g: GameGraph) -> CompiledLoopy:
    """The generalized Sprague-Grundy function (finite values and ``inf(K)``) of any graph,
    cycles included, by Fraenkel and Yesha's labelling compiled: the same rounds, queue order
    and counter as ``verifier.solvers.loopy_grundy.loopy_grundy``, O((n + m) * rounds).

    >>> g = GameGraph.from_successors({"u": ["v"], "v": ["u"], "w": ["u", "t"], "t": []},
    ...                               semantics=Semantics.IMPARTIAL)
    >>> r = loopy_grundy_compiled(g)
    >>> r.value.tolist(), r.kset()
    ([-1, -1, -1, 0], {0: (), 1: (), 2: (0,)})
    """
    ptr, idx = _csr(g)
    pptr, pidx = _transpose(ptr, idx)
    value = np.empty(g.n, dtype=np.int64)
    counter = np.empty(g.n, dtype=np.int64)
    rounds, edges = _k().loopy_labels(ptr, idx, pptr, pidx, value, counter)
    del pptr, pidx
    kptr, kval = _k().loopy_ksets(ptr, idx, value)
    return CompiledLoopy(
        value=value,
        kptr=kptr,
        kval=kval,
        counter=counter,
        rounds=int(rounds),
        edges_scanned=int(edges),
    )


def first_match_compiled(g: GameGraph, want: NDArray[Any], code: NDArray[Any]) -> NDArray[Any]:
    """For every node its first successor ``y`` with ``code[y] == want[x]``, else -1."""
    ptr, idx = _csr(g)
    out: NDArray[Any] = _k().first_match(ptr, idx, want, code)
    return out


_WARM: PerSemantics[Callable[[], None]] = PerSemantics("warm-up")
"""The warm-up of each semantics' compiled kernels (solving a tiny game)."""


@_WARM.register(Semantics.NORMAL)
def _warm_normal() -> None:
    retrograde_compiled(GameGraph.from_edges(2, [0], [1], semantics=Semantics.NORMAL))


@_WARM.register(Semantics.REACHABILITY)
def _warm_reachability() -> None:
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.REACHABILITY, owner=[0, -1])
    attractor_compiled(g)


@_WARM.register(Semantics.MINIMAX)
def _warm_minimax() -> None:
    g = GameGraph.from_edges(2, [0], [1], semantics=Semantics.MINIMAX, owner=[0, -1], value=[0, 1])
    kars_compiled(g, moves=True)


@_WARM.register(Semantics.IMPARTIAL)
def _warm_impartial() -> None:
    grundy_compiled(GameGraph.from_edges(2, [0], [1], semantics=Semantics.IMPARTIAL))
    loopy_grundy_compiled(GameGraph.from_edges(2, [0, 1], [1, 0], semantics=Semantics.IMPARTIAL))


@cache
def warm_up(semantics: Semantics | None = None) -> None:
    """Import numba, load the kernels of ``semantics``' solvers (``None``: of all four;
    compiling them on first use after installation) and start the threads, by solving tiny
    games; once per process and semantics. Loading a kernel from numba's cache costs about 35
    ms, so a run pays only for the kernels its games use (the checks load theirs on first
    call)."""
    for sem, warm in _WARM.items():
        if semantics is None or sem is semantics:
            warm()
