"""Shared plumbing of the Z3 checks: solver answers, witnesses, chunked queries, SCC order.

Large queries are split into batches of about ``BATCH_EDGES`` edges so that Z3's memory stays
bounded; a batch of a *pin* query (a given solution must satisfy the equations) may be any set of
nodes, because each node's equation only reads pinned values. Batches of *universal* queries
("no solution does X") follow a reverse topological order of the strongly connected components,
so that the successors outside a batch were proved in earlier batches (see ``docs/smt.md``).

The batches of a query run on Z3 two at a time (``cnf.submit``) while the next one is built, and
their answers are read in order, so the outcome is the sequential one. Facts Z3 proved are
remembered per equation system (its digest), so that checks sharing them do not pay twice:
``pin_check`` skips every equation instance (a node, its value and its successors' values) that
an earlier pin already confirmed, and ``remember`` / ``recall`` keep larger facts (the solution
intervals of ``smt-uniqueness``, reused by ``smt-kars-least``). ``forget`` clears them.
"""

from __future__ import annotations

import functools
import hashlib
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verifier.engine.scc import condensation
from verifier.equations.fixpoints import gather
from verifier.equations.system import OrderSystem
from verifier.model.columns import MOVE, REMOTENESS, VALUE, Column, same_entries
from verifier.model.graph import GameGraph, IntArray
from verifier.model.results import CheckResult, Verdict, View
from verifier.model.topology import culprit, find_cycle
from verifier.registry import CheckContext, Options
from verifier.smt import cnf as cnf_mod
from verifier.smt.cnf import Pending, SatOutcome, SatStatus, submit
from verifier.smt.encode import Encoding

__all__ = [
    "BATCH_EDGES",
    "NONE",
    "Answer",
    "BatchResult",
    "answers",
    "batches",
    "component_order",
    "culprit",
    "cycle_within",
    "forget",
    "names_of",
    "node_witness",
    "pin_check",
    "proven_equations",
    "recall",
    "refuted_at",
    "remember",
    "result",
    "run_batches",
    "screen",
    "successors_of",
    "system_digest",
    "with_sentinel",
]

P = TypeVar("P")

BATCH_EDGES = 2_000_000
"""About this many edges (equations' literals) per Z3 query."""


NONE = -1
"""The "no entry" of the integer arrays the algorithms and certificate checkers read."""


def with_sentinel(col: Column) -> IntArray:
    """An integer column as the algorithms read it: its entries, ``NONE`` (-1) where not given."""
    return np.where(col.given, col.data, NONE).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Answer:
    """One distinct answer among the solvers of a view (solvers that agree share it): their
    masked columns (``verifier.model.columns``)."""

    solvers: tuple[str, ...]
    columns: Mapping[str, Column]

    @classmethod
    def of(
        cls,
        solvers: tuple[str, ...],
        values: ArrayLike,
        covered: ArrayLike,
        remoteness: IntArray | None = None,
        move: IntArray | None = None,
    ) -> Answer:
        """An answer from arrays as a solver gives them (-1 = none in ``remoteness``/``move``)."""
        cov = np.asarray(covered, dtype=np.bool_)
        cols = {VALUE: Column.where(values, cov)}
        for name, a in ((REMOTENESS, remoteness), (MOVE, move)):
            if a is not None:
                cols[name] = Column.where(a, cov & (a >= 0))
        return cls(tuple(solvers), MappingProxyType(cols))

    @property
    def label(self) -> str:
        """The solvers of the answer, joined by ``+``."""
        return "+".join(self.solvers)

    @property
    def values(self) -> NDArray[Any]:
        """The value column's data (meaningful on ``covered`` only)."""
        return self.columns[VALUE].data

    @property
    def covered(self) -> NDArray[np.bool_]:
        """Where the answer gives a value."""
        return self.columns[VALUE].given

    def array(self, name: str) -> IntArray | None:
        """Integer column ``name`` as the algorithms read it (``with_sentinel``), if given."""
        col = self.columns.get(name)
        return None if col is None else with_sentinel(col)

    @property
    def ranks(self) -> IntArray | None:
        """The remoteness column (the ranks of the certificates), -1 where not given."""
        return self.array(REMOTENESS)

    @property
    def moves(self) -> IntArray | None:
        """The optimal-move column, -1 where not given."""
        return self.array(MOVE)


def answers(ctx: CheckContext, view: View) -> list[Answer]:
    """The distinct answers of the given view in ``ctx.results`` (solvers in order of names)."""
    groups: list[tuple[list[str], Mapping[str, Column]]] = []
    for name in sorted(ctx.results):
        r = ctx.results[name]
        if r.view is not view:
            continue
        cols = r.columns
        for names, first in groups:
            if _same(first, cols):
                names.append(name)
                break
        else:
            groups.append(([name], cols))
    return [Answer(tuple(names), cols) for names, cols in groups]


def _same(a: Mapping[str, Column], b: Mapping[str, Column]) -> bool:
    """The same columns, equal entry by entry: exactly (the first solver's is the one proved)."""
    return a.keys() == b.keys() and all(bool(same_entries(a[k], b[k]).all()) for k in a)


def node_witness(g: GameGraph, i: int, reason: str, **more: Any) -> dict[str, Any]:
    """A witness naming node ``i`` (JSON-serialisable)."""
    return {"node": g.name(int(i)), "id": int(i), "reason": reason, **more}


def names_of(g: GameGraph, ids: IntArray, limit: int = 20, first: int | None = None) -> list[str]:
    """Names of up to ``limit`` nodes (``first`` leading, when given)."""
    order = [int(i) for i in ids]
    if first is not None and first in order:
        order.remove(first)
        order.insert(0, first)
    return [g.name(i) for i in order[:limit]]


def result(
    name: str,
    verdict: Verdict,
    detail: str,
    t0: float,
    witness: dict[str, Any] | None = None,
    **data: Any,
) -> CheckResult:
    return CheckResult(name, verdict, detail, witness, seconds=time.perf_counter() - t0, data=data)


def screen(
    name: str,
    sys: OrderSystem,
    ans: Answer,
    t0: float,
    *,
    partial: str | None,
    bad: str,
    reason: str,
) -> tuple[IntArray, CheckResult | None]:
    """The answer as value indices, and the result that ends check ``name`` early, if any:
    ``UNKNOWN`` on a partial answer (``partial`` says so; ``None``: a partial answer is judged
    on the nodes it covers), else ``REFUTED`` at the first covered node whose value is not in
    the value set (``bad`` formats the detail with ``{node}``, the node's name; ``reason`` is
    the witness's)."""
    g = sys.graph
    idx, wrong = sys.to_index(ans.values)
    if partial is not None and not ans.covered.all():
        return idx, result(name, Verdict.UNKNOWN, f"{ans.label}: {partial}", t0)
    wrong &= ans.covered
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        return idx, result(
            name,
            Verdict.REFUTED,
            f"{ans.label}: " + bad.format(node=g.name(i)),
            t0,
            node_witness(g, i, reason, value=float(ans.values[i])),
        )
    return idx, None


def refuted_at(
    name: str, g: GameGraph, ans: Answer, t0: float, i: int, why: str, **more: Any
) -> CheckResult:
    """Check ``name`` refutes answer ``ans`` at node ``i``: ``why`` in the detail and in the
    witness (with ``more``)."""
    return result(
        name,
        Verdict.REFUTED,
        f"{ans.label}: {why} at {g.name(i)!r}",
        t0,
        node_witness(g, i, why, **more),
        solvers=list(ans.solvers),
    )


def successors_of(g: GameGraph, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Mask of the successors of the nodes of ``mask``."""
    out = np.zeros(g.n, dtype=np.bool_)
    out[gather(g.succ_ptr, g.succ_idx, np.flatnonzero(mask))] = True
    return out


def predecessors_of(g: GameGraph, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    out = np.zeros(g.n, dtype=np.bool_)
    out[gather(g.pred_ptr, g.pred_idx, np.flatnonzero(mask))] = True
    return out


@functools.lru_cache(maxsize=4)
def component_order(g: GameGraph) -> tuple[IntArray, IntArray, NDArray[np.bool_]]:
    """SCC labels, each node's component position in a reverse topological order (sinks
    first), and the mask of cyclic components' nodes (size > 1 or a self-loop).

    Cached for the last few graphs (several checks of one case need it)."""
    c = condensation(g)  # components by height, sinks first; ties by component id
    rank = np.empty(c.count, dtype=np.int64)
    rank[np.argsort(c.height, kind="stable")] = np.arange(c.count, dtype=np.int64)
    out = (c.label, rank[c.label], c.cyclic[c.label])
    for a in out:
        a.flags.writeable = False  # shared through the cache
    return out


def batches(
    g: GameGraph,
    nodes: IntArray,
    key: IntArray | None = None,
    limit: int = BATCH_EDGES,
    weight: IntArray | None = None,
) -> Iterator[IntArray]:
    """Split ``nodes`` into runs of about ``limit`` edges (or of ``weight``, per node), never
    splitting equal ``key``s."""
    if key is not None:
        nodes = nodes[np.argsort(key[nodes], kind="stable")]
    cost = np.cumsum((g.out_degree + 1 if weight is None else weight)[nodes])
    start = 0
    while start < len(nodes):
        base = cost[start - 1] if start else 0
        end = int(np.searchsorted(cost, base + limit, side="right"))
        end = max(end, start + 1)
        if key is not None:  # extend to the end of the last component
            kk = key[nodes]
            end = int(np.searchsorted(kk, kk[end - 1], side="right"))
        yield nodes[start:end]
        start = end


@dataclass(frozen=True)
class BatchResult:
    status: SatStatus
    """``SAT`` if some batch was sat (the first one is reported), ``UNKNOWN`` if some batch was
    unknown and none sat, ``UNSAT`` if all were unsat."""
    reason: str = ""
    batch: Any = None
    """The batch (part) that decided, when one did."""
    outcome: SatOutcome | None = None
    queries: int = 0
    seconds: float = 0.0


def run_batches(
    parts: Sequence[P],
    query: Callable[[P], SatOutcome | Pending],
    options: Options,
    task: str,
    stop_on: SatStatus = SatStatus.SAT,
) -> BatchResult:
    """Run one query per batch; stop at the first batch with status ``stop_on``.

    A query may return a ``Pending`` (``cnf.submit``): up to ``Z3_JOBS`` batches are then in
    Z3 at once while the next is built. Answers are read in batch order and the first batch
    with status ``stop_on`` decides, exactly as if they had run one after the other (queries
    still waiting are cancelled)."""
    t0 = time.perf_counter()
    unknown: BatchResult | None = None
    waiting: deque[tuple[int, Pending]] = deque()
    nxt = 0
    while waiting or nxt < len(parts):
        while nxt < len(parts) and len(waiting) < max(cnf_mod.Z3_JOBS, 1):
            out = query(parts[nxt])
            waiting.append((nxt, out if isinstance(out, Pending) else Pending(out)))
            nxt += 1
        i, pending = waiting.popleft()
        options.report(task, i, len(parts))
        res = pending.result()
        part = parts[i]
        if res.status is stop_on:
            for _, later in waiting:
                later.cancel()
            options.report(task, len(parts), len(parts))
            return BatchResult(res.status, res.reason, part, res, i + 1, time.perf_counter() - t0)
        if res.status is SatStatus.UNKNOWN and unknown is None:
            unknown = BatchResult(res.status, res.reason, part, res, i + 1)
    options.report(task, len(parts), len(parts))
    dt = time.perf_counter() - t0
    if unknown is not None:
        return BatchResult(
            SatStatus.UNKNOWN, unknown.reason, unknown.batch, unknown.outcome, len(parts), dt
        )
    other = SatStatus.UNSAT if stop_on is SatStatus.SAT else SatStatus.SAT
    return BatchResult(other, queries=len(parts), seconds=dt)


# ---------------------------------------------------------------------- facts Z3 proved
_PINNED: dict[tuple[str, str], BatchResult] = {}
"""Outcome of each pin query (system digest, assignment digest); unknowns are not kept."""
_PROVEN: dict[str, list[tuple[IntArray, NDArray[np.bool_]]]] = {}
"""Per system digest: assignments and the nodes whose equations Z3 confirmed under them."""
_FACTS: dict[tuple[str, str], Any] = {}
_DIGESTS: weakref.WeakKeyDictionary[OrderSystem, str] = weakref.WeakKeyDictionary()
KEEP_PROOFS = 8
"""Assignments remembered per system by ``pin_check``."""
KEEP_SYSTEMS = 4
"""Systems (graphs) whose proved facts are remembered: the cases verified last."""


def system_digest(sys: OrderSystem) -> str:
    """Digest of the equations (graph, kinds, constants, value chain): equal digests, same
    equations, so a fact proved for one holds for the other."""
    known = _DIGESTS.get(sys)
    if known is not None:
        return known
    h = hashlib.blake2b(digest_size=16)
    g = sys.graph
    for a in (g.succ_ptr, g.succ_idx, sys.kind, sys.const):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((sys.negamax, sys.levels.tolist())).encode())
    out = h.hexdigest()
    _DIGESTS[sys] = out
    return out


def _digest(idx: IntArray, eq: NDArray[np.bool_] | None) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(np.ascontiguousarray(idx).tobytes())
    h.update(b"all" if eq is None else np.packbits(eq).tobytes())
    return h.hexdigest()


def remember(what: str, sys: OrderSystem, fact: Any) -> None:
    """Keep a fact Z3 proved about the equations of ``sys`` (e.g. their solution intervals)."""
    _FACTS[(what, system_digest(sys))] = fact
    while len(_FACTS) > KEEP_SYSTEMS:  # the oldest first: a folder of large cases stays bounded
        del _FACTS[next(iter(_FACTS))]


def recall(what: str, sys: OrderSystem) -> Any:
    """A fact ``remember``-ed for equations identical to those of ``sys``, or ``None``."""
    return _FACTS.get((what, system_digest(sys)))


def forget() -> None:
    """Drop every remembered fact (tests that make Z3 fail on purpose start from nothing)."""
    _PINNED.clear()
    _PROVEN.clear()
    _FACTS.clear()
    cnf_mod.forget()


def proven_equations(sys: OrderSystem, idx: IntArray) -> NDArray[np.bool_]:
    """Nodes whose equation under ``idx`` Z3 has already confirmed: the same instance (the
    node's value and its successors' values) was part of an earlier successful pin query."""
    g = sys.graph
    out = np.zeros(g.n, dtype=np.bool_)
    for old, eq in _PROVEN.get(system_digest(sys), []):
        same = old == idx
        out |= eq & same & ~predecessors_of(g, ~same)
    return out


def pin_check(
    sys: OrderSystem,
    idx: IntArray,
    options: Options,
    task: str,
    eq: NDArray[np.bool_] | None = None,
) -> BatchResult:
    """Z3: does the full assignment ``idx`` satisfy the equations of ``eq`` (default: all)?

    Batched over nodes (each batch: its equations, variables for it and its successors, all
    pinned: ``Encoding.pinned``). ``SAT`` = every
    batch sat = the assignment satisfies every equation. Equation instances an earlier pin
    confirmed (``proven_equations``) are not asked again, and outcomes are remembered, so
    checks that need the same fact do not pay for it twice.
    """
    skey = system_digest(sys)
    key = (skey, _digest(idx, eq))
    if key in _PINNED:
        return _PINNED[key]
    g = sys.graph
    want = np.ones(g.n, dtype=np.bool_) if eq is None else eq.copy()
    nodes = np.flatnonzero(want & ~proven_equations(sys, idx))

    def query(part: IntArray) -> Pending:
        mask = np.zeros(g.n, dtype=np.bool_)
        mask[part] = True
        var = mask | successors_of(g, mask)
        return submit(Encoding.pinned(sys, mask, var, idx).cnf, options)

    res = run_batches(list(batches(g, nodes)), query, options, task, stop_on=SatStatus.UNSAT)
    if res.status is not SatStatus.UNKNOWN:
        if len(_PINNED) > 64:
            _PINNED.clear()
        _PINNED[key] = res
    if res.status is SatStatus.SAT:
        kept = _PROVEN.pop(skey, [])
        kept.insert(0, (idx.copy(), want))
        del kept[KEEP_PROOFS:]
        _PROVEN[skey] = kept  # the most recent system last
        while len(_PROVEN) > KEEP_SYSTEMS:
            del _PROVEN[next(iter(_PROVEN))]
    return res


def cycle_within(g: GameGraph, mask: NDArray[np.bool_]) -> list[int]:
    """One directed cycle whose nodes all lie in ``mask`` (``[]`` if there is none)."""
    keep = mask[g.edge_src] & mask[g.succ_idx]
    ids = np.flatnonzero(mask)
    new = np.full(g.n, -1, dtype=np.int64)
    new[ids] = np.arange(len(ids))
    sub = GameGraph.from_edges(
        len(ids),
        new[g.edge_src[keep]],
        new[g.succ_idx[keep]],
        semantics=g.semantics,
    )
    return [int(ids[i]) for i in find_cycle(sub)]
