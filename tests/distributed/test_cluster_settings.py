"""The clusters the package starts, and those of the tests, run no worker profiler: on CPython
before 3.11.9 its ``sys._current_frames()`` every 10 ms can deadlock the process; and the
workers the package starts keep freed memory for reuse (glibc's thresholds, Arrow's pool's
purge delay) instead of faulting every array in afresh
(``verifier.distributed.api.WORKER_CONFIG``)."""

from __future__ import annotations

from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from verifier.distributed.api import WORKER_CONFIG, _client  # noqa: E402


def _profiling(dask_worker: Any) -> bool:
    return "profile" in dask_worker.periodic_callbacks


def test_the_settings() -> None:
    spawn = "distributed.nanny.pre-spawn-environ."
    assert dict(WORKER_CONFIG) == {
        "distributed.worker.profile.enabled": False,
        spawn + "MALLOC_MMAP_THRESHOLD_": 33554432,
        spawn + "MALLOC_TRIM_THRESHOLD_": 268435456,
        spawn + "MIMALLOC_PURGE_DELAY": 1000,
    }


def _allocators() -> tuple[str | None, str | None, str | None, str | None, str]:
    import os

    import pyarrow as pa

    env = os.environ.get
    return (env("MALLOC_MMAP_THRESHOLD_"), env("MALLOC_TRIM_THRESHOLD_"),
            env("MIMALLOC_PURGE_DELAY"), env("OMP_NUM_THREADS"),
            pa.default_memory_pool().backend_name)  # fmt: skip


@pytest.mark.dask
def test_a_cluster_the_package_starts_keeps_memory_for_reuse() -> None:
    """Each worker process starts with the allocator settings (Dask's own 64 KiB trim
    threshold replaced, its other variables kept; Arrow's pool, mimalloc, purging what is
    freed after a second instead of 10 ms)."""
    pytest.importorskip("pyarrow")
    with _client(None, 2) as c:
        got = c.run(_allocators)
    assert len(got) == 2, got
    assert set(got.values()) == {("33554432", "268435456", "1000", "1", "mimalloc")}, got


@pytest.mark.dask
def test_the_tests_cluster_runs_no_profiler(client: Any) -> None:
    got = client.run(_profiling)
    assert len(got) == 2 and not any(got.values()), got


@pytest.mark.dask
def test_a_cluster_the_package_starts_runs_no_profiler() -> None:
    import dask

    # as a user's session would be: Dask's own default (profiler on) around the call
    with dask.config.set({"distributed.worker.profile.enabled": True}), _client(None, 2) as c:
        got = c.run(_profiling)
    assert len(got) == 2 and not any(got.values()), got
