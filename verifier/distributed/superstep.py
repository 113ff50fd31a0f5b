"""The superstep interface: what a distributed engine must provide, and an in-process engine.

A *run* is a bulk-synchronous loop over partitions (Pregel / BSP, Kars sec. 5):

1. every partition runs its vertex program on the messages addressed to it
   (``partition_superstep``: join, group-by-aggregate, count changes, emit);
2. the engine routes each partition's outgoing batches to their destination partitions;
3. the engine sums the change counts: zero everywhere means the values are stable, stop.

An engine implements ``SuperstepEngine.run``; the partition-local work is shared by every engine,
so engines differ only in where partitions live and how batches travel. ``LocalEngine`` runs
the partitions one after the other in this process (the reference for the Dask engine in
``verifier.distributed.dask_backend``, and handy for debugging a program).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from verifier.distributed.kernels import emit
from verifier.distributed.partition import Messages, PartitionData
from verifier.distributed.programs import ProgramState, program_for
from verifier.model.graph import IntArray

__all__ = [
    "LocalEngine",
    "RunOutput",
    "StepOutput",
    "SuperstepEngine",
    "merge_inbox",
    "partition_superstep",
    "start_program",
]


class StepOutput(NamedTuple):
    """What one partition produced in one superstep."""

    changed: int
    """How many of its nodes changed value."""
    batches: tuple[Messages, ...]
    """Outgoing messages, one batch per destination partition."""


@dataclass(frozen=True, eq=False)
class RunOutput:
    """The result of a run, assembled from all partitions."""

    values: NDArray[np.generic]
    remoteness: IntArray | None
    supersteps: int
    """Supersteps executed, the first one and the last (quiet) one included."""
    messages: int
    """Messages sent over the whole run."""
    changed: tuple[int, ...]
    """Nodes changed in each superstep (the frontier sizes)."""
    step_seconds: tuple[float, ...]
    """Wall-clock seconds of each superstep as seen by the driver."""


class SuperstepEngine(Protocol):
    """A place where partitions live and supersteps run."""

    def run(self, parts: Sequence[PartitionData]) -> RunOutput:
        """Run the vertex program of the partitions' semantics to its fixed point."""
        ...


def merge_inbox(batches: Sequence[Messages]) -> Messages:
    """All messages for one partition in one batch."""
    batches = [b for b in batches if b.size]
    if not batches:
        return Messages.empty()
    if len(batches) == 1:
        return batches[0]
    return Messages(
        np.concatenate([b.edge for b in batches]), np.concatenate([b.value for b in batches])
    )


def start_program(part: PartitionData, parts: int) -> tuple[ProgramState, StepOutput]:
    """Create the program state of a partition and run the first superstep."""
    state: ProgramState = program_for(part.semantics)(part)
    changed = state.start()
    return state, StepOutput(len(changed), emit(part, changed, state.outgoing(changed), parts))


def partition_superstep(
    state: ProgramState, part: PartitionData, inbox: Messages, superstep: int, parts: int
) -> StepOutput:
    """One superstep of one partition: join, aggregate, count changes, emit."""
    changed = state.step(inbox, superstep) if inbox.size else np.empty(0, dtype=np.int64)
    return StepOutput(len(changed), emit(part, changed, state.outgoing(changed), parts))


def start_phase(
    state: ProgramState, part: PartitionData, superstep: int, parts: int
) -> StepOutput | None:
    """After a quiet superstep: the partition's next phase as superstep ``superstep`` (its
    changed nodes emit), or ``None`` when the program has no further phase."""
    changed = state.next_phase(superstep)
    if changed is None:
        return None
    return StepOutput(len(changed), emit(part, changed, state.outgoing(changed), parts))


class LocalEngine:
    """Every partition in this process, one after the other."""

    def run(self, parts: Sequence[PartitionData]) -> RunOutput:
        """Run every partition's supersteps here, in turn, until a quiet superstep; then the
        program's next phase, if it has one, likewise."""
        p = len(parts)
        t0 = time.perf_counter()
        started = [start_program(part, p) for part in parts]
        states = [s for s, _ in started]
        outs = [o for _, o in started]
        changed = [sum(o.changed for o in outs)]
        messages = sum(b.size for o in outs for b in o.batches)
        seconds = [time.perf_counter() - t0]
        k = 0
        while True:
            while changed[-1]:
                k += 1
                t0 = time.perf_counter()
                inboxes = [merge_inbox([o.batches[q] for o in outs]) for q in range(p)]
                outs = [
                    partition_superstep(states[q], parts[q], inboxes[q], k, p) for q in range(p)
                ]
                changed.append(sum(o.changed for o in outs))
                messages += sum(b.size for o in outs for b in o.batches)
                seconds.append(time.perf_counter() - t0)
            k += 1
            t0 = time.perf_counter()
            phase = [start_phase(states[q], parts[q], k, p) for q in range(p)]
            if any(o is None for o in phase):  # every partition runs the same program
                break
            outs = [o for o in phase if o is not None]
            changed.append(sum(o.changed for o in outs))
            messages += sum(b.size for o in outs for b in o.batches)
            seconds.append(time.perf_counter() - t0)
        results = [s.output() for s in states]
        rem = [r for _, r in results]
        return RunOutput(
            values=np.concatenate([v for v, _ in results]),
            remoteness=None if any(r is None for r in rem) else np.concatenate(rem),  # type: ignore[arg-type]
            supersteps=len(changed),
            messages=messages,
            changed=tuple(changed),
            step_seconds=tuple(seconds),
        )
