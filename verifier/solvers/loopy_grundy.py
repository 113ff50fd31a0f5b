"""The generalized Sprague-Grundy function of loopy impartial games (C. A. B. Smith 1966;
A. S. Fraenkel and Y. Yesha 1986), on any finite graph, cycles and self-loops included.

A value is finite, or ``inf(K)`` where ``K`` is the set of finite values among the options. For
the player to move: ``0`` loses (P), finite ``> 0`` wins (N), ``inf(K)`` wins if ``0`` is in
``K`` (N) and is a draw otherwise (D).

The algorithm (Fraenkel & Yesha's labelling, as in Fraenkel's surveys), rounds ``i = 0, 1, ...``:

1. *Label i.* As long as some unlabelled ``u`` has no option labelled ``i`` and every option of
   ``u`` that is unlabelled or labelled ``inf`` has an option labelled ``i``, label ``u`` with
   ``i`` and give it the counter ``c(u) = m``, ``m <- m + 1``.
2. *Label inf.* Label ``inf`` every unlabelled ``u`` without an option labelled ``i``.
3. Stop when nothing is unlabelled; else ``i <- i + 1``.

Then ``K(u)`` is read off the options of each ``inf`` node. Step 1 is a retrograde propagation
(Knuth's counters): ``cnt[u]`` counts the options of ``u`` that are unlabelled or ``inf`` and do
not yet have an option labelled ``i``; when an option ``v`` gains one, every predecessor's counter
drops; ``u`` qualifies when its counter is 0 and no option of ``u`` is labelled ``i``. A node that
qualifies keeps qualifying (its unlabelled options all have an option labelled ``i``, so they
never get ``i``), hence the order of labelling does not matter. Each round is O(n + m); there are
at most (largest out-degree + 1) rounds.

The result satisfies Fraenkel's conditions, checked independently by :func:`gsg_violations`:

A. ``g(u)`` finite: ``g(u) = mex`` of the finite values of the options.
B. ``g(u)`` finite and an option ``v`` with ``g(v) > g(u)`` (``inf`` included): ``v`` has an
   option ``w`` with ``g(w) = g(u)`` and ``c(w) < c(u)``.
C. ``g(u) = inf``: some option ``v`` has ``g(v) = inf(K)`` with ``mex`` (of ``u``'s finite
   option values) not in ``K``.

A function satisfying A-C (for some counter) is unique (Smith; Fraenkel & Yesha), so passing the
check certifies the values.

Examples
--------
>>> g = GameGraph.from_successors({"a": ["b"], "b": ["a", "c"], "c": []},
...                               semantics=Semantics.IMPARTIAL)
>>> r = loopy_grundy(g)
>>> [render(r.value(x)) for x in range(3)]
['0', '1', '0']
>>> two_cycle = GameGraph.from_successors({"a": ["b"], "b": ["a"]},
...                                       semantics=Semantics.IMPARTIAL)
>>> [render(loopy_grundy(two_cycle).value(x)) for x in range(2)]
['inf', 'inf']
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import (
    Case,
    GameGraph,
    GrundyValue,
    IntArray,
    Semantics,
    SolverResult,
)
from verifier.model.columns import LOOPY, VALUE
from verifier.model.mex import mex
from verifier.model.results import View
from verifier.registry import Options, solver
from verifier.solvers._common import require_reference, timed

__all__ = [
    "DRAW",
    "INF",
    "LOSS",
    "WIN",
    "GValue",
    "LoopyGrundy",
    "encode",
    "gsg_bad_nodes",
    "gsg_violations",
    "loopy_grundy",
    "loopy_grundy_solver",
    "normal_view",
    "outcome_classes",
    "parse_value",
    "read_answer",
    "render",
]

INF = -1
"""Encoding of an infinite value in the ``values`` array (finite values are >= 0)."""
_UNLABELLED = -2

WIN, LOSS, DRAW = 1, -1, 0
"""Outcome classes from the mover's view: N, P, D (the codes of retrograde's won/lost/unknown)."""


@dataclass(frozen=True)
class GValue:
    """One generalized Sprague-Grundy value: ``finite`` (an int), or ``inf(K)`` with
    ``finite = None``."""

    finite: int | None
    k: frozenset[int] = frozenset()
    """``K``: the finite values among the options (only for infinite values)."""

    @property
    def is_finite(self) -> bool:
        return self.finite is not None

    @property
    def outcome(self) -> int:
        """``WIN`` (N), ``LOSS`` (P) or ``DRAW`` (D) for the player to move."""
        if self.finite is not None:
            return LOSS if self.finite == 0 else WIN
        return WIN if 0 in self.k else DRAW

    def __str__(self) -> str:
        return render(self)


def render(v: GValue) -> str:
    """``"3"``, ``"inf"`` (K empty) or ``"inf(0,2)"``."""
    if v.finite is not None:
        return str(v.finite)
    return "inf(" + ",".join(map(str, sorted(v.k))) + ")" if v.k else "inf"


_INF_TEXT = re.compile(r"^inf(?:\(([0-9,\s]*)\))?$")


def parse_value(v: GrundyValue) -> GValue:
    """The inverse of :func:`render`: ``3``, ``"3"``, ``"inf"``, ``"inf(0,2)"``."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return GValue(v)
    text = str(v).strip()
    if text.isdigit():
        return GValue(int(text))
    m = _INF_TEXT.match(text)
    if not m:
        raise ValueError(f"not a Grundy value (expected 3, 'inf' or 'inf(0,2)'): {v!r}")
    body = m.group(1) or ""
    return GValue(None, frozenset(int(p) for p in body.split(",") if p.strip()))


@dataclass(frozen=True, eq=False)
class LoopyGrundy:
    """The generalized Sprague-Grundy function of a graph."""

    values: IntArray
    """Finite values ``>= 0``; ``INF`` (-1) for infinite ones."""
    kset: dict[int, tuple[int, ...]]
    """``K`` (sorted) of every infinite node."""
    counter: IntArray
    """Fraenkel's counter ``c(u)``: the order in which finite values were assigned; -1 on
    infinite nodes."""
    rounds: int
    edges_scanned: int

    def value(self, x: int) -> GValue:
        v = int(self.values[x])
        return GValue(v) if v >= 0 else GValue(None, frozenset(self.kset[x]))


def loopy_grundy(g: GameGraph) -> LoopyGrundy:
    """Fraenkel & Yesha's labelling (see the module docstring); O((n + m) * rounds)."""
    n = g.n
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    pptr, pidx = g.pred_ptr.tolist(), g.pred_idx.tolist()
    label = [_UNLABELLED] * n
    counter = [-1] * n
    m = 0
    i = 0
    scanned = 0
    unlabelled = list(range(n))
    while unlabelled:
        # cnt[u]: options of u that are unlabelled or inf and have no option labelled i yet
        cnt = [0] * n
        for u in unlabelled:
            cnt[u] = sum(1 for v in idx[ptr[u] : ptr[u + 1]] if label[v] < 0)
            scanned += ptr[u + 1] - ptr[u]
        marked = [False] * n  # marked[v]: v has an option labelled i
        queue = deque(u for u in unlabelled if cnt[u] == 0)
        while queue:  # step 1: label i
            u = queue.popleft()
            if marked[u] or label[u] != _UNLABELLED:
                continue  # cannot happen (see the module docstring); kept as a guard
            label[u] = i
            counter[u] = m
            m += 1
            for v in pidx[pptr[u] : pptr[u + 1]]:
                scanned += 1
                if label[v] >= 0 or marked[v]:
                    continue
                marked[v] = True  # v (unlabelled or inf) now has an option labelled i
                for w in pidx[pptr[v] : pptr[v + 1]]:
                    scanned += 1
                    if label[w] == _UNLABELLED:
                        cnt[w] -= 1
                        if cnt[w] == 0 and not marked[w]:
                            queue.append(w)
        still: list[int] = []
        for u in unlabelled:  # step 2: inf for the unlabelled without an option labelled i
            if label[u] != _UNLABELLED:
                continue
            if marked[u]:
                still.append(u)
            else:
                label[u] = INF
        unlabelled = still
        i += 1
    kset = {
        u: tuple(sorted({label[v] for v in idx[ptr[u] : ptr[u + 1]] if label[v] >= 0}))
        for u in range(n)
        if label[u] == INF
    }
    return LoopyGrundy(
        values=np.array(label, dtype=np.int64),
        kset=kset,
        counter=np.array(counter, dtype=np.int64),
        rounds=i,
        edges_scanned=scanned,
    )


def read_answer(res: SolverResult) -> LoopyGrundy:
    """The labelling in a ``grundy-loopy`` answer, read back from its columns (the finite values
    and the K of the infinite ones) and the counter it reports."""
    cols = res.columns
    value = cols[VALUE]
    inf = cols.get(LOOPY)
    kset: dict[int, tuple[int, ...]] = {}
    if inf is not None:
        kset = {u: tuple(int(k) for k in inf.data[u]) for u in np.flatnonzero(inf.given).tolist()}
    counter = res.extra.get("counter", [-1] * len(value))
    return LoopyGrundy(
        values=np.where(value.given, value.data, INF).astype(np.int64),
        kset=kset,
        counter=np.asarray(counter, dtype=np.int64),
        rounds=int(res.extra.get("rounds", 0)),
        edges_scanned=0,
    )


def encode(values: Sequence[GValue]) -> IntArray:
    """Generalized values as ``LoopyGrundy.values`` holds them (``INF`` for infinite ones)."""
    return np.array([INF if v.finite is None else v.finite for v in values], dtype=np.int64)


def outcome_classes(values: IntArray, kset: dict[int, tuple[int, ...]]) -> NDArray[np.int8]:
    """Per node ``WIN`` (+1, N), ``LOSS`` (-1, P) or ``DRAW`` (0, D)."""
    out = np.where(values > 0, WIN, LOSS).astype(np.int8)
    for u, k in kset.items():
        out[u] = WIN if 0 in k else DRAW
    return out


def gsg_violations(
    g: GameGraph,
    values: IntArray,
    kset: dict[int, tuple[int, ...]],
    counter: IntArray,
    nodes: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Every violation of Fraenkel's conditions A, B, C (module docstring) and of the
    definition of ``K`` (at ``nodes`` only, if given); ``[]`` means the values are the
    generalized Sprague-Grundy function."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    val, cnt = values.tolist(), counter.tolist()
    bad: list[dict[str, Any]] = []
    for u in range(g.n) if nodes is None else nodes:
        opts = idx[ptr[u] : ptr[u + 1]]
        finite = {val[v] for v in opts if val[v] >= 0}
        mu = mex(finite)
        if val[u] >= 0:
            if val[u] != mu:
                bad.append({"node": g.name(u), "condition": "A", "value": val[u], "mex": mu})
                continue
            for v in opts:
                if (val[v] < 0 or val[v] > val[u]) and not any(
                    val[w] == val[u] and cnt[w] < cnt[u] for w in idx[ptr[v] : ptr[v + 1]]
                ):
                    bad.append({"node": g.name(u), "condition": "B", "option": g.name(v)})
                    break
        else:
            if tuple(sorted(finite)) != tuple(kset.get(u, ())):
                bad.append({"node": g.name(u), "condition": "K", "k": sorted(finite)})
                continue
            if not any(
                val[v] < 0 and all(val[w] != mu for w in idx[ptr[v] : ptr[v + 1]]) for v in opts
            ):
                bad.append({"node": g.name(u), "condition": "C", "mex": mu})
    return bad


def gsg_bad_nodes(
    g: GameGraph, values: IntArray, kset: dict[int, tuple[int, ...]], counter: IntArray
) -> IntArray:
    """The nodes :func:`gsg_violations` reports, in id order, vectorized over the edges
    (O(m log m), any size): sorted keys ``(node, finite option value)`` give each node's mex
    (the first rank whose value differs from it), its set of finite option values (``K``, C's
    test) and, per key, the least counter among those options (B's test).

    A value larger than the largest out-degree is never a mex: such values are clipped to
    ``max out-degree + 1`` (their node fails A, which is reported either way)."""
    n, val, cnt = g.n, np.asarray(values, dtype=np.int64), np.asarray(counter, dtype=np.int64)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    top = int(g.out_degree.max()) + 1
    width = top + 1
    src, dst = g.edge_src.astype(np.int64), g.succ_idx.astype(np.int64)
    clipped = np.minimum(val, top)
    fin = clipped[dst] >= 0
    keys = src[fin] * width + clipped[dst[fin]]
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    head = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else keys
    pairs = keys[head]  # sorted unique (node, finite option value)
    least = np.minimum.reduceat(cnt[dst[fin]][order], head) if len(keys) else keys
    pnode, pval = pairs // width, pairs % width
    rank = np.arange(len(pairs)) - np.searchsorted(pnode, pnode)
    mu = np.bincount(pnode, minlength=n).astype(np.int64)
    off = pval != rank
    np.minimum.at(mu, pnode[off], rank[off])

    def lookup(q: NDArray[np.int64]) -> tuple[NDArray[np.bool_], NDArray[np.intp]]:
        at = np.minimum(np.searchsorted(pairs, q), max(len(pairs) - 1, 0))
        found = pairs[at] == q if len(pairs) else np.zeros(len(q), dtype=np.bool_)
        return found, at

    finite, inf = val >= 0, val < 0
    bad_a = finite & (val != mu)
    need = finite[src] & ~bad_a[src] & ((val[dst] < 0) | (val[dst] > val[src]))
    found, at = lookup(dst[need] * width + clipped[src[need]])
    ok = found & (least[at] < cnt[src[need]]) if len(pairs) else found
    bad_b = np.zeros(n, dtype=np.bool_)
    bad_b[src[need][~ok]] = True
    bad_k = inf & _k_differs(n, width, top, inf, pairs[inf[pnode]], kset)
    edge = inf[src] & inf[dst]
    found, _ = lookup(dst[edge] * width + mu[src[edge]])
    has_c = np.zeros(n, dtype=np.bool_)
    has_c[src[edge][~found]] = True
    bad_c = inf & ~bad_k & ~has_c
    return np.flatnonzero(bad_a | bad_b | bad_k | bad_c).astype(np.int64)


def _k_differs(
    n: int,
    width: int,
    top: int,
    inf: NDArray[np.bool_],
    real: NDArray[np.int64],
    kset: dict[int, tuple[int, ...]],
) -> NDArray[np.bool_]:
    """Per node: the claimed ``K`` is not the sorted tuple of the keys ``real`` (node, finite
    option value) of the infinite nodes (a claim that is not strictly increasing differs)."""
    out = np.zeros(n, dtype=np.bool_)
    rows = [(u, k) for u, k in kset.items() if 0 <= u < n and inf[u]]
    lens = np.array([len(k) for _, k in rows], dtype=np.int64)
    nodes = np.repeat(np.array([u for u, _ in rows], dtype=np.int64), lens)
    flat = np.fromiter((v for _, k in rows for v in k), dtype=np.int64, count=int(lens.sum()))
    claim = nodes * width + np.clip(flat, -1, top)
    unsorted = np.r_[np.diff(claim) <= 0, False] & (np.r_[nodes[1:], -1] == nodes)
    out[nodes[unsorted | (flat < 0)]] = True
    out[np.setxor1d(claim[flat >= 0], real) // width] = True
    return out


def _moves(g: GameGraph, classes: NDArray[np.int8], counter: IntArray) -> IntArray:
    """N: the option in P of least counter; D: the first option in D (keeps the draw); P: -1.

    Any move from N to P keeps the win, but on a cycle "some P option" can go round for ever
    (``a -> b``, ``b -> {a, t}``: ``b -> a -> b ...`` is a draw). By Fraenkel's condition B
    every option of a P position ``u`` has a P option of counter below ``c(u)``, so the P
    positions met by the least-counter moves have strictly decreasing counters: play ends, and
    the opponent is the one who cannot move."""
    ptr, idx = g.succ_ptr.tolist(), g.succ_idx.tolist()
    cls, cnt = classes.tolist(), counter.tolist()
    move = [-1] * g.n
    for u in range(g.n):
        opts = idx[ptr[u] : ptr[u + 1]]
        if cls[u] == WIN:
            move[u] = min((v for v in opts if cls[v] == LOSS), key=cnt.__getitem__, default=-1)
        elif cls[u] == DRAW:
            move[u] = next((v for v in opts if cls[v] == DRAW), -1)
    return np.array(move, dtype=np.int64)


@solver("grundy-loopy", [Semantics.IMPARTIAL], order=20)
def loopy_grundy_solver(case: Case, options: Options) -> SolverResult:
    """Registered solver (view GRUNDY): finite values, ``INF`` = -1 with ``loopy`` = {node id:
    K}, and in ``extra``: ``counter``, ``rounds``, ``draws``."""
    g = require_reference(case, options, Semantics.IMPARTIAL, linear=True)
    r, seconds = timed(lambda: loopy_grundy(g))
    classes = outcome_classes(r.values, r.kset)
    return loopy_result(
        "grundy-loopy",
        g,
        r.values,
        r.kset,
        r.counter,
        classes,
        _moves(g, classes, r.counter),
        seconds,
        rounds=r.rounds,
        edges_scanned=r.edges_scanned,
    )


def loopy_result(
    name: str,
    g: GameGraph,
    values: IntArray,
    kset: Mapping[int, Iterable[int]],
    counter: IntArray,
    classes: NDArray[np.int8],
    move: IntArray,
    seconds: float,
    *,
    rounds: int,
    edges_scanned: int,
) -> SolverResult:
    """A generalized Sprague-Grundy labelling as solver ``name``'s answer (view GRUNDY): the
    finite values, ``INF`` = -1 with ``loopy`` = {node id: K}, and in ``extra`` the counter,
    the rounds and the number of draws (shared by the reference and the compiled solver)."""
    return SolverResult(
        solver=name,
        view=View.GRUNDY,
        values=values,
        seconds=seconds,
        move=move,
        work={"rounds": rounds, "edges_scanned": edges_scanned, "nodes": g.n},
        loopy={int(u): tuple(sorted(int(x) for x in k)) for u, k in kset.items()},
        extra={"counter": counter, "rounds": rounds, "draws": int(np.sum(classes == DRAW))},
    )


def normal_view(g: GameGraph) -> GameGraph:
    """The same moves as a ``normal`` game: every terminal is lost for the mover."""
    value = np.where(g.is_terminal, -1.0, np.nan)
    return g.replace(semantics=Semantics.NORMAL, value=value, owner=np.full(g.n, -1, np.int8))
