"""Check ``rules``: every node's local rule, evaluated directly on a solver's own values.

The rule of each semantics, at each node whose value and successors' values the solver gives:

| semantics | rule |
|---|---|
| minimax | (T+MM): a leaf's score is t(x); Max takes the max, Min the min of its successors' |
| normal | negamax on labels: won iff a successor is lost, lost iff every successor is won |
| reachability | a target is won by player 0; player 0 needs one winning successor, player 1 all |
| impartial | a finite Grundy value is the mex of its finite options' values |

One vectorized pass over the edges (``OrderSystem.apply``, ``mex_failures``): linear, no Z3,
any size. It is the local half of a proof; the global half (no circular justification: ranks,
remoteness, the least fixpoint) is the agreement with a solver that computes the least
fixpoint, the remoteness and move checks, and, in a full run, the Z3 checks. A value outside
the graph's value set (a score that is no leaf's value nor 0) breaks the rule too.

The sharded check (``verify DIR --engine dask`` on a stored graph) judges each shard with these
same rules (``shard_faults``), and so does the sharded check of normal play's datasets (Connect
Four, chess, normal graphs): the shard's nodes, and each move's target as a dead end outside
them carrying the value its own shard gives it (minimax: a leaf worth its score, so the value
set holds it; one dead end per value, not per move), judged nowhere. A rule is written once,
here and in the equations it reads.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.checks.common import per_solver, result
from verifier.equations.system import OrderSystem
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.columns import LOOPY, VALUE
from verifier.model.describe import describe
from verifier.model.graph import index_dtype
from verifier.model.semantics import NOBODY, Semantics
from verifier.model.topology import culprit
from verifier.registry import CheckContext, check

__all__ = ["NAME", "rule_faults", "rule_gives", "shard_faults", "shard_graph"]

NAME = "rules"


def rule_faults(
    g: GameGraph, r: SolverResult, only: NDArray[np.bool_] | None = None
) -> NDArray[np.int64]:
    """Ids of the nodes whose given value breaks its local rule, given its successors' values
    (nodes with a successor whose value is not given are not judged; with ``only``, nor the
    nodes outside it)."""
    cols = r.columns
    val = cols[VALUE]
    loopy = cols.get(LOOPY)
    infinite = loopy.given if loopy is not None else np.zeros(g.n, dtype=np.bool_)
    known = np.asarray(val.given, dtype=np.bool_) | infinite
    judged = np.asarray(val.given, dtype=np.bool_)
    if only is not None:
        judged = judged & only
    if not known.all():  # judge only nodes whose successors' values are all given
        judged = judged & (np.bincount(g.edge_src[~known[g.succ_idx]], minlength=g.n) == 0)
    d = describe(g.semantics)
    if not d.has_order:  # the mex equations
        values = np.where(val.given & ~infinite, np.asarray(val.data, dtype=np.int64), -1)
        from verifier.smt.mex import mex_failures

        return mex_failures(g, values, np.flatnonzero(judged & ~infinite)).astype(np.int64)
    system = OrderSystem.for_graph(g)
    idx, bad = system.to_index(np.where(val.given, val.data, 0))
    if bad[judged].any():  # a value outside the value set: its own fault, and its neighbours'
        return np.flatnonzero(judged & bad).astype(np.int64)
    return np.flatnonzero(judged & (system.apply(idx) != idx)).astype(np.int64)


def rule_gives(g: GameGraph, r: SolverResult, x: int) -> float:
    """The value node ``x``'s rule gives from its successors' values (a witness's words)."""
    val = r.columns[VALUE]
    d = describe(g.semantics)
    if not d.has_order:  # the mex of the options' values
        ys = np.asarray(val.data, dtype=np.int64)[g.successors(x)]
        held = set(ys[ys >= 0].tolist())
        return float(next(k for k in range(len(held) + 1) if k not in held))
    system = OrderSystem.for_graph(g)
    idx, _ = system.to_index(np.where(val.given, val.data, 0))
    return float(system.to_values(system.apply(idx))[x])


def shard_graph(
    sem: Semantics,
    owner: NDArray[Any],
    leaf: NDArray[Any],
    target: NDArray[Any],
    src: NDArray[np.intp],
    succ_values: NDArray[Any],
    succ_given: NDArray[np.bool_],
) -> GameGraph:
    """A shard as a graph of its own: its ``n`` nodes (``owner``, ``leaf`` value, ``target``
    each), and for each move ``src[k] ->`` a node outside it, an edge to a dead end after them
    carrying that target's value ``succ_values[k]`` as its leaf value (minimax: its score):
    one dead end per value the targets carry, and one carrying none (NaN) for the targets
    whose value is not given (``succ_given`` false), so the graph has few more nodes than the
    shard."""
    n, m = len(owner), len(src)
    held, which = _distinct(np.asarray(succ_values), succ_given)
    none = [] if succ_given.all() else [np.nan]  # a dead end for the targets without one
    ends = np.concatenate([held.astype(np.float64), none])
    k = len(ends)
    ids = index_dtype(n + k)
    targets: Any = np.add(which, n, dtype=ids, casting="unsafe")
    if m > 1 and (src[1:] < src[:-1]).any():  # a shard's moves come sorted by source
        narrow = src.astype(index_dtype(n), copy=False)  # (a narrower sort is faster)
        targets = targets[np.argsort(narrow, kind="stable")]
    ptr = np.full(n + k + 1, m, dtype=np.int64)  # the dead ends' rows empty, after the moves
    ptr[0] = 0
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1 : n + 1])
    return GameGraph(
        semantics=sem,
        succ_ptr=ptr,
        succ_idx=targets,
        owner=np.concatenate([np.asarray(owner, np.int8), np.full(k, NOBODY, np.int8)]),
        value=np.concatenate([np.asarray(leaf, np.float64), ends]),
        target=np.concatenate([np.asarray(target, np.bool_), np.zeros(k, np.bool_)]),
    )


def _distinct(v: NDArray[Any], given: NDArray[np.bool_]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """The distinct values of ``v`` where ``given``, sorted, and each entry's index among them
    (their count where not given). Small integral values are counted, not sorted."""
    every = bool(given.all())
    if not len(v) or not given.any():
        return v[:0], np.zeros(len(v), np.intp)
    ints = v if v.dtype.kind in "iub" else None
    if ints is None and v.dtype.kind == "f":  # scores: integral ones counted as well
        fin = v if every else np.where(given, v, 0.0)
        if np.isfinite(fin).all() and (fin == np.round(fin)).all():
            ints = fin
    if ints is not None:
        some = ints if every else ints[given]
        lo, hi = int(some.min()), int(some.max())
        if hi - lo < 1 << 16:
            off = ints.astype(np.intp)
            off -= lo
            if not every:
                off[~given] = 0
            seen = np.bincount(off if every else off[given], minlength=hi - lo + 1) > 0
            held = (np.flatnonzero(seen) + lo).astype(v.dtype)
            which = off if seen.all() else (np.cumsum(seen) - 1)[off]
            if not every:
                which[~given] = len(held)
            return held, which
    held, inv = np.unique(v[given], return_inverse=True)
    which = np.full(len(v), len(held), dtype=np.intp)
    which[given] = inv
    return held, which


def shard_faults(
    g: GameGraph, values: NDArray[Any], given: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], SolverResult]:
    """The shard's nodes (of ``shard_graph`` ``g``) whose ``values`` (given where ``given``)
    break their rules, judged by ``rule_faults`` itself; and the result it judged."""
    n = len(values)
    boundary = g.value[n:]
    held = ~np.isnan(boundary)
    covered = np.concatenate([given, held])
    dtype = np.asarray(values).dtype
    v = np.concatenate([np.asarray(values), np.where(held, boundary, 0).astype(dtype)])
    r = SolverResult("shard", describe(g.semantics).view, v, covered=covered)
    only = np.zeros(g.n, dtype=np.bool_)
    only[:n] = True
    return rule_faults(g, r, only), r


@check(NAME, list(Semantics), order=5, linear=True)
def check_rules(ctx: CheckContext) -> list[CheckResult]:
    """The local rules, on every solver's values."""
    return per_solver(ctx, describe(ctx.case.semantics).view, VALUE, _judge)


def _judge(g: GameGraph, r: SolverResult) -> CheckResult:
    t0 = time.perf_counter()
    name = f"{NAME} ({r.solver})"
    bad = rule_faults(g, r)
    if len(bad) == 0:
        n = int(r.columns[VALUE].given.sum())
        return result(name, Verdict.CONFIRMED, f"{n} values keep their local rule", t0)
    x = culprit(g, bad)  # the value that breaks its rule, not a predecessor reading it
    d = describe(g.semantics)
    witness = {
        "node": g.name(x),
        "value": d.show_node(r.columns, x),
        "successors": {g.name(int(y)): d.show_node(r.columns, int(y)) for y in g.successors(x)},
        "faults": len(bad),
    }
    return result(
        name,
        Verdict.REFUTED,
        f"{g.name(x)!r} = {witness['value']} breaks its local rule ({len(bad)} node(s) in all)",
        t0,
        witness,
    )
