"""The clusters the package starts, and those of the tests, run no worker profiler: on CPython
before 3.11.9 its ``sys._current_frames()`` every 10 ms can deadlock the process
(``verifier.distributed.api.WORKER_CONFIG``)."""

from __future__ import annotations

from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from verifier.distributed.api import WORKER_CONFIG, _client  # noqa: E402


def _profiling(dask_worker: Any) -> bool:
    return "profile" in dask_worker.periodic_callbacks


def test_the_setting_is_the_profilers() -> None:
    assert dict(WORKER_CONFIG) == {"distributed.worker.profile.enabled": False}


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
