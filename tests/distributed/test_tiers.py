"""Tiered datasets (``verifier.distributed.tiers``): Connect Four generated and solved shard by
shard on Dask workers, against the in-memory solver, position by position.

Most tests use an in-process cluster (two one-thread workers, fast to start); the tests that
need worker *processes* (patching the driver's whole-graph loaders, killing a worker) start a
LocalCluster of their own.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tier_cli import EMPTY_DRAW, dataset_verdict, one_line_error, run_cli, stdout

from verifier import api
from verifier.games.connect4 import Board, generate

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.errors import DatasetError, RunFailed  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.storage import read_answers, read_codes, shard_path  # noqa: E402
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")

Answers = tuple[np.ndarray, np.ndarray, np.ndarray]


def processes_cluster() -> Any:
    """A LocalCluster of two worker processes (the driver's patches do not reach them)."""
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit="1GB",
    )


def dataset(root: Path, client: Any, w: int, h: int, per_shard: int) -> Path:
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(w, h), client, per_shard=per_shard)
    return root


def answers_by_code(root: Path) -> Answers:
    """Every position's code, label and remoteness, in code order."""
    m = load_manifest(root)
    codes, labels, rems = [], [], []
    for t in m.tiers:
        for s in t.shards:
            codes.append(read_codes(root, t.tier, s.shard, s.sha256, s.positions))
            label, rem = read_answers(root, t.tier, s.shard, s.answers_sha256, s.positions)
            labels.append(label)
            rems.append(rem)
    code = np.concatenate(codes)
    order = np.argsort(code)
    return code[order], np.concatenate(labels)[order], np.concatenate(rems)[order]


_REFERENCE: dict[tuple[int, int, bool], Answers] = {}


def reference(w: int, h: int, symmetry: bool = False) -> Answers:
    """The in-memory solver's answers on ``connect4.generate(w, h, symmetry)``, in code order."""
    if (w, h, symmetry) not in _REFERENCE:
        case = generate(w, h, symmetry=symmetry)
        sol = api.solve(case, engine="numpy")
        codes = case.graph.names.codes  # type: ignore[attr-defined]
        rem = sol.columns["remoteness"]
        order = np.argsort(codes)
        _REFERENCE[w, h, symmetry] = (
            codes[order],
            sol.columns["value"].data.astype(np.int8)[order],
            np.where(rem.given, rem.data, -1).astype(np.int32)[order],
        )
    return _REFERENCE[w, h, symmetry]


def assert_same_as_in_memory(root: Path, w: int, h: int, symmetry: bool = False) -> None:
    """Same positions (classes), and per position the same label and remoteness; the same
    counts per tier (stones on the board); the same root value."""
    got, want = answers_by_code(root), reference(w, h, symmetry)
    assert np.array_equal(got[0], want[0])
    assert np.array_equal(got[1], want[1])
    assert np.array_equal(got[2], want[2])
    stones = np.bitwise_count(Board(w, h).decode_all(want[0])[1])
    m = load_manifest(root)
    assert len(m.tiers) == w * h + 1
    for t in m.tiers:
        labels = want[1][stones == t.tier]
        assert t.positions == len(labels)
        assert (t.won, t.lost, t.drawn) == tuple(int((labels == v).sum()) for v in (1, -1, 0))


@pytest.mark.dask
@pytest.mark.parametrize(("w", "h", "per_shard"), [(3, 3, 40), (4, 3, 500), (4, 4, 20_000)])
def test_answers_equal_the_in_memory_solver(
    client: Any, tmp_path: Path, w: int, h: int, per_shard: int
) -> None:
    root = dataset(tmp_path / "ds", client, w, h, per_shard)
    res = solve_dataset(root, client)
    assert_same_as_in_memory(root, w, h)
    want = reference(w, h)
    at = int(np.searchsorted(want[0], Board(w, h).bottom))
    assert (res.root_label, res.root_remoteness) == (int(want[1][at]), int(want[2][at]))
    assert res.tiers_solved == w * h + 1
    assert max(len(t.shards) for t in res.manifest.tiers) > 1  # several shards were joined


@pytest.mark.dask
@pytest.mark.parametrize(("w", "h"), [(3, 3), (4, 4)])
def test_up_to_the_mirror_equals_the_in_memory_symmetric_solver(
    client: Any, tmp_path: Path, w: int, h: int
) -> None:
    root = tmp_path / "ds"
    prepare_output(root)
    game = ConnectFourTiers(w, h, symmetric=True)
    m = generate_dataset(root, game, client, per_shard=5_000)
    assert m.parameters == {"width": w, "height": h, "symmetric": 1}
    solve_dataset(root, client)
    assert_same_as_in_memory(root, w, h, symmetry=True)  # the same classes, the same answers
    plain = len(reference(w, h)[0])
    assert sum(t.positions for t in load_manifest(root).tiers) < 0.6 * plain


@pytest.mark.slow
def test_5x4_equals_the_in_memory_solver(tmp_path: Path) -> None:
    with distributed.Client(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as c:
        root = dataset(tmp_path / "ds", c, 5, 4, 400_000)
        res = solve_dataset(root, c)
    assert_same_as_in_memory(root, 5, 4)
    assert res.description is not None


@pytest.mark.dask
def test_resume_after_a_run_stopped_mid_way(client: Any, tmp_path: Path) -> None:
    root = dataset(tmp_path / "ds", client, 4, 3, 500)
    part = solve_dataset(root, client, stop_after=7)
    assert part.root_label is None and part.tiers_solved == 13 - 7
    assert [t.solved for t in load_manifest(root).tiers] == [False] * 7 + [True] * 6
    res = solve_dataset(root, client, resume=True)
    assert res.tiers_solved == 7 and res.root_label is not None
    assert_same_as_in_memory(root, 4, 3)
    again = solve_dataset(root, client, resume=True)  # nothing left to do
    assert again.tiers_solved == 0 and again.description == res.description


@pytest.mark.dask
def test_solve_resumes_a_stopped_solve_by_default_and_restart_solves_all(
    client: Any, tmp_path: Path
) -> None:
    """Issue 44 (8): ``solve DIR`` without ``--resume`` after an interrupt used to solve every
    tier again in silence; it now keeps the tiers solved and says so, ``--restart`` redoes
    them all, and a dataset solved whole is solved again."""
    root = dataset(tmp_path / "ds", client, 4, 3, 500)
    solve_dataset(root, client, stop_after=7)  # a solve that stopped after tier 7
    address = client.scheduler.address
    r = run_cli("solve", root, "--engine", "dask", "--scheduler", address)
    assert r.exit_code == 0, r.output
    assert "6 of 13 tier(s) solved are kept (--restart solves every tier again)" in r.output
    assert "7 tier(s) solved by this run" in r.output
    assert_same_as_in_memory(root, 4, 3)
    again = run_cli("solve", root, "--engine", "dask", "--scheduler", address)
    assert "13 tier(s) solved by this run" in again.output and "kept" not in again.output
    solve_dataset(root, client, stop_after=7)
    restarted = run_cli("solve", root, "--engine", "dask", "--scheduler", address, "--restart")
    assert "13 tier(s) solved by this run" in restarted.output, restarted.output
    assert_same_as_in_memory(root, 4, 3)


@pytest.mark.dask
def test_a_generation_stopped_mid_way_resumes_to_the_same_files(
    client: Any, tmp_path: Path
) -> None:
    whole = dataset(tmp_path / "whole", client, 4, 3, 500)
    part = tmp_path / "part"
    prepare_output(part)
    m = generate_dataset(part, ConnectFourTiers(4, 3), client, per_shard=500, stop_after=6)
    assert len(m.tiers) == 7 and not m.generated
    (part / "tier=7").mkdir()  # half a tier written when the run died
    (part / "tier=7" / "shard=0.parquet").write_bytes(b"half")
    m = generate_dataset(part, ConnectFourTiers(4, 3), client, resume=True)
    want = load_manifest(whole)
    assert m.generated and m.to_json() == want.to_json()  # every shard's digest the same
    assert not (part / "tmp").exists()
    again = generate_dataset(part, ConnectFourTiers(4, 3), client, resume=True)
    assert again.to_json() == want.to_json()  # a finished generation: nothing to do
    with pytest.raises(DatasetError, match="--resume continues the same game"):
        generate_dataset(part, ConnectFourTiers(4, 4), client, resume=True)


@pytest.mark.dask
def test_cli_reports_the_value_and_the_tiers(client: Any, tmp_path: Path) -> None:
    root = tmp_path / "c43"
    addr = client.scheduler.address
    r = run_cli(
        "generate", "connect4", "--width", 4, "--height", 3, "-o", root, "--engine", "dask",
        "--scheduler", addr, "--shard-positions", 500,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "12,031 positions in 13 tiers" in r.output
    r = run_cli("solve", root, "--engine", "dask", "--scheduler", addr)
    assert r.exit_code == 0, r.output
    # the answer first, then the dataset and the tiers
    first, second = stdout(r).splitlines()[:2]
    assert first == f"value: {EMPTY_DRAW}", r.output
    assert second.endswith("12,031 positions in 13 tiers, 54 shards; 13 tier(s) solved by this run")
    assert_same_as_in_memory(root, 4, 3)
    r = run_cli("solve", root, "--engine", "dask", "--scheduler", addr, "--resume", "--json")
    assert r.exit_code == 0, r.output
    assert '"tiers_solved_now": 0' in r.output
    r = run_cli("generate", "connect4", "-o", root, "--engine", "dask", "--scheduler", addr)
    assert r.exit_code == 2 and "exists" in r.output  # no --force
    r = run_cli("generate", "connect4", "--width", 4, "--height", 3, "-o", root, "--engine", "dask",
                "--scheduler", addr, "--resume")  # fmt: skip
    assert r.exit_code == 0, r.output  # finished already: nothing to do, nothing lost
    assert_same_as_in_memory(root, 4, 3)
    r = run_cli("generate", "connect4", "-o", root, "--engine", "dask", "--scheduler", addr,
                "--resume")  # fmt: skip
    one_line_error(r, 2, "--resume continues the same game")
    one_line_error(run_cli("generate", "connect4", "-o", root, "--resume"), 2, "--engine dask")
    r = run_cli("generate", "connect4", "-o", tmp_path / "nothere", "--engine", "dask",
                "--scheduler", addr, "--resume")  # fmt: skip
    one_line_error(r, 2, "nothere: no such file or directory")


@pytest.mark.dask
def test_bad_datasets_are_one_line_errors(client: Any, tmp_path: Path) -> None:
    addr = client.scheduler.address
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_cli("solve", empty, "--engine", "dask", "--scheduler", addr)
    one_line_error(r, 2, "manifest.json: missing", "not a tiered dataset")
    (empty / "manifest.json").write_text("{not json")
    r = run_cli("solve", empty, "--engine", "dask", "--scheduler", addr)
    one_line_error(r, 2, "manifest.json", "not a readable JSON manifest")

    root = dataset(tmp_path / "ds", client, 3, 3, 40)
    one_line_error(run_cli("solve", root), 2, "a tiered dataset", "--engine dask")
    shard = shard_path(root, 5, 0)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    r = run_cli("solve", root, "--engine", "dask", "--scheduler", addr)
    one_line_error(r, 2, str(shard), "corrupt", "sha256")
    shard.unlink()
    r = run_cli("solve", root, "--engine", "dask", "--scheduler", addr)
    one_line_error(r, 2, str(shard), "missing")
    with pytest.raises(DatasetError, match="not a tiered dataset"):
        prepare_output(empty.parent)  # never clears a directory it did not write


@pytest.mark.dask
def test_paused_workers_fail_the_tier_within_seconds(client: Any, tmp_path: Path) -> None:
    root = dataset(tmp_path / "ds", client, 4, 3, 500)
    workers = sorted(client.scheduler_info()["workers"])

    def pause_above(fraction: float, dask_worker: Any) -> float:
        """Set the worker's memory pause threshold (its monitor pauses it at once when the
        threshold is below what the process holds); the old threshold."""
        old: float = dask_worker.memory_manager.memory_pause_fraction
        dask_worker.memory_manager.memory_pause_fraction = fraction
        return old

    before: dict[str, float] = {}

    def pause_at(line: str) -> None:
        if line.startswith("tier 9:"):  # every worker: no other one takes the tasks over
            before.update(client.run(pause_above, 1e-6))

    t0 = time.monotonic()
    try:
        # the monitor pauses them within its interval: tier 8 or a later-started one stops
        with pytest.raises(RunFailed, match=r"worker .* stayed paused.* solving tier [0-8]\b"):
            solve_dataset(root, client, say=pause_at, poll=0.2, grace=1.0)
    finally:
        for w in workers:
            client.run(pause_above, before.get(w, 0.8), workers=[w])
    assert time.monotonic() - t0 < 30
    left = sum(not t.solved for t in load_manifest(root).tiers)
    assert left >= 1
    res = solve_dataset(root, client, resume=True)
    assert res.tiers_solved == left
    assert_same_as_in_memory(root, 4, 3)


def refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the driver loaded the whole graph")


@pytest.mark.dask
def test_the_driver_never_loads_the_whole_graph_to_generate_solve_or_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import verifier.distributed.api as dist_api
    import verifier.games.connect4 as connect4
    import verifier.io as vio
    import verifier.io.formats as formats
    from verifier.model.graph import GameGraph

    for module, name in [
        (dist_api, "load_input"),
        (vio, "load_any"),
        (formats, "load_any"),
        (connect4, "generate"),
    ]:
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(GameGraph, "__init__", refuse)
    root = tmp_path / "c44"
    opts = ("--engine", "dask", "--workers", 2, "--worker-memory", "1GB")
    r = run_cli(
        "generate", "connect4", "--width", 4, "--height", 4, "-o", root, *opts,
        "--shard-positions", 20_000,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    r = run_cli("solve", root, *opts)
    assert r.exit_code == 0, r.output
    assert "value: the empty board: draw" in r.output
    r = run_cli("verify", root, "--linear", *opts)  # and checked, still without the graph
    assert r.exit_code == 0, r.output
    assert dataset_verdict(r) == ("VERIFIED", EMPTY_DRAW), r.output
    monkeypatch.undo()
    assert_same_as_in_memory(root, 4, 4)


@dataclass(frozen=True)
class DiesInTier11(ConnectFourTiers):
    """Connect Four whose first task of tier 11 kills its own worker process, mid-tier; the
    task's rerun (on another worker) takes 5 s, so the tier is still running when the driver
    notices (the marker file says the kill happened)."""

    marker: str = ""

    def expand(self, codes: Any, tier: int) -> Any:
        if tier == 11:
            try:  # created atomically: one worker only is killed, even when both race here
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                time.sleep(5)
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().expand(codes, tier)


@pytest.mark.dask
def test_a_worker_killed_mid_tier_fails_the_run_within_seconds_then_resume_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cloudpickle

    import verifier.distributed.tiers.driver as driver

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import it
    marker = tmp_path / "killed"
    monkeypatch.setattr(
        driver, "game_from_manifest", lambda *a: DiesInTier11(4, 4, marker=str(marker))
    )
    with processes_cluster() as cluster, distributed.Client(cluster) as c:
        # the generation dies in tier 12 (made from tier 11): --resume continues it
        root = tmp_path / "ds"
        prepare_output(root)
        died = DiesInTier11(4, 4, marker=str(tmp_path / "killed-generating"))
        t0 = time.monotonic()
        with pytest.raises(RunFailed, match=r"left the cluster while generating tier 12"):
            generate_dataset(root, died, c, per_shard=20_000)
        assert time.monotonic() - t0 < 30
        assert len(load_manifest(root).tiers) == 12 and not load_manifest(root).generated
        c.wait_for_workers(2, timeout=30)
        generate_dataset(root, ConnectFourTiers(4, 4), c, resume=True)
        assert load_manifest(root).generated and len(load_manifest(root).tiers) == 17
        t0 = time.monotonic()
        with pytest.raises(
            RunFailed, match=r"worker tcp://\S+ left the cluster while solving tier 11"
        ):
            solve_dataset(root, c)
        assert time.monotonic() - t0 < 30
        assert marker.exists()
        monkeypatch.undo()
        c.wait_for_workers(2, timeout=30)  # the nanny restarts the killed worker
        r = run_cli("solve", root, "--engine", "dask", "--scheduler", cluster.scheduler_address,
                    "--resume")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "value: the empty board: draw" in r.output
    assert "12 tier(s) solved by this run" in r.output  # tiers 11 to 0
    assert_same_as_in_memory(root, 4, 4)
