"""The vertex programs: what one partition does in one superstep, for each semantics.

A program's state lives with its partition (on a worker) for the whole run. ``start`` is the
first superstep, ``step`` every later one; both return the *local* ids of the nodes whose value
changed, and only those send messages (``outgoing`` gives the values they send). The run stops
after the first superstep in which no node of any partition changed (Kars' stability
detection, done by the driver by summing the counts).

- ``KarsProgram`` (``minimax``): the synchronous iteration of Kars' Def. 4.1, s_0 = 0,
  s_{n+1} p = t p on terminals, max / min of s_n over the successors on Max / Min nodes. The
  first superstep (number 0) computes s_1; superstep k computes s_{k+1} on the nodes that have
  a successor whose value changed in superstep k-1 (every other node keeps its value: its
  successors' values did not change). The run ends at the first k with s_{k+1} = s_k, which is
  the limit (Theorem 5.4).
- ``RetrogradeProgram`` (``normal``): layer k holds the positions of remoteness k. A position
  is won in the first layer after one of its successors is lost, lost in the layer after its
  last successor became won (Knuth's successor counters).
- ``AttractorProgram`` (``reachability``): layer 0 is the target set; a player-0 node joins W
  in the layer after its first successor joined, a player-1 node with moves in the layer after
  its last successor joined.

A program's values are in its semantics' view (``describe(semantics).view``); ``solver`` is the
name a run reports them under, as a ``SolverResult``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from verifier.distributed.kernels import (
    distinct,
    group_count,
    join_rows,
    ranges_index,
    segment_reduce,
)
from verifier.distributed.partition import Messages, PartitionData
from verifier.model.graph import IntArray
from verifier.model.semantics import MAX, MIN, PLAYER0, PLAYER1, Semantics

__all__ = [
    "PROGRAMS",
    "AttractorProgram",
    "KarsProgram",
    "Program",
    "ProgramState",
    "RetrogradeProgram",
    "program_for",
]


class ProgramState(Protocol):
    """The per-partition state of a vertex program (see the module docstring)."""

    def start(self) -> IntArray:
        """The first superstep; local ids of the nodes that changed."""
        ...

    def step(self, inbox: Messages, superstep: int) -> IntArray:
        """Superstep ``superstep`` (1, 2, ...) with all messages sent to this partition."""
        ...

    def outgoing(self, changed: IntArray) -> NDArray[np.float64]:
        """The values the changed nodes send to their predecessors."""
        ...

    def output(self) -> tuple[NDArray[np.generic], IntArray | None]:
        """Per owned node: the value (in the semantics' view) and the remoteness / layer, -1
        where undefined (or ``None``)."""
        ...


class KarsProgram:
    """Kars' Def. 4.1 as a vertex program (one processor per position, sec. 5)."""

    semantics: ClassVar[Semantics] = Semantics.MINIMAX
    solver: ClassVar[str] = "dask-kars"

    def __init__(self, part: PartitionData) -> None:
        self.part = part
        deg = part.out_degree
        self.terminal = deg == 0
        inner_owner = part.owner[~self.terminal]
        if not np.isin(inner_owner, (MAX, MIN)).all():
            inner_bad = ~self.terminal & ~np.isin(part.owner, (MAX, MIN))
            bad = part.name(int(np.flatnonzero(inner_bad)[0]))
            raise ValueError(f"inner node {bad!r} is owned by neither max nor min")
        if not np.isfinite(part.value[self.terminal]).all():
            bad = part.name(int(np.flatnonzero(self.terminal & ~np.isfinite(part.value))[0]))
            raise ValueError(f"terminal node {bad!r} has no finite value")
        self.score = np.zeros(part.n, dtype=np.float64)
        """s_n of each owned node."""
        self.edge_score = np.zeros(part.edge_hi - part.edge_lo, dtype=np.float64)
        """s_n of the head of each owned edge, as last heard."""
        self.take_max = part.owner == MAX
        self.last = np.zeros(part.n, dtype=np.int64)
        """The superstep of the last change: s_{last+1} is the limit (the remoteness)."""

    def start(self) -> IntArray:
        # s_1 = A s_0: terminals take t p, inner nodes the max / min of zeros, i.e. stay 0
        changed = np.flatnonzero(self.terminal & (self.part.value != 0)).astype(np.int64)
        self.score[changed] = self.part.value[changed]
        return changed

    def step(self, inbox: Messages, superstep: int) -> IntArray:
        local, rows = join_rows(self.part, inbox)
        self.edge_score[local] = inbox.value
        rows = distinct(rows)  # the processors that heard from a child: s_n of the rest stays
        lengths = self.part.succ_ptr[rows + 1] - self.part.succ_ptr[rows]
        seg = self.edge_score[ranges_index(self.part.succ_ptr, rows)]
        new = segment_reduce(seg, lengths, self.take_max[rows])
        moved = new != self.score[rows]
        changed = rows[moved]
        self.score[changed] = new[moved]
        self.last[changed] = superstep
        return changed  # type: ignore[no-any-return]

    def outgoing(self, changed: IntArray) -> NDArray[np.float64]:
        return self.score[changed]

    def output(self) -> tuple[NDArray[np.generic], IntArray | None]:
        # remoteness as in verifier.solvers.kars_iteration: where a value is not 0, the index
        # n of the last change s_n -> s_{n+1}; -1 on draws (values never return to 0, Lemma 5.3)
        return self.score, np.where(self.score != 0, self.last, -1).astype(np.int64)


class _LayerProgram:
    """Layer-by-layer labelling shared by retrograde analysis and the attractor.

    Each node has an *any* rule (it takes ``any_label`` in the layer after one successor sent
    ``any_trigger``) and an *all* rule (it takes ``all_label`` in the layer after every successor
    sent ``all_trigger``); NaN disables a rule. Label 0 is "not (yet) labelled". No node fires
    both rules in one layer: in retrograde analysis a lost successor cannot also be won, and an
    attractor node has only the rule of its owner.
    """

    def __init__(
        self,
        part: PartitionData,
        initial: NDArray[np.int8],
        any_trigger: NDArray[np.float64],
        any_label: NDArray[np.int8],
        all_trigger: NDArray[np.float64],
        all_label: NDArray[np.int8],
    ) -> None:
        self.part = part
        self.degree = part.out_degree
        self.label = initial.copy()
        self.layer = np.where(initial != 0, 0, -1).astype(np.int64)
        self.heard = np.zeros(part.n, dtype=np.int64)
        """Per node: how many successors sent ``all_trigger`` so far (Knuth's counter)."""
        self.any_trigger, self.any_label = any_trigger, any_label
        self.all_trigger, self.all_label = all_trigger, all_label

    def start(self) -> IntArray:
        return np.flatnonzero(self.label != 0).astype(np.int64)

    def step(self, inbox: Messages, superstep: int) -> IntArray:
        _, rows = join_rows(self.part, inbox)
        open_ = self.label[rows] == 0
        any_rows = distinct(rows[open_ & (inbox.value == self.any_trigger[rows])])
        counted, c = group_count(rows[open_ & (inbox.value == self.all_trigger[rows])])
        self.heard[counted] += c
        full = counted[self.heard[counted] == self.degree[counted]]
        self.label[full] = self.all_label[full]
        self.label[any_rows] = self.any_label[any_rows]  # (never both: see the class docstring)
        changed = distinct(np.concatenate([any_rows, full]))
        self.layer[changed] = superstep
        return changed

    def outgoing(self, changed: IntArray) -> NDArray[np.float64]:
        return self.label[changed].astype(np.float64)


class RetrogradeProgram(_LayerProgram):
    """Retrograde analysis (``normal``): won +1 / lost -1 / unknown 0, remoteness = layer."""

    semantics: ClassVar[Semantics] = Semantics.NORMAL
    solver: ClassVar[str] = "dask-retrograde"

    def __init__(self, part: PartitionData) -> None:
        n = part.n
        terminal = part.out_degree == 0
        # terminal labels from the mover's view; a terminal without a label is lost (default)
        tv = np.where(np.isnan(part.value), -1.0, part.value)
        initial = np.where(terminal, np.sign(tv), 0).astype(np.int8)
        super().__init__(
            part,
            initial,
            any_trigger=np.full(n, -1.0),  # a lost successor makes the mover win
            any_label=np.full(n, 1, dtype=np.int8),
            all_trigger=np.full(n, 1.0),  # all successors won: the mover loses
            all_label=np.full(n, -1, dtype=np.int8),
        )

    def output(self) -> tuple[NDArray[np.generic], IntArray | None]:
        return self.label, self.layer


class AttractorProgram(_LayerProgram):
    """The attractor W of the target set (``reachability``): region 1 inside W, layer."""

    semantics: ClassVar[Semantics] = Semantics.REACHABILITY
    solver: ClassVar[str] = "dask-attractor"

    def __init__(self, part: PartitionData) -> None:
        n = part.n
        moves = part.out_degree > 0
        bad = moves & ~part.target & ~np.isin(part.owner, (PLAYER0, PLAYER1))
        if bad.any():
            node = part.name(int(np.flatnonzero(bad)[0]))
            raise ValueError(f"node {node!r} has moves but no owner 0 or 1")
        nan = np.full(n, np.nan)
        super().__init__(
            part,
            part.target.astype(np.int8),
            any_trigger=np.where(part.owner == PLAYER0, 1.0, nan),
            any_label=np.ones(n, dtype=np.int8),
            all_trigger=np.where(part.owner == PLAYER1, 1.0, nan),
            all_label=np.ones(n, dtype=np.int8),
        )

    def output(self) -> tuple[NDArray[np.generic], IntArray | None]:
        return self.label, self.layer


Program = type[KarsProgram] | type[RetrogradeProgram] | type[AttractorProgram]
"""A vertex program class: constructed from a partition, it is that partition's state."""

PROGRAMS: Mapping[Semantics, Program] = MappingProxyType(
    {p.semantics: p for p in (KarsProgram, RetrogradeProgram, AttractorProgram)}
)
"""The program of every semantics the distributed engine solves."""


def program_for(semantics: Semantics) -> Program:
    """The vertex program solving ``semantics`` (``ValueError`` for ``impartial``)."""
    try:
        return PROGRAMS[semantics]
    except KeyError:
        raise ValueError(f"no distributed program for {semantics.value!r} graphs") from None
