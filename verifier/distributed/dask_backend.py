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
from pathlib import Path
from typing import Any

import distributed
import numpy as np
from dask.sizeof import sizeof
from distributed import Client, Future

from verifier.distributed.parquet_io import write_result_part
from verifier.distributed.partition import Messages, PartitionData
from verifier.distributed.programs import ProgramState
from verifier.distributed.superstep import (
    RunOutput,
    StepOutput,
    merge_inbox,
    partition_superstep,
    start_program,
)

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
    return f"{run}/{p}"


def _start(run: str, part: PartitionData, parts: int) -> StepOutput:
    state, out = start_program(part, parts)
    with _LOCK:
        _STATES[_key(run, part.index)] = (state, part)
    return out


def _step(run: str, p: int, superstep: int, parts: int, *batches: Messages) -> StepOutput:
    try:
        state, part = _STATES[_key(run, p)]
    except KeyError:
        raise RuntimeError(
            f"partition {p} of run {run} is not on this worker (did a worker restart?)"
        ) from None
    return partition_superstep(state, part, merge_inbox(batches), superstep, parts)


def _pick(out: StepOutput, q: int) -> Messages:
    return out.batches[q]


def _step_direct(run: str, q: int, superstep: int, parts: int, *outs: StepOutput) -> StepOutput:
    return _step(run, q, superstep, parts, *(o.batches[q] for o in outs))


def _info(out: StepOutput) -> tuple[int, tuple[int, ...]]:
    return out.changed, tuple(b.size for b in out.batches)


def _finish(run: str, p: int, out_dir: str | None, collect: bool) -> tuple[Any, Any]:
    with _LOCK:
        state, part = _STATES.pop(_key(run, p))
    values, remoteness = state.output()
    if out_dir is not None:
        write_result_part(Path(out_dir), part, state.view, values, remoteness)
    if not collect:
        return None, None
    return values, remoteness


def _drop(run: str, p: int) -> None:
    with _LOCK:
        _STATES.pop(_key(run, p), None)


# ---------------------------------------------------------------------- driver side
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
        workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            raise RuntimeError("the Dask cluster has no workers")
        return workers

    def run(self, parts: Sequence[PartitionData]) -> RunOutput:
        c: Any = self.client  # the distributed API is only partly typed
        p_count = len(parts)
        workers = self._workers()
        where = [workers[i % len(workers)] for i in range(p_count)]
        run = f"{parts[0].semantics.value}-{uuid.uuid4().hex[:12]}"
        routing = self.routing
        if routing == "auto":
            routing = "direct" if p_count <= DIRECT_LIMIT else "pick"
        # picks of unknown size would all have to be submitted: no lookahead with picks
        lookahead = self.lookahead if routing == "direct" else 0

        def submit(fn: Any, *args: Any, key: str, on: int) -> Future[Any]:
            fut: Future[Any] = c.submit(
                fn, *args, key=key, workers=[where[on]], allow_other_workers=False, pure=False
            )
            return fut

        def superstep(k: int, outs: list[Future[Any]], sizes: Info | None) -> list[Future[Any]]:
            """Submit superstep ``k`` fed by the outputs of superstep ``k - 1``."""
            new: list[Future[Any]] = []
            for q in range(p_count):
                senders = [p for p in range(p_count) if sizes is None or sizes[p][1][q]]
                if routing == "pick":  # cut the batch out on the sender's worker
                    inputs = [
                        submit(_pick, outs[p], q, key=f"pick-{run}-{k}-{p}-{q}", on=p)
                        for p in senders
                    ]
                    fn: Any = _step
                else:  # the receiver reads its batch from each sender's whole output
                    inputs, fn = [outs[p] for p in senders], _step_direct
                new.append(submit(fn, run, q, k, p_count, *inputs, key=f"step-{run}-{k}-{q}", on=q))
            return new

        def infos(k: int, outs: list[Future[Any]]) -> list[Future[Any]]:
            return [submit(_info, o, key=f"info-{run}-{k}-{i}", on=i) for i, o in enumerate(outs)]

        def collect(futures: list[Future[Any]]) -> Any:
            """Gather, failing (not hanging) if a worker holding a partition left the cluster."""
            while True:
                try:
                    _DD.wait(futures, timeout=self.poll)
                    return c.gather(futures)
                except (TimeoutError, CancelledError) as err:
                    lost = set(where) - set(c.scheduler_info()["workers"])
                    if lost:
                        raise RuntimeError(
                            f"worker(s) {', '.join(sorted(lost))} left the cluster: the run's "
                            "state on them is lost, restart the run"
                        ) from None
                    if isinstance(err, CancelledError):
                        raise

        t0 = time.perf_counter()
        data = [c.scatter(part, workers=[where[i]], hash=False) for i, part in enumerate(parts)]
        outs = [
            submit(_start, run, data[i], p_count, key=f"start-{run}-{i}", on=i)
            for i in range(p_count)
        ]
        # supersteps in flight: (k, info futures); later ones are submitted before the driver
        # knows whether k changed anything (if not, they run on empty inboxes and change nothing)
        pending: deque[tuple[int, list[Future[Any]]]] = deque([(0, infos(0, outs))])
        changed: list[int] = []
        seconds: list[float] = []
        messages = 0
        try:
            submitted = 0
            while True:
                k, fut = pending.popleft()
                info: Info = collect(fut)
                changed.append(sum(ch for ch, _ in info))
                messages += sum(sum(sizes) for _, sizes in info)
                now = time.perf_counter()
                seconds.append(now - t0)
                t0 = now
                if changed[-1] == 0:
                    break
                while submitted < k + 1 + lookahead:
                    submitted += 1
                    known = info if submitted == k + 1 else None
                    outs = superstep(submitted, outs, known)
                    pending.append((submitted, infos(submitted, outs)))
            for k, fut in pending:  # let the speculative supersteps finish: they are no-ops
                if any(ch for ch, _ in collect(fut)):
                    raise RuntimeError(f"superstep {k} changed values after a quiet superstep")
            outs.clear()
            out_dir = None if self.out is None else str(self.out)
            finals = collect(
                [
                    submit(_finish, run, i, out_dir, self.collect, key=f"finish-{run}-{i}", on=i)
                    for i in range(p_count)
                ]
            )
        except BaseException:
            # free the state on the workers that are still there; never wait for the others
            _DD.fire_and_forget(
                [submit(_drop, run, i, key=f"drop-{run}-{i}", on=i) for i in range(p_count)]
            )
            raise
        if self.collect:
            values = np.concatenate([v for v, _ in finals])
            rems = [r for _, r in finals]
            remoteness = None if rems[0] is None else np.concatenate(rems)
        else:
            values, remoteness = np.empty(0), None
        return RunOutput(
            values=values,
            remoteness=remoteness,
            supersteps=len(changed),
            messages=messages,
            changed=tuple(changed),
            step_seconds=tuple(seconds),
        )
