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
  successors' values did not change). The first quiet superstep is the limit (Theorem 5.4).
  Then a second phase (``next_phase``) finds the remoteness, the length of optimal play (issue
  28 item 4): an attractor on the score-keeping moves (x -> y with s(x) = s(y) != 0, read from
  the last values heard): the leaves of score != 0 are layer 0, the side ahead (Max at s > 0,
  Min at s < 0) joins in the superstep after its first score-keeping successor joined, the side
  behind after its last.
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

    def next_phase(self, superstep: int) -> IntArray | None:
        """After a quiet superstep: start the program's next phase as superstep ``superstep``
        and return the local ids of the nodes that changed (they send messages), or ``None``
        when there is no further phase (the run is over)."""
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
        self.base = -1
        """The superstep that started the remoteness phase (-1 while the scores run)."""
        self.rem = np.full(part.n, -1, dtype=np.int64)
        """The remoteness phase: the layer of each owned node, -1 until it joins."""
        self.keep = np.zeros(0, dtype=np.bool_)
        """The remoteness phase: per owned edge, does it keep the score."""
        self.missing = np.zeros(0, dtype=np.int64)
        """The remoteness phase: per owned node, score-keeping successors not yet joined."""
        self.ahead = np.zeros(0, dtype=np.bool_)
        """The remoteness phase: per owned node, is the side ahead to move."""

    def start(self) -> IntArray:
        # s_1 = A s_0: terminals take t p, inner nodes the max / min of zeros, i.e. stay 0
        changed = np.flatnonzero(self.terminal & (self.part.value != 0)).astype(np.int64)
        self.score[changed] = self.part.value[changed]
        return changed

    def step(self, inbox: Messages, superstep: int) -> IntArray:
        if self.base >= 0:
            return self._length_step(inbox, superstep)
        local, rows = join_rows(self.part, inbox)
        self.edge_score[local] = inbox.value
        rows = distinct(rows)  # the processors that heard from a child: s_n of the rest stays
        lengths = self.part.succ_ptr[rows + 1] - self.part.succ_ptr[rows]
        seg = self.edge_score[ranges_index(self.part.succ_ptr, rows)]
        new = segment_reduce(seg, lengths, self.take_max[rows])
        moved = new != self.score[rows]
        changed = rows[moved]
        self.score[changed] = new[moved]
        return changed  # type: ignore[no-any-return]

    def next_phase(self, superstep: int) -> IntArray | None:
        if self.base >= 0:
            return None
        self.base = superstep
        src = self.part.edge_src
        s = self.score
        # every change was sent, so edge_score holds the head's final score
        self.keep = (self.edge_score == s[src]) & (s[src] != 0)
        self.missing = np.bincount(src[self.keep], minlength=self.part.n).astype(np.int64)
        self.ahead = ~self.terminal & ((s > 0) == self.take_max)
        seeds = np.flatnonzero(self.terminal & (s != 0)).astype(np.int64)
        self.rem[seeds] = 0
        return seeds

    def _length_step(self, inbox: Messages, superstep: int) -> IntArray:
        """A superstep of the remoteness phase: every message says "the edge's head joined"."""
        local, rows = join_rows(self.part, inbox)
        rows = rows[self.keep[local]]
        rows = rows[self.rem[rows] < 0]
        hurry = distinct(rows[self.ahead[rows]])  # the side ahead: its first successor in
        keys, counts = group_count(rows[~self.ahead[rows]])
        self.missing[keys] -= counts
        delay = keys[self.missing[keys] == 0]  # the side behind: its last successor in
        changed = np.sort(np.concatenate((hurry, delay))).astype(np.int64)
        self.rem[changed] = superstep - self.base
        return changed

    def outgoing(self, changed: IntArray) -> NDArray[np.float64]:
        if self.base >= 0:
            return self.rem[changed].astype(np.float64)
        return self.score[changed]

    def output(self) -> tuple[NDArray[np.generic], IntArray | None]:
        # remoteness as in verifier.solvers.kars_levels: the length of optimal play, -1 on
        # draws (their nodes never join)
        return self.score, self.rem


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

    def next_phase(self, superstep: int) -> IntArray | None:
        return None  # one phase


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
