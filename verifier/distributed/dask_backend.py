"""The Dask engine: partitions pinned to the workers of a ``distributed`` cluster.

Placement and data movement:

- ``DaskEngine.run`` scatters each partition's read-only slice (``PartitionData``) to one worker,
  once, and pins every task of that partition to that worker (``workers=[addr]``,
  ``allow_other_workers=False``).
- The mutable program state (values, Knuth counters, edge values) stays in the worker process
  for the whole run, in a worker-local table keyed by run id and partition; tasks update it in
  place, so a superstep costs work proportional to its frontier, never a copy of the partition.
  This is Kars' processor with its variable S; like a Dask actor it is not resilient: if a worker
  dies mid-run the run fails (``RuntimeError`` within ``poll`` seconds, instead of waiting for
  the worker forever) and has to be restarted.
- Per superstep the driver submits one *step* task per partition ``q`` on ``q``'s worker and
  one *info* task per partition that returns the tiny ``(changed, batch sizes)`` record the
  driver gathers to detect stability. Routing of the batches: ``direct`` (default up to
  ``DIRECT_LIMIT`` partitions) hands the step task of ``q`` the whole outputs of the senders and
  it reads the batches addressed to it (``2P`` tasks per superstep, but every output travels to
  every receiver); ``pick`` adds one task per non-empty batch, run on the sender's worker, so
  only the batch travels (up to ``P * P`` more tasks).
- With ``direct`` routing the driver keeps ``lookahead`` supersteps in flight: superstep k + 1
  is submitted before the driver has seen the counts of superstep k. Supersteps submitted after
  the quiet one receive empty inboxes and change nothing.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import distributed
import numpy as np
from dask.sizeof import sizeof
from distributed import Client, Future
from numpy.typing import NDArray

from verifier.distributed.parquet_io import write_result_part
from verifier.distributed.partition import Messages, PartitionData
from verifier.distributed.programs import ProgramState
from verifier.distributed.superstep import (
    RunOutput,
    StepOutput,
    merge_inbox,
    partition_superstep,
    start_phase,
    start_program,
)
from verifier.distributed.tiers.supervise import cluster_workers

__all__ = ["DaskEngine"]

_DD: Any = distributed  # only partly typed

DIRECT_LIMIT = 4
"""Up to this many partitions ``auto`` routing sends whole outputs (fewer tasks per superstep);
above it, each batch is cut out on its sender's worker (less traffic, ``P * P`` small tasks)."""

Info = list[tuple[int, tuple[int, ...]]]
"""Per partition: nodes changed in a superstep, and the sizes of its outgoing batches."""


def _sizeof_partition(part: PartitionData) -> int:
    """Bytes of a partition's arrays, so Dask's memory accounting sees scattered partitions."""
    arrays = (part.succ_ptr, part.edge_src, part.in_ptr, part.in_edge, part.owner, part.value)
    return sum(a.nbytes for a in arrays) + part.target.nbytes + 64 * len(part.names or ())


sizeof.register(PartitionData)(_sizeof_partition)  # type: ignore[no-untyped-call]


# ---------------------------------------------------------------------- worker side
_STATES: dict[str, tuple[ProgramState, PartitionData]] = {}
_LOCK = threading.Lock()


def _key(run: str, p: int) -> str:
    """The key of partition ``p`` of run ``run`` in the worker-local state table."""
    return f"{run}/{p}"


def _start(run: str, part: PartitionData, parts: int) -> StepOutput:
    """Create the partition's program state on this worker and run the first superstep."""
    state, out = start_program(part, parts)
    with _LOCK:
        _STATES[_key(run, part.index)] = (state, part)
    return out


def _step(run: str, p: int, superstep: int, parts: int, *batches: Messages) -> StepOutput:
    """One superstep of partition ``p`` on the batches addressed to it."""
    try:
        state, part = _STATES[_key(run, p)]
    except KeyError:
        raise RuntimeError(
            f"partition {p} of run {run} is not on this worker (did a worker restart?)"
        ) from None
    return partition_superstep(state, part, merge_inbox(batches), superstep, parts)


def _phase(run: str, p: int, superstep: int, parts: int) -> StepOutput | None:
    """Partition ``p``'s next phase as superstep ``superstep`` (``None``: no further phase)."""
    try:
        state, part = _STATES[_key(run, p)]
    except KeyError:
        raise RuntimeError(
            f"partition {p} of run {run} is not on this worker (did a worker restart?)"
        ) from None
    return start_phase(state, part, superstep, parts)


def _phase_info(out: StepOutput | None) -> tuple[int, tuple[int, ...]] | None:
    """``_info`` of a phase's start, ``None`` if there is no further phase."""
    return None if out is None else _info(out)


def _pick(out: StepOutput, q: int) -> Messages:
    """The batch a sender's output addresses to partition ``q`` (``pick`` routing)."""
    return out.batches[q]


def _step_direct(run: str, q: int, superstep: int, parts: int, *outs: StepOutput) -> StepOutput:
    """One superstep of partition ``q``, reading its batch from every sender's whole output."""
    return _step(run, q, superstep, parts, *(o.batches[q] for o in outs))


def _info(out: StepOutput) -> tuple[int, tuple[int, ...]]:
    """The tiny record the driver gathers: nodes changed, and the sizes of the batches."""
    return out.changed, tuple(b.size for b in out.batches)


def _finish(run: str, p: int, out_dir: str | None, collect: bool) -> tuple[Any, Any]:
    """Free the partition's state; write its Parquet part and return its results if asked."""
    with _LOCK:
        state, part = _STATES.pop(_key(run, p))
    values, remoteness = state.output()
    if out_dir is not None:
        write_result_part(Path(out_dir), part, values, remoteness)
    if not collect:
        return None, None
    return values, remoteness


def _drop(run: str, p: int) -> None:
    """Free the partition's state after a failed run (no-op if it is gone)."""
    with _LOCK:
        _STATES.pop(_key(run, p), None)


# ---------------------------------------------------------------------- driver side
@dataclass
class _Tally:
    """What the driver counted over the supersteps it has gathered."""

    changed: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    messages: int = 0
    clock: float = field(default_factory=time.perf_counter)

    def add(self, info: Info) -> bool:
        """Count one superstep's records; true if it changed nothing (stability detected)."""
        self.changed.append(sum(ch for ch, _ in info))
        self.messages += sum(sum(sizes) for _, sizes in info)
        now = time.perf_counter()
        self.seconds.append(now - self.clock)
        self.clock = now
        return self.changed[-1] == 0


@dataclass(frozen=True, eq=False)
class _Job:
    """One run on the cluster: its id, the worker of every partition, and how batches travel."""

    client: Any  # the distributed API is only partly typed
    run: str
    where: tuple[str, ...]
    """The worker address of every partition."""
    routing: str
    """``direct`` or ``pick`` (see the module docstring)."""
    lookahead: int
    poll: float

    @property
    def parts(self) -> int:
        """Number of partitions."""
        return len(self.where)

    def submit(self, fn: Any, *args: Any, key: str, on: int) -> Future[Any]:
        """Submit a task pinned to the worker of partition ``on``."""
        fut: Future[Any] = self.client.submit(
            fn, *args, key=key, workers=[self.where[on]], allow_other_workers=False, pure=False
        )
        return fut

    def start(self, parts: Sequence[PartitionData]) -> list[Future[Any]]:
        """Scatter every partition to its worker, once, and submit its first superstep."""
        c = self.client
        data = [
            c.scatter(part, workers=[self.where[i]], hash=False) for i, part in enumerate(parts)
        ]
        return [
            self.submit(_start, self.run, data[i], self.parts, key=f"start-{self.run}-{i}", on=i)
            for i in range(self.parts)
        ]

    def superstep(self, k: int, outs: list[Future[Any]], sizes: Info | None) -> list[Future[Any]]:
        """Submit superstep ``k`` fed by the outputs of superstep ``k - 1`` (routing)."""
        return [self._step_task(k, q, outs, sizes) for q in range(self.parts)]

    def _step_task(
        self, k: int, q: int, outs: list[Future[Any]], sizes: Info | None
    ) -> Future[Any]:
        """The step task of partition ``q``, fed by the senders that (may) have a batch for it."""
        senders = [p for p in range(self.parts) if sizes is None or sizes[p][1][q]]
        if self.routing == "pick":  # cut the batch out on the sender's worker
            inputs = [
                self.submit(_pick, outs[p], q, key=f"pick-{self.run}-{k}-{p}-{q}", on=p)
                for p in senders
            ]
            fn: Any = _step
        else:  # the receiver reads its batch from each sender's whole output
            inputs, fn = [outs[p] for p in senders], _step_direct
        return self.submit(
            fn, self.run, q, k, self.parts, *inputs, key=f"step-{self.run}-{k}-{q}", on=q
        )

    def infos(self, k: int, outs: list[Future[Any]]) -> list[Future[Any]]:
        """Submit the info task of every partition's output of superstep ``k``."""
        return [
            self.submit(_info, o, key=f"info-{self.run}-{k}-{i}", on=i) for i, o in enumerate(outs)
        ]

    def gather(self, futures: list[Future[Any]]) -> Any:
        """Gather, failing (not hanging) if a worker holding a partition left the cluster."""
        c = self.client
        while True:
            try:
                _DD.wait(futures, timeout=self.poll)
                return c.gather(futures)
            except (TimeoutError, CancelledError) as err:
                lost = set(self.where) - set(cluster_workers(c))
                if lost:
                    raise RuntimeError(
                        f"worker(s) {', '.join(sorted(lost))} left the cluster: the run's "
                        "state on them is lost, restart the run"
                    ) from None
                if isinstance(err, CancelledError):
                    raise

    def next_phase(self, k: int) -> list[Future[Any]] | None:
        """Start every partition's next phase as superstep ``k``; its outputs, or ``None``
        when the program has no further phase."""
        outs = [
            self.submit(_phase, self.run, i, k, self.parts, key=f"phase-{self.run}-{k}-{i}", on=i)
            for i in range(self.parts)
        ]
        infos = self.gather(
            [
                self.submit(_phase_info, o, key=f"phaseinfo-{self.run}-{k}-{i}", on=i)
                for i, o in enumerate(outs)
            ]
        )
        return None if any(info is None for info in infos) else outs

    def until_quiet(self, outs: list[Future[Any]], tally: _Tally, first: int = 0) -> int:
        """Run supersteps after superstep ``first`` (whose outputs are ``outs``) until one
        changes nothing (Kars' stability detection); returns the last superstep submitted.

        Up to ``lookahead`` supersteps stay in flight ahead of the counts the driver has seen;
        those submitted after the quiet one run on empty inboxes and must change nothing."""
        pending: deque[tuple[int, list[Future[Any]]]] = deque([(first, self.infos(first, outs))])
        submitted = first
        while True:
            k, fut = pending.popleft()
            info: Info = self.gather(fut)
            if tally.add(info):
                break
            while submitted < k + 1 + self.lookahead:
                submitted += 1
                known = info if submitted == k + 1 else None
                outs = self.superstep(submitted, outs, known)
                pending.append((submitted, self.infos(submitted, outs)))
        self.drain(pending)
        return submitted

    def drain(self, pending: deque[tuple[int, list[Future[Any]]]]) -> None:
        """Let the speculative supersteps after the quiet one finish: they must be no-ops."""
        for k, fut in pending:
            if any(ch for ch, _ in self.gather(fut)):
                raise RuntimeError(f"superstep {k} changed values after a quiet superstep")

    def finish(self, out: Path | None, collect: bool) -> list[tuple[Any, Any]]:
        """Write every partition's Parquet part (if ``out``) and gather the results (if
        ``collect``); the state on the workers is freed."""
        out_dir = None if out is None else str(out)
        finals: list[tuple[Any, Any]] = self.gather(
            [
                self.submit(
                    _finish, self.run, i, out_dir, collect, key=f"finish-{self.run}-{i}", on=i
                )
                for i in range(self.parts)
            ]
        )
        return finals

    def drop(self) -> None:
        """Free the state on the workers that are still there; never wait for the others."""
        _DD.fire_and_forget(
            [
                self.submit(_drop, self.run, i, key=f"drop-{self.run}-{i}", on=i)
                for i in range(self.parts)
            ]
        )


def _assemble(finals: list[tuple[Any, Any]] | None, tally: _Tally) -> RunOutput:
    """The run's output: the partitions' results in id order (empty if not collected)."""
    values: NDArray[np.generic] = np.empty(0)
    remoteness = None
    if finals is not None:
        values = np.concatenate([v for v, _ in finals])
        rems = [r for _, r in finals]
        remoteness = None if rems[0] is None else np.concatenate(rems)
    return RunOutput(
        values=values,
        remoteness=remoteness,
        supersteps=len(tally.changed),
        messages=tally.messages,
        changed=tuple(tally.changed),
        step_seconds=tuple(tally.seconds),
    )


class DaskEngine:
    """Run vertex programs on a ``distributed.Client`` (a LocalCluster or a real cluster).

    ``out`` (a directory every worker can write to) receives one Parquet part per partition;
    ``collect=False`` leaves the per-node results on the workers' disks only (for graphs too
    large for the driver's memory).
    """

    def __init__(
        self,
        client: Client,
        *,
        out: Path | None = None,
        collect: bool = True,
        routing: str = "auto",
        lookahead: int = 1,
        poll: float = 5.0,
    ) -> None:
        if routing not in ("auto", "direct", "pick"):
            raise ValueError(f"routing must be 'auto', 'direct' or 'pick', got {routing!r}")
        self.client = client
        self.out = out
        self.collect = collect
        self.routing = routing
        self.lookahead = max(0, lookahead)
        self.poll = poll
        """Seconds between checks that the partitions' workers are still alive."""

    def _workers(self) -> list[str]:
        """The cluster's worker addresses, sorted (``RuntimeError`` if there are none)."""
        workers = sorted(cluster_workers(self.client))
        if not workers:
            raise RuntimeError("the Dask cluster has no workers")
        return workers

    def plan(self, parts: Sequence[PartitionData]) -> _Job:
        """Place the partitions on the workers (round robin) and choose the routing."""
        workers = self._workers()
        where = tuple(workers[i % len(workers)] for i in range(len(parts)))
        routing = self.routing
        if routing == "auto":
            routing = "direct" if len(parts) <= DIRECT_LIMIT else "pick"
        return _Job(
            client=self.client,
            run=f"{parts[0].semantics.value}-{uuid.uuid4().hex[:12]}",
            where=where,
            routing=routing,
            # picks of unknown size would all have to be submitted: no lookahead with picks
            lookahead=self.lookahead if routing == "direct" else 0,
            poll=self.poll,
        )

    def run(self, parts: Sequence[PartitionData]) -> RunOutput:
        """Scatter, run supersteps until a quiet one (and so each further phase of the
        program), then write and collect the results."""
        job = self.plan(parts)
        tally = _Tally()
        try:
            outs = job.start(parts)
            k = job.until_quiet(outs, tally)
            while (phase := job.next_phase(k + 1)) is not None:
                k = job.until_quiet(phase, tally, k + 1)
            outs.clear()
            finals = job.finish(self.out, self.collect)
        except BaseException:
            job.drop()
            raise
        return _assemble(finals if self.collect else None, tally)
