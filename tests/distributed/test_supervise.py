"""``supervise.gather_tier``: a tier's results, its first failure within a poll, and no
asyncio task left behind per pending task and poll (a 6x5 verify's driver grew 220 MB a
minute from distributed's ``wait(..., FIRST_COMPLETED)`` over 1,469 pending tasks)."""

from __future__ import annotations

import time
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from verifier.dataset.errors import DatasetError  # noqa: E402
from verifier.distributed.tiers.supervise import gather_tier  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]


def slow(i: int, fail: int | None = None) -> int:
    time.sleep(0.05)
    if i == fail:
        raise DatasetError(f"task {i} found a bad shard")
    return i * i


def test_many_pending_tasks_are_waited_on_one_at_a_time(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []
    real = distributed.wait

    def wait(fs: Any, *args: Any, **kw: Any) -> Any:
        sizes.append(len(fs))
        return real(fs, *args, **kw)

    monkeypatch.setattr(distributed, "wait", wait)
    futures = [client.submit(slow, i, pure=False) for i in range(40)]
    assert gather_tier(client, futures, what="test", poll=0.02) == [i * i for i in range(40)]
    assert sizes and max(sizes) == 1  # never a wait on all the pending tasks


def test_a_failed_task_fails_the_tier_at_once(client: Any) -> None:
    futures = [client.submit(slow, i, 3, pure=False) for i in range(20)]
    t = time.monotonic()
    with pytest.raises(DatasetError, match="task 3 found a bad shard"):
        gather_tier(client, futures, what="test", poll=0.5)
    assert time.monotonic() - t < 5
