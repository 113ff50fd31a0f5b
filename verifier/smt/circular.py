"""A second labelling of a normal-play graph: the won/lost rules without ranks allow circular
labellings of the drawn (unknown) nodes; smt-uniqueness and smt-won-lost both ask for one.

``SecondLabelling`` first looks for one in linear time (``flipped_labelling``) and has Z3
confirm it (a pin of the equations near the flipped nodes; the others are instances an earlier
pin of the labelling confirmed), checked by evaluation as well; only when there is none, or it
does not verify, is Z3 asked to search (the won and lost nodes fixed, a variable per drawn
node that can reach a cycle of drawn nodes, ``open_nodes``: about 10^7 clauses for a 10^6-node
random graph, 9 s of Z3 reading them). When no drawn node can, there is no second labelling
and Z3 is not asked: 13 s less at 10^6 positions of a random graph without cycles whose dead
ends may be draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verifier.model.graph import GameGraph, IntArray
from verifier.registry import Options
from verifier.smt.cnf import Pending, SatStatus, submit
from verifier.smt.common import pin_check, predecessors_of
from verifier.smt.encode import Encoding
from verifier.smt.fixpoints import BoolSystem, attractor, least
from verifier.smt.rules import derivation_system
from verifier.smt.system import AND, CONST, OrderSystem

__all__ = ["Found", "SecondLabelling", "circular_query", "flipped_labelling", "open_nodes"]


@dataclass(frozen=True)
class Found:
    """The answer: ``SAT`` with ``alt`` (indices 0 lost / 1 drawn / 2 won, verified by
    evaluation), ``UNSAT`` (no other labelling), or ``UNKNOWN`` with Z3's reason."""

    status: SatStatus
    alt: IntArray | None = None
    reason: str = ""
    searched: bool = True
    """Whether Z3 searched (``False``: the linear-time labelling, confirmed by Z3, or ``UNSAT``
    because no drawn node can change, ``open_nodes``; ``reason`` says which)."""


class SecondLabelling:
    """A labelling that differs from ``idx`` on an ``unknown`` node and satisfies the rules.

    Made at once (Z3's search, if needed, starts in the background); ``result()`` waits.
    ``idx`` must be a solution (the callers have Z3 pin it before they ask for ``result()``):
    ``open_nodes``' argument needs it."""

    def __init__(
        self, sys: OrderSystem, idx: IntArray, unknown: NDArray[np.bool_], options: Options
    ) -> None:
        self.sys, self.idx, self.unknown, self.options = sys, idx, unknown, options
        self.flip = flipped_labelling(sys.graph, idx - 1)
        self._asked: tuple[Encoding, Pending] | None = None
        if self.flip is None:
            self._asked = self._ask()

    def _ask(self) -> tuple[Encoding, Pending] | None:
        """Z3's search over the open nodes (``None``: there are none, so no second labelling)."""
        opened = open_nodes(self.sys.graph, self.unknown)
        if not opened.any():
            return None
        return circular_query(self.sys, self.idx, opened, self.options)

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
            why = "no drawn node reaches a cycle of drawn nodes (each draw follows from below)"
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


def open_nodes(g: GameGraph, unknown: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The ``unknown`` nodes from which a path through ``unknown`` nodes reaches a cycle of
    ``unknown`` nodes: the only ones a second labelling can change.

    The others are peeled from the bottom (``least`` of: a node outside ``unknown`` is true; an
    ``unknown`` node is true when all its successors are). In every solution that keeps the
    nodes outside ``unknown``, a peeled node has the label ``idx`` gives it: the rules make a
    node's label a function of its successors' labels, which are the same in every such
    solution (outside ``unknown``, or peeled before it: induction on the peeling order), and
    ``idx`` is a solution. Linear (the attractor's layers)."""
    inner = unknown & (np.diff(g.succ_ptr) > 0)
    kind = np.where(inner, AND, CONST).astype(np.int8)
    peeled = least(BoolSystem(g.succ_ptr, g.succ_idx, kind, np.ones(g.n, dtype=np.bool_)))
    return unknown & ~peeled


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
    src, dst = g.edge_src, g.succ_idx
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
