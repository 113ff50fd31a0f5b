"""Waiting for a tier's tasks without ever hanging: fail within seconds when a worker goes.

Dask on its own waits for a lost worker's tasks to be rescheduled, and waits forever for a
worker paused at its memory threshold. A tier's run instead polls: every ``poll`` seconds it
compares the scheduler's workers with those at the start and reads their status, and stops
the tier (cancelling its tasks) with a one-line ``RunFailed`` naming the worker and the tier
when one left the cluster or stayed paused longer than ``grace`` seconds.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any

from verifier.dataset.errors import DatasetError, RunFailed
from verifier.progress import progress_every

__all__ = ["cluster_workers", "fetch", "gather_tier", "share"]


def gather_tier(
    client: Any,
    futures: Sequence[Any],
    *,
    what: str,
    workers: set[str] | None = None,
    poll: float = 1.0,
    grace: float = 10.0,
    check_first: bool = True,
    say: Callable[[str], None] | None = None,
    positions: int = 0,
    each: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """The results of ``futures`` (one tier's tasks, described by ``what``, e.g. ``solving
    tier 7``), or ``RunFailed`` within about ``poll`` seconds of one of ``workers`` (the
    run's, taken at its start; default: the cluster's now) leaving the cluster and ``grace``
    seconds of one staying paused. A task's ``DatasetError`` is raised as is.
    ``check_first=False``: the workers are not asked for before the first wait (a tier's
    retrograde rounds, a few milliseconds each, checked once per ``poll`` while they wait).
    ``say``: a line at the start (``positions`` and tasks), every ``VERIFIER_PROGRESS_EVERY``
    seconds (tasks done) and at the end (the time and positions a second). ``each(i,
    result)``: called on the driver as soon as task ``i`` is seen finished (a check's record
    written, its violations said), before a failed task's error is raised."""
    import distributed

    dd: Any = distributed  # only partly typed
    start = set(cluster_workers(client)) if workers is None else workers
    paused: dict[str, float] = {}
    pending = list(enumerate(futures))
    told = began = time.monotonic()
    every = progress_every()
    count = f"{positions:,} positions in " if positions else ""
    if say is not None:
        say(f"{what}: {count}{len(pending)} shard(s)")
    try:
        if check_first:
            _check_workers(client, start, paused, what, grace)  # one lost since the last tier
        checked = time.monotonic()
        while pending:
            # wait on one pending task, then read every task's status: a wait on all of them
            # that returns early (the first done, or the poll's timeout) leaves one asyncio
            # task behind per task still pending (distributed.utils.Any), which grew the
            # driver by 220 MB a minute while 1,469 shards were checked
            with contextlib.suppress(TimeoutError):
                dd.wait([pending[0][1]], timeout=poll)
            still, failed = [], []
            for i, fut in pending:
                if fut.status == "pending":
                    still.append((i, fut))
                elif fut.status == "finished" and each is not None:
                    each(i, fetch(client, [fut], start, paused, what, grace, poll)[0])
                elif fut.status != "finished":
                    failed.append(fut)
            for fut in failed:
                _raise_if_failed(fut, what)
            pending = still
            if say is not None and pending and time.monotonic() - told >= every:
                told = time.monotonic()
                done = len(futures) - len(pending)
                say(f"{what}: {done}/{len(futures)} shard(s) done after {told - began:.0f} s")
            if pending and time.monotonic() - checked >= poll:  # not after every task
                _check_workers(client, start, paused, what, grace)
                checked = time.monotonic()
        out = fetch(client, list(futures), start, paused, what, grace, poll)
        if say is not None:
            took = time.monotonic() - began
            rate = f" ({positions / max(took, 1e-9):,.0f} positions a second)" * bool(positions)
            say(f"{what}: done in {took:.1f} s{rate}")
        return out
    except BaseException:
        client.cancel(list(futures))
        raise


def fetch(
    client: Any, futures: list[Any], start: set[str], paused: dict[str, float], what: str,
    grace: float, poll: float,
) -> list[Any]:  # fmt: skip
    """The results of finished ``futures``, the workers checked every ``poll`` seconds while
    they come (a thread): a result whose only copy was on a worker killed since is computed
    again by Dask, which for a task pinned to that worker (a stored graph's round) never
    happens, and ``client.gather`` waited forever (``solve DIR`` hung); the futures are then
    cancelled and the run fails with the worker's line."""
    import threading

    stop = threading.Event()
    lost: list[RunFailed] = []

    def watch() -> None:
        while not stop.wait(poll):
            try:
                _check_workers(client, start, paused, what, grace)
            except RunFailed as e:
                lost.append(e)
                client.cancel(futures)  # the gather below ends
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return list(client.gather(futures))
    except BaseException:
        if lost:
            raise lost[0] from None
        raise
    finally:
        stop.set()
        watcher.join()


def share(client: Any, value: Any) -> Any:
    """``value`` sent to one worker, as a future to pass to each task of a run (every other
    worker fetches it once, for its first task that needs it): a task's arguments travel with
    it, so a list of every shard given to every shard's task grows the driver with shards x
    shards (1.33 GB for the 1,469 shards of Connect Four 6x5). Not broadcast: Dask's
    ``scatter(broadcast=True)`` replicates it to every worker and waited forever when one of
    them was killed meanwhile (``verify DIR`` hung before its first task); a holder killed
    later is a worker that left, which ``gather_tier`` reports."""
    return client.scatter([value], hash=False)[0]


def cluster_workers(client: Any) -> dict[str, Any]:
    """The scheduler's record of every worker (address -> ``status``, ``memory_limit``, ...),
    asked afresh: ``client.scheduler_info()`` returns a cache that the client's periodic
    refresh replaces with one without workers, so a worker could seem to have left."""
    identity: dict[str, Any] = client.sync(client.scheduler.identity, n_workers=-1)
    return dict(identity["workers"])


def _raise_if_failed(fut: Any, what: str) -> None:
    """Re-raise a finished task's error: ``DatasetError`` as is, anything else as ``RunFailed``."""
    if fut.status == "finished":
        return
    if fut.status == "cancelled":
        raise RunFailed(f"{what}: task {fut.key} was cancelled")
    try:
        err = fut.exception()
    except CancelledError:
        raise RunFailed(f"{what}: task {fut.key} was cancelled") from None
    if isinstance(err, DatasetError | RunFailed):
        raise err
    name = type(err).__name__
    if name == "KilledWorker":
        raise RunFailed(f"{what}: the workers running task {fut.key} died: {err}") from None
    raise RunFailed(f"{what}: task {fut.key} failed: {name}: {err}") from None


def _check_workers(
    client: Any, start: set[str], paused: dict[str, float], what: str, grace: float
) -> None:
    """``RunFailed`` if a worker of ``start`` left, or one stayed paused beyond ``grace``."""
    now = time.monotonic()
    workers = cluster_workers(client)
    gone = sorted(start - set(workers))
    if gone:
        raise RunFailed(
            f"worker {', '.join(gone)} left the cluster while {what} (killed, out of memory "
            "or stopped): the finished tiers are kept, run again with --resume"
        )
    for addr, info in workers.items():
        if info.get("status") != "paused":
            paused.pop(addr, None)
        elif now - paused.setdefault(addr, now) > grace:
            raise RunFailed(
                f"worker {addr} stayed paused (memory above its pause threshold) for "
                f"{grace:g} s while {what}: give the workers more memory (--worker-memory) or "
                "use more of them; the finished tiers are kept, run again with --resume"
            )
