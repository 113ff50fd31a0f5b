"""Sizing a stored graph's shards from every byte a worker holds while solving it
(``verifier.distributed.tiers.sizing``): the arithmetic on made-up sizes, the refusals before
any work (generation and solve, one line naming the ``--worker-memory`` needed), and a graph
solved by worker processes given just the memory the sizing says it needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tier_cli import one_line_error, run_cli

from verifier.distributed.tiers import sizing
from verifier.distributed.tiers.sizing import (
    BASELINE,
    TASK_BYTES_PER_EDGE,
    TASK_BYTES_PER_NODE,
    Load,
    WorkersTooSmall,
    check_fits,
    need_bytes,
    shards_needed,
    smallest_limit,
)

GB = 10**9


def test_need_is_the_sum_of_every_part() -> None:
    load = Load(nodes=10_000_000, moves=30_000_000, shard_nodes=1_000_000, shard_moves=3_000_000)
    limit = 3 * GB
    state = 9 * 10_000_000
    kept = min(limit // 3 - state, 16 * 30_000_000)
    messages = 3_000_000 * 9  # a tenth of the moves carry one
    task = TASK_BYTES_PER_NODE * 1_000_000 + TASK_BYTES_PER_EDGE * 3_000_000
    assert need_bytes(load, limit) == BASELINE + state + kept + messages + task
    several = Load(10_000_000, 30_000_000, 1_000_000, 3_000_000, tiers=2)  # the shard cache
    assert need_bytes(several, limit) == need_bytes(load, limit) + limit // 4
    seen = Load(10_000_000, 30_000_000, 1_000_000, 3_000_000, seen=True)  # impartial's values
    assert need_bytes(seen, limit) > need_bytes(load, limit)


def test_more_state_or_less_memory_needs_more_shards() -> None:
    nodes, moves = 100_000_000, 300_000_000
    normal = shards_needed(nodes, moves, 2, 3 * GB)
    assert normal % 2 == 0 and normal >= 4
    assert shards_needed(nodes, moves, 2, 3 * GB, "minimax") > normal  # 30 bytes a node
    assert shards_needed(nodes, moves, 2, 3 * GB, tiers=2) > normal  # the cache's quarter
    assert shards_needed(nodes, moves, 2, int(1.5 * GB)) > normal
    assert shards_needed(nodes, moves, 4, int(1.5 * GB)) < shards_needed(
        nodes, moves, 2, int(1.5 * GB)
    )
    # each shard fits where it runs, and half as many would not
    s = shards_needed(nodes, moves, 2, int(1.5 * GB))
    mine = Load(nodes // 2, moves // 2, -(-nodes // s), -(-moves // s))
    assert sizing.fits(mine, int(1.5 * GB))
    half = Load(nodes // 2, moves // 2, -(-nodes // (s // 2)), -(-moves // (s // 2)))
    assert not sizing.fits(half, int(1.5 * GB))


def test_large_workers_get_shards_under_dask_s_spill_threshold() -> None:
    """Shards are sized under ``ROOMY`` (60%: below Dask's spill threshold) when they can hold
    ``ROOMY_SHARD`` nodes, else under ``TARGET`` (75%) up to that size; more memory never
    means more shards."""
    nodes, moves = 100_000_000, 300_000_000
    assert shards_needed(nodes, moves, 2, 3_000_000_000) == 32  # 16 when sized to TARGET
    assert shards_needed(nodes, moves, 2, 1_500_000_000) == 54  # as before: small workers

    def need(shards: int, limit: int) -> float:
        per = -(-nodes // shards)
        return need_bytes(Load(nodes // 2, moves // 2, per, 3 * per), limit) / limit

    assert need(32, 3_000_000_000) <= sizing.ROOMY < need(30, 3_000_000_000)
    assert sizing.ROOMY < need(54, 1_500_000_000) <= sizing.TARGET
    limits = range(1_200_000_000, 20_000_000_000, 100_000_000)
    counts = [shards_needed(nodes, moves, 2, limit) for limit in limits]
    assert counts == sorted(counts, reverse=True), counts


def test_a_shard_that_cannot_fit_is_refused_with_the_memory_it_needs() -> None:
    with pytest.raises(WorkersTooSmall) as e:
        shards_needed(100_000_000, 300_000_000, 2, 1 * GB)
    line = str(e.value)
    assert "\n" not in line and "--worker-memory 1.2GB" in line, line
    assert "50,000,000 nodes, 9 bytes each" in line
    smallest = Load(50_000_000, 150_000_000, 100_000, 300_000)
    assert smallest_limit(smallest) == 1_200_000_000  # a multiple of 100 MB...
    assert sizing.fits(smallest, 1_200_000_000)  # ... which fits
    assert not sizing.fits(smallest, 1_100_000_000)  # and 100 MB less does not
    assert shards_needed(100_000_000, 300_000_000, 2, 1_200_000_000) > 100  # small shards


def test_a_dataset_s_shards_are_checked_where_they_run() -> None:
    big = [(2_777_778, 8_333_333)] * 36  # 10^8 nodes in the shards drawn for 3 GB workers
    check_fits("ds: tier 0", big, 2, 3 * GB)
    with pytest.raises(WorkersTooSmall) as e:
        check_fits("ds: tier 0", big, 2, int(1.5 * GB))
    line = str(e.value)
    assert line.startswith("ds: tier 0: its shards of up to 2,777,778 nodes need ")
    assert "--worker-memory 1.8GB (or generate it again" in line, line
    tiny = [(100_000, 300_000)] * 1_000  # small shards, too much state for any of them
    with pytest.raises(WorkersTooSmall) as e:
        check_fits("ds: tier 0", tiny, 2, 1 * GB)
    assert "--worker-memory 1.2GB:" in str(e.value)  # no regenerating helps
    lopsided = [(10_000_000, 30_000_000), (1_000, 3_000)]  # shard 0 on the first worker
    with pytest.raises(WorkersTooSmall, match="up to 10,000,000 nodes"):
        check_fits("ds: tier 0", lopsided, 2, 2 * GB)


distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.graphs import GraphTiers  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.storage import answers_path  # noqa: E402
from verifier.distributed.tiers import driver, graph_generate  # noqa: E402
from verifier.distributed.tiers.driver import prepare_output, solve_dataset  # noqa: E402
from verifier.distributed.tiers.graph_generate import generate_random_graph  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def _spec(nodes: int) -> GraphTiers:
    return GraphTiers(nodes, 0, seed=3, degree=3.0, terminal_fraction=0.1,
                      terminal_values="-1,0,1")  # fmt: skip


def test_solve_and_generation_refuse_workers_too_small_before_any_work(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "g"
    prepare_output(root)
    generate_random_graph(root, _spec(200_000), client, per_shard=200_000)
    before = (root / "manifest.json").read_text()
    monkeypatch.setattr(driver, "worker_bytes", lambda _c: 200_000_000)
    with pytest.raises(WorkersTooSmall, match=r"tier 0: its shards of up to 100,000 nodes need "
                       r"--worker-memory 0\.\dGB: workers of 0\.2GB"):  # fmt: skip
        solve_dataset(root, client)
    assert (root / "manifest.json").read_text() == before  # nothing started
    assert not answers_path(root, 0, 0).exists()
    monkeypatch.setattr(graph_generate, "worker_bytes", lambda _c: 200_000_000)
    prepare_output(tmp_path / "h")
    with pytest.raises(WorkersTooSmall, match=r"--worker-memory 0\.\dGB or more workers"):
        generate_random_graph(tmp_path / "h", _spec(200_000), client)
    assert not list((tmp_path / "h").glob("tier=*"))  # nothing drawn


def _peak() -> int:
    """This process's peak resident set, in bytes."""
    return int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0]) * 1024


@pytest.mark.dask
def test_a_graph_is_solved_by_workers_given_just_the_memory_it_needs(tmp_path: Path) -> None:
    nodes, moves = 600_000, 1_800_000
    mine = Load(nodes // 2, moves // 2, sizing.MIN_SHARD, 3 * sizing.MIN_SHARD)
    limit = smallest_limit(mine)  # the least memory for shards of 100,000 nodes
    assert limit <= 400 << 20, limit
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit=limit,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):  # fmt: skip
        root = tmp_path / "g"
        prepare_output(root)
        m = generate_random_graph(root, _spec(nodes), c)
        shards = len(m.tiers[0].shards)
        assert shards == shards_needed(nodes, moves, 2, limit) and shards >= 4
        res = solve_dataset(root, c)
        peaks = c.run(_peak)
    t = load_manifest(root).tiers[0]
    assert t.solved and t.won + t.lost + t.drawn == nodes and t.won > 0 and t.lost > 0
    assert res is not None
    assert max(peaks.values()) <= 0.8 * limit, (peaks, limit)  # never at the pause


def test_cli_refuses_a_dataset_too_big_for_the_workers_in_one_line(
    tmp_path: Path, client: Any
) -> None:
    root = tmp_path / "g"
    prepare_output(root)
    generate_random_graph(root, _spec(200_000), client, per_shard=200_000)
    r = run_cli("solve", root, "--engine", "dask", "--workers", "1", "--worker-memory", "250MB")
    one_line_error(r, 3, f"{root}: tier 0: its shards of up to 100,000 nodes need",
                   "--worker-memory 0.", "workers of 250MB")  # fmt: skip


def test_kept_reverse_edges_give_way_to_the_states_a_worker_comes_to_hold(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edges kept while a worker held few states are dropped once its states leave them over
    the budget (else state and kept edges together pass the third of the limit sizing counts)."""
    import numpy as np

    from verifier.dataset.graph_storage import reverse_path
    from verifier.distributed.tiers import graph_tasks

    root = tmp_path / "g"
    prepare_output(root)
    generate_random_graph(root, _spec(2_000), client, per_shard=1_000)
    s0, s1 = load_manifest(root).tiers[0].shards
    early = (str(reverse_path(root, 0, s0.shard)), "kept when the worker held nothing")
    big = np.zeros(100_000, dtype=np.uint64)
    monkeypatch.setattr(graph_tasks, "_KEPT", {early: (big, big)})  # 1.6 MB kept
    monkeypatch.setattr(graph_tasks, "_keep_budget", lambda: 1_000_000)  # states grew since
    dst, _ = graph_tasks._reverse_edges(root, 0, s1)
    assert len(dst) == s1.reverse_edges
    assert early not in graph_tasks._KEPT  # given way
    assert (str(reverse_path(root, 0, s1.shard)), s1.reverse_sha256) in graph_tasks._KEPT
