"""A dataset's shards judged in worker processes (``--jobs N``; standard library only): each
worker set up once (its own cache of shards), the results taken in the order of the shards
given, so that the first violation raised is the same with any number of workers."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

Run = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]


@contextmanager
def workers(jobs: int, setup: Callable[..., None], args: tuple[Any, ...]) -> Iterator[Run]:
    """``run(job, todo)``: ``job`` of each of ``todo``, in ``todo``'s order (an exception raised
    by one is raised when its turn comes); in this process (``setup(*args)`` first) when
    ``jobs`` is 1, else in ``jobs`` spawned processes, each set up by ``setup(*args)``."""
    setup(*args)
    if jobs <= 1:
        yield lambda job, todo: map(job, todo)
        return
    spawn = multiprocessing.get_context("spawn")  # a worker that dies raises, never hangs
    pool = ProcessPoolExecutor(jobs, mp_context=spawn, initializer=setup, initargs=args)
    try:
        yield lambda job, todo: pool.map(job, todo)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
