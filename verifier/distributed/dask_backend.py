"""The Dask engine: partitions pinned to the workers of a ``distributed`` cluster.

Placement and data movement:

- ``DaskEngine.run`` scatters each partition's read-only slice (``PartitionData``) to one worker,
  once, and pins every task of that partition to that worker (``workers=[addr]``,
  ``allow_other_workers=False``).
- The mutable program state (values, Knuth counters, edge values) stays in the worker process
  for the whole run, in a worker-local table keyed by run id and partition; tasks update it in
  place, so a superstep costs work proportional to its frontier, never a copy of the partition.
  This is Kars' processor with its variable S; like a Dask actor it is not resilient: if a worker
  dies mid-run the run fails (``RuntimeError``) and has to be restarted.
- Per superstep the driver submits, per destination partition ``q``, one *pick* task per
  non-empty batch addressed to ``q`` (Dask moves the batch between workers) and one *step* task
  on ``q``'s worker; then it gathers the tiny ``(changed, batch sizes)`` records. So a superstep
  is ``P`` step tasks, at most ``P * P`` pick tasks (only the non-empty ones) and one round trip.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
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


def _info(out: StepOutput) -> tuple[int, tuple[int, ...]]:
    return out.changed, tuple(len(b) for b in out.batches)


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

    def __init__(self, client: Client, *, out: Path | None = None, collect: bool = True) -> None:
        self.client = client
        self.out = out
        self.collect = collect

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

        def submit(fn: Any, *args: Any, key: str, on: int) -> Future[Any]:
            fut: Future[Any] = c.submit(
                fn, *args, key=key, workers=[where[on]], allow_other_workers=False, pure=False
            )
            return fut

        t0 = time.perf_counter()
        data = [c.scatter(part, workers=[where[i]], hash=False) for i, part in enumerate(parts)]
        outs = [
            submit(_start, run, data[i], p_count, key=f"start-{run}-{i}", on=i)
            for i in range(p_count)
        ]

        def infos(step: int) -> list[tuple[int, tuple[int, ...]]]:
            return c.gather(  # type: ignore[no-any-return]
                [submit(_info, o, key=f"info-{run}-{step}-{i}", on=i) for i, o in enumerate(outs)]
            )

        try:
            info = infos(0)
            changed = [sum(ch for ch, _ in info)]
            messages = sum(sum(sizes) for _, sizes in info)
            seconds = [time.perf_counter() - t0]
            k = 0
            while changed[-1]:
                k += 1
                t0 = time.perf_counter()
                new: list[Future[Any]] = []
                for q in range(p_count):
                    picks = [
                        submit(_pick, outs[p], q, key=f"pick-{run}-{k}-{p}-{q}", on=q)
                        for p in range(p_count)
                        if info[p][1][q]
                    ]
                    new.append(
                        submit(_step, run, q, k, p_count, *picks, key=f"step-{run}-{k}-{q}", on=q)
                    )
                outs = new
                info = infos(k)
                changed.append(sum(ch for ch, _ in info))
                messages += sum(sum(sizes) for _, sizes in info)
                seconds.append(time.perf_counter() - t0)
            out_dir = None if self.out is None else str(self.out)
            finals = c.gather(
                [
                    submit(_finish, run, i, out_dir, self.collect, key=f"finish-{run}-{i}", on=i)
                    for i in range(p_count)
                ]
            )
        except BaseException:
            c.gather([submit(_drop, run, i, key=f"drop-{run}-{i}", on=i) for i in range(p_count)])
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
