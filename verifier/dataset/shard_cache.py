"""A worker's cache of the shard files it has read: each file read (and its sha256 checked)
once per worker while it fits, not once per task that needs it.

A check task of tier K looks up its moves' targets in every shard of tier K + 1 that they
reach (with a hash-sharded tier: every shard), and a solve task does the same with the
answers; without a cache the reads grow as shards(K) x shards(K + 1), each a Parquet decode
and a sha256 of the whole file. The cache keeps the decoded arrays of the files read with
``cached`` (codes, answers, aligned claims: 13 bytes a position), least recently used out,
within a byte budget: a quarter of the worker's memory limit (``budget``), none outside a
worker (the driver holds nothing).

An entry is the file as it was read: its key is the path, the digest the reader expects and
the file's inode, size and change times, so that a file rewritten or corrupted since (even in
place, with its old modification time put back) is read and checked again, and a reader that
expects another digest never gets the arrays checked against the first.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

__all__ = ["budget", "cached", "clear", "held_first"]

T = TypeVar("T")

SHARE = 0.25
"""The part of a worker's memory limit the cache may hold."""

_lock = threading.Lock()
_entries: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
_held = [0]


def budget() -> int:
    """Bytes the cache may hold in this process: ``SHARE`` of the Dask worker's memory limit
    (0 outside a worker, or a worker without a limit: nothing is cached)."""
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):  # not on a worker
        return 0
    return int((limit or 0) * SHARE)


def _arrays(value: Any) -> list[np.ndarray[Any, Any]]:
    """The arrays a reader returned: one, a tuple of them or a dict of columns."""
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, tuple | list):
        items = list(value)
    else:
        items = [value]
    return [x for x in items if isinstance(x, np.ndarray)]


def cached(path: Path, sha256: str | None, read: Callable[[], T], what: str = "") -> T:
    """``read()`` (which reads ``path`` and checks it against ``sha256``), or the arrays it
    returned the last time this process read the same file unchanged for the same digest;
    ``what``: which reading of the file (its columns). The arrays returned are read-only."""
    limit = budget()
    try:
        st = os.stat(path)
    except OSError:
        return read()  # missing or unreadable: the reader says so in its words
    key = (str(path), what, sha256, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _lock:
        hit = _entries.get(key)
        if hit is not None:
            _entries.move_to_end(key)
            value: T = hit[0]
            return value
    value = read()
    arrays = _arrays(value)
    size = sum(x.nbytes for x in arrays)
    if size > limit:
        return value
    for x in arrays:
        x.flags.writeable = False
    with _lock:
        if key not in _entries:
            _entries[key] = (value, size)
            _held[0] += size
        while _held[0] > limit and _entries:
            _, (_, n) = _entries.popitem(last=False)
            _held[0] -= n
    return value


def held_first(paths: Sequence[Path]) -> list[int]:
    """The indices of ``paths`` in the order to read them: the files this process holds first
    (the least recently used of them first), then the others in their order. A task that looks
    up its moves' targets in every shard of the next tier, read in the same order by every
    task, would find none of them held once the tier is larger than the cache (a cyclic scan
    evicts each file just before it is read again); held first, a task reads from disk only
    the shards the cache could not keep."""
    where = {str(p): i for i, p in enumerate(paths)}
    with _lock:
        held = [where[k[0]] for k in _entries if k[0] in where]
    first = list(dict.fromkeys(held))
    seen = set(first)
    return first + [i for i in range(len(paths)) if i not in seen]


def clear() -> None:
    """Forget every entry (tests; a worker's memory given back)."""
    with _lock:
        _entries.clear()
        _held[0] = 0
