"""A second labelling of a normal-play graph: the won/lost rules without ranks allow circular
labellings of the drawn (unknown) nodes; smt-uniqueness and smt-won-lost both ask for one.

``SecondLabelling`` first looks for one in linear time (``flipped_labelling``) and has Z3
confirm it (a pin of the equations near the flipped nodes; the others are instances an earlier
pin of the labelling confirmed), checked by evaluation as well; only when there is none, or it
does not verify, is Z3 asked to search (the won and lost nodes fixed, a variable per drawn
node that another labelling could change, ``changeable_nodes``). Those are found in linear
time and are few: a second labelling loses some drawn nodes, and the drawn nodes that could be
lost form a greatest fixpoint (``lost_candidates``) that is empty or a handful of nodes on
random graphs (0, 0, 3 of 761,000 drawn nodes at 10^6 positions, seeds 1-3). When it is empty
there is no second labelling and Z3 is not asked: at 10^7 positions the search had read the
clauses of 7.6 million drawn nodes for 270 s to say the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.distinct import distinct
from verifier.equations.fixpoints import BoolSystem, attractor, gather
from verifier.equations.rules import derivation_system
from verifier.equations.system import CONST, OrderSystem
from verifier.model.graph import GameGraph, IntArray
from verifier.registry import Options
from verifier.smt.cnf import Pending, SatStatus, submit
from verifier.smt.common import pin_check, predecessors_of
from verifier.smt.encode import Encoding

__all__ = [
    "Found",
    "SecondLabelling",
    "changeable_nodes",
    "circular_query",
    "flipped_labelling",
    "lost_candidates",
]


@dataclass(frozen=True)
class Found:
    """The answer: ``SAT`` with ``alt`` (indices 0 lost / 1 drawn / 2 won, verified by
    evaluation), ``UNSAT`` (no other labelling), or ``UNKNOWN`` with Z3's reason."""

    status: SatStatus
    alt: IntArray | None = None
    reason: str = ""
    searched: bool = True
    """Whether Z3 searched (``False``: the linear-time labelling, confirmed by Z3, or ``UNSAT``
    because no drawn node can change, ``changeable_nodes``; ``reason`` says which)."""


class SecondLabelling:
    """A labelling that differs from ``idx`` on an ``unknown`` node and satisfies the rules.

    Made at once (Z3's search, if needed, starts in the background); ``result()`` waits.
    ``idx`` must be a solution (the callers have Z3 pin it before they ask for ``result()``):
    ``changeable_nodes``' argument needs it."""

    def __init__(
        self, sys: OrderSystem, idx: IntArray, unknown: NDArray[np.bool_], options: Options
    ) -> None:
        self.sys, self.idx, self.unknown, self.options = sys, idx, unknown, options
        self.flip = flipped_labelling(sys.graph, idx - 1)
        self._asked: tuple[Encoding, Pending] | None = None
        if self.flip is None:
            self._asked = self._ask()

    def _ask(self) -> tuple[Encoding, Pending] | None:
        """Z3's search over the changeable nodes (``None``: there are none, so no second
        labelling)."""
        free = changeable_nodes(self.sys.graph, self.unknown)
        if not free.any():
            return None
        return circular_query(self.sys, self.idx, free, self.options)

    def cancel(self) -> None:
        if self._asked is not None:
            self._asked[1].cancel()

    def result(self) -> Found:
        """The second labelling, once ``idx`` itself has been pinned by Z3 (so that only the
        equations near a flip are asked again)."""
        sys = self.sys
        if self.flip is not None:
            seen = pin_check(sys, self.flip, self.options, "a second labelling")
            if seen.status is SatStatus.SAT and not len(sys.violations(self.flip)):
                return Found(SatStatus.SAT, self.flip, searched=False)
            self.flip = None
            self._asked = self._ask()
        if self._asked is None:
            why = "no drawn node could be lost in another labelling (linear-time fixpoint)"
            return Found(SatStatus.UNSAT, reason=why, searched=False)
        enc, pending = self._asked
        out = pending.result()
        if out.status is not SatStatus.SAT or out.model is None:
            return Found(out.status, reason=out.reason)
        alt = enc.decode(out.model)
        if len(sys.violations(alt)) or not (alt != self.idx).any():
            return Found(SatStatus.UNKNOWN, reason="Z3's second solution did not verify")
        return Found(SatStatus.SAT, alt)


def circular_query(
    sys: OrderSystem, idx: IntArray, unknown: NDArray[np.bool_], options: Options
) -> tuple[Encoding, Pending]:
    """Z3's search: a labelling of the ``unknown`` nodes that differs from ``idx`` and
    satisfies the rules (the other nodes fixed), submitted; ``enc.decode`` reads its model."""
    near = unknown | predecessors_of(sys.graph, unknown)
    enc = Encoding.build(sys, eq=near, var=unknown, fixed=idx)
    enc.differs(np.flatnonzero(unknown), idx)
    return enc, submit(enc.cnf, options, want_model=True, memo=True)


def lost_candidates(g: GameGraph, unknown: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The ``unknown`` nodes that some labelling keeping the other nodes could make lost: a
    superset, the greatest set ``G`` of ``unknown`` nodes such that every ``x`` in ``G`` has no
    self-loop and each ``unknown`` successor of ``x`` has a successor in ``G``.

    Why every such labelling's set ``L`` of lost ``unknown`` nodes lies in ``G``: ``x`` in
    ``L`` is lost, so all its moves lead to won nodes (no self-loop); an ``unknown`` successor
    ``y`` is then won, so it has a lost successor ``z``; ``z`` is not a node lost in the
    labelling kept (then ``y`` would be won there too, as it is a solution), so ``z`` is in
    ``L``. So ``L`` satisfies the condition, which is closed under unions: ``L`` is in its
    greatest fixpoint. Computed by elimination with counters (``unknown`` nodes whose
    successors are all eliminated cannot be won; their ``unknown`` predecessors cannot be lost),
    in layers over the predecessor lists."""
    n = g.n
    src, dst = g.edge_src, g.succ_idx
    out = np.diff(g.succ_ptr) > 0
    gone = ~unknown | ~out  # outside G from the start: kept nodes, dead ends (fixed values)
    gone[src[src == dst]] = True  # a self-loop: lost would need itself won
    alive = np.bincount(src[~gone[dst]], minlength=n)  # successors still in G, per node
    cannot_win = unknown & (alive == 0)
    front = np.flatnonzero(cannot_win)
    pptr, pidx = g.pred_ptr, g.pred_idx
    while len(front):
        xs = gather(pptr, pidx, front)  # an unknown successor that cannot be won: not lost
        xs = distinct(xs[~gone[xs]]).astype(np.int64, copy=False)
        gone[xs] = True
        ys = gather(pptr, pidx, xs)
        ys = ys[unknown[ys] & ~cannot_win[ys]]
        u, c = np.unique(ys, return_counts=True)
        alive[u] -= c
        front = u[alive[u] == 0]
        cannot_win[front] = True
    return ~gone


def changeable_nodes(g: GameGraph, unknown: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The ``unknown`` nodes a second labelling (the other nodes kept, ``idx`` a solution) can
    change: the lost candidates and the ``unknown`` predecessors of them. A changed node is
    lost (in ``L``, so a candidate) or won, and a won ``unknown`` node has a lost successor
    that is ``unknown`` (``lost_candidates``' argument): a candidate. Every other ``unknown``
    node keeps its label in every such labelling, so Z3 need not search it."""
    cand = lost_candidates(g, unknown)
    free = cand.copy()
    free[gather(g.pred_ptr, g.pred_idx, np.flatnonzero(cand))] = True
    return free & unknown


def flipped_labelling(g: GameGraph, labels: IntArray) -> IntArray | None:
    """A second labelling found in linear time, or ``None``: a drawn node ``x`` without a
    self-loop each of whose drawn successors moves back to ``x``. Then ``x`` lost and those
    successors won satisfy their own rules whatever the other drawn nodes are (``x``'s other
    successors are won: a drawn node has no lost successor), and the retrograde analysis of the
    rest with them fixed is a solution of the rest's rules; the won and lost nodes stay (their
    derivations use no drawn node). Returned as indices (0 lost, 1 drawn, 2 won).

    Random cyclic graphs usually have such a node (a 10^6-node one of degree 4 has: Z3 found
    the same kind of labelling, five nodes flipped, after 8.8 s of reading 10^7 clauses)."""
    n = g.n
    drawn = labels == 0
    src, dst = g.edge_src, g.succ_idx.astype(np.int64)  # keys below are id * n + id
    inner = drawn[src] & drawn[dst]
    s, d = src[inner], dst[inner]
    if not len(s):
        return None
    keys = np.sort(s * n + d)
    back = keys[np.minimum(np.searchsorted(keys, d * n + s), len(keys) - 1)] == d * n + s
    loop = np.bincount(s[s == d], minlength=n) > 0
    out_count = np.bincount(s, minlength=n)
    back_count = np.bincount(s[back], minlength=n)
    ok = np.flatnonzero(drawn & ~loop & (out_count > 0) & (back_count == out_count))
    if not len(ok):
        return None
    x = int(ok[0])
    rules = derivation_system(g)
    kind, const = rules.kind.copy(), rules.const.copy()
    for node, won in [(x, False), *((int(y), True) for y in d[s == x])]:
        kind[2 * node : 2 * node + 2] = CONST
        const[2 * node], const[2 * node + 1] = won, not won
    layer = attractor(BoolSystem(rules.ptr, rules.idx, kind, const))
    won_x, lost_x = layer[0::2] >= 0, layer[1::2] >= 0
    if (won_x & lost_x).any():  # pragma: no cover - the argument above excludes it
        return None
    return np.where(won_x, 2, np.where(lost_x, 0, 1)).astype(np.int64)
