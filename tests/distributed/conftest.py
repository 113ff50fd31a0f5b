"""The cluster most tiered-dataset tests share: two one-thread Dask workers in this process
(fast to start, and a test's patches reach the tasks). ``test_dask.py`` keeps its own cluster
of worker processes; tests that kill a worker start one of their own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

try:  # every cluster of the tests (this fixture's and the tests' own) without Dask's profiler
    import dask

    from verifier.distributed.api import WORKER_CONFIG

    dask.config.set(dict(WORKER_CONFIG))
except ImportError:  # the tests that need Dask skip themselves
    pass


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two one-thread workers in this process, one cluster per test module."""
    distributed = pytest.importorskip("distributed")
    with distributed.Client(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as c:
        yield c
