"""A dataset's shards judged in worker processes (``--jobs N``), each set up once (its cache of
shards, its share of the memory: ``dataset.share_memory``); the results in the shards' order, so
that the first violation raised is the same with any number of workers."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker.dataset import share_memory
except ImportError:  # pragma: no cover - the script's way
    from dataset import share_memory  # type: ignore[import-not-found,no-redef]

Run = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]


def _set_up(jobs: int, setup: Callable[..., None], args: tuple[Any, ...]) -> None:
    share_memory(jobs)
    setup(*args)


def _set_up_worker(parent: int, jobs: int, setup: Callable[..., None], args: Any) -> None:
    """``_set_up`` in a worker, which ends when ``parent`` does: a parent killed outright
    (SIGKILL) left its workers waiting for ever, holding its stdout and stderr open."""

    def follow() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=follow, daemon=True).start()
    _set_up(jobs, setup, args)


@contextmanager
def workers(jobs: int, setup: Callable[..., None], args: tuple[Any, ...]) -> Iterator[Run]:
    """``run(job, todo)``: ``job`` of each of ``todo``, in ``todo``'s order (an exception raised
    by one is raised when its turn comes); in this process (``setup(*args)`` first) when
    ``jobs`` is 1, else in ``jobs`` spawned processes, each set up by ``setup(*args)``."""
    _set_up(jobs, setup, args)
    if jobs <= 1:
        yield lambda job, todo: map(job, todo)
        return
    spawn = multiprocessing.get_context("spawn")  # a worker that dies raises, never hangs
    pool = ProcessPoolExecutor(
        jobs, mp_context=spawn, initializer=_set_up_worker,
        initargs=(os.getpid(), jobs, setup, args),
    )  # fmt: skip
    try:
        yield lambda job, todo: pool.map(job, todo)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
