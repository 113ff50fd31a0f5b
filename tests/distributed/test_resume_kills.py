"""Issue 48 (3): a generation or a solve stopped at any moment resumes to the same dataset.

The stops are deterministic: a step's task function is replaced by one that runs the real task
for its first ``N`` calls (their files written, their inputs removed, as a finished task
leaves them) and then stands for the run dying (every later call raises ``RunFailed``, after
the calls still running have ended); ``--resume`` (``resume=True``) must then finish and
write exactly the files and digests of a run that never stopped. The last test kills the
command line's process (SIGKILL) once its standard error shows a given step and resumes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset import shard_tasks as tasks  # noqa: E402
from verifier.dataset.errors import RunFailed  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.distributed.tiers import driver  # noqa: E402
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.games.tiered import chess as chess_tiers  # noqa: E402
from verifier.games.tiered.chess import generate_chess  # noqa: E402
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Port 8787 is already in use")


def dies_after(real: Callable[..., Any], n: int, at: Path) -> Callable[..., Any]:
    """``real`` for its first ``n`` calls, then a run that died: every later call raises
    ``RunFailed`` once the real calls under way have ended (none runs on beside a resume).
    The count and the lock are files in ``at`` (the tasks are pickled: no lock object)."""
    at.mkdir(parents=True, exist_ok=True)
    count, lock = at / "calls", at / "lock"
    count.write_text("0")

    def task(*args: Any, **kwargs: Any) -> Any:
        import fcntl

        with open(lock, "w") as f:  # one real call at a time: a failing one waits for them
            fcntl.flock(f, fcntl.LOCK_EX)
            calls = int(count.read_text()) + 1
            count.write_text(str(calls))
            if calls > n:
                raise RunFailed(f"killed after {n} task(s)")
            return real(*args, **kwargs)

    return task


def same_dataset(got: Path, want: Path) -> None:
    """The two datasets' manifests are equal (every shard's counts and digests)."""
    assert load_manifest(got).to_json() == load_manifest(want).to_json()


# --- chess: scan, expand, resolve, finish --------------------------------------------------

CHESS = {"symmetric": True, "shards": 3, "span": 20_000}
"""KQK up to symmetry: 3 chunks of tier 0, 3 shards a tier, a few seconds a run."""


@pytest.fixture(scope="module")
def kqk_whole(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whole") / "ds"
    prepare_output(root)
    generate_chess(root, "KQK", client, **CHESS)  # type: ignore[arg-type]
    return root


@pytest.mark.dask
@pytest.mark.parametrize(
    ("task", "n"),
    [
        ("scan_chunk", 2),
        ("expand_shard", 1),
        ("expand_shard", 4),
        ("resolve_chunk", 1),
        ("resolve_chunk", 3),
        ("finish_shard", 1),  # the case: tmp/back/... missing on --resume
        ("finish_shard", 5),
    ],
)
def test_a_chess_generation_killed_after_n_tasks_of_a_step_resumes_to_the_same_dataset(
    client: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kqk_whole: Path,
    task: str,
    n: int,
) -> None:
    root = tmp_path / "ds"
    prepare_output(root)
    monkeypatch.setattr(
        chess_tiers, task, dies_after(getattr(chess_tiers, task), n, tmp_path / "kill")
    )
    with pytest.raises(RunFailed, match="killed after"):
        generate_chess(root, "KQK", client, **CHESS)  # type: ignore[arg-type]
    monkeypatch.undo()
    assert not load_manifest(root).generated
    generate_chess(root, "KQK", client, symmetric=True, resume=True)
    same_dataset(root, kqk_whole)
    assert not (root / "tmp").exists()


@pytest.mark.dask
def test_a_chess_generation_killed_twice_in_its_edges_step_resumes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kqk_whole: Path
) -> None:
    """Killed in the edges step, resumed, killed again in it: the shards finished by either
    run are kept, the others written."""
    root = tmp_path / "ds"
    prepare_output(root)
    real = chess_tiers.finish_shard
    monkeypatch.setattr(chess_tiers, "finish_shard", dies_after(real, 2, tmp_path / "kill1"))
    with pytest.raises(RunFailed):
        generate_chess(root, "KQK", client, **CHESS)  # type: ignore[arg-type]
    monkeypatch.setattr(chess_tiers, "finish_shard", dies_after(real, 1, tmp_path / "kill2"))
    with pytest.raises(RunFailed):
        generate_chess(root, "KQK", client, symmetric=True, resume=True)
    monkeypatch.undo()
    generate_chess(root, "KQK", client, symmetric=True, resume=True)
    same_dataset(root, kqk_whole)


# --- Connect Four: expand and merge, tier by tier --------------------------------------------


@pytest.fixture(scope="module")
def c4_whole(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whole") / "c4"
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(4, 3), client, per_shard=1_000)
    return root


@pytest.mark.dask
@pytest.mark.parametrize(
    ("task", "n"), [("expand_shard", 3), ("merge_shard", 1), ("merge_shard", 7)]
)
def test_a_connect4_generation_killed_after_n_tasks_resumes_to_the_same_dataset(
    client: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    c4_whole: Path,
    task: str,
    n: int,
) -> None:
    root = tmp_path / "c4"
    prepare_output(root)
    monkeypatch.setattr(driver, task, dies_after(getattr(tasks, task), n, tmp_path / "kill"))
    with pytest.raises(RunFailed, match="killed after"):
        generate_dataset(root, ConnectFourTiers(4, 3), client, per_shard=1_000)
    monkeypatch.undo()
    generate_dataset(root, ConnectFourTiers(4, 3), client, resume=True)
    same_dataset(root, c4_whole)


# --- solve: a tier killed mid-way ------------------------------------------------------------


@pytest.mark.dask
@pytest.mark.parametrize("n", [1, 2, 4])
def test_a_solve_killed_mid_tier_resumes_to_the_same_answers(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, c4_whole: Path, n: int
) -> None:
    import shutil

    whole = tmp_path / "whole"
    shutil.copytree(c4_whole, whole)
    want = solve_dataset(whole, client)
    root = tmp_path / "c4"
    shutil.copytree(c4_whole, root)
    monkeypatch.setattr(driver, "solve_shard", dies_after(tasks.solve_shard, n, tmp_path / "kill"))
    with pytest.raises(RunFailed, match="killed after"):
        solve_dataset(root, client)
    monkeypatch.undo()
    got = solve_dataset(root, client, resume=True)
    same_dataset(root, whole)
    assert (got.root_label, got.root_remoteness) == (want.root_label, want.root_remoteness)


@pytest.mark.dask
def test_a_solve_again_killed_mid_tier_claims_no_old_answer_and_resumes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, c4_whole: Path
) -> None:
    """``solve DIR --restart`` (``resume=False``) over a solved dataset, killed in its first
    tier: the manifest lists no tier solved (none of the answers being rewritten is claimed),
    and ``--resume`` solves them all again to the same answers."""
    import shutil

    root = tmp_path / "c4"
    shutil.copytree(c4_whole, root)
    want = solve_dataset(root, client)
    whole = load_manifest(root).to_json()
    monkeypatch.setattr(driver, "solve_shard", dies_after(tasks.solve_shard, 1, tmp_path / "k"))
    with pytest.raises(RunFailed, match="killed after"):
        solve_dataset(root, client, resume=False)
    monkeypatch.undo()
    assert not any(t.solved for t in load_manifest(root).tiers)
    got = solve_dataset(root, client, resume=True)
    assert load_manifest(root).to_json() == whole
    assert got.tiers_solved == len(load_manifest(root).tiers)
    assert (got.root_label, got.root_remoteness) == (want.root_label, want.root_remoteness)


# --- before the first checkpoint: clearing the directory, tier 0, an empty directory --------


@pytest.mark.dask
def test_a_generation_killed_while_it_clears_an_old_dataset_resumes(
    client: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    c4_whole: Path,
    kqk_whole: Path,
) -> None:
    """``generate ... -o DIR`` over a dataset, killed while its files go: the manifest no
    longer claims them (before, it still said ``generated`` over missing files), and
    ``--resume`` of any game starts over there."""
    import shutil

    real = shutil.rmtree

    def dies(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        raise KeyboardInterrupt  # the kill, after the first folder went

    for game in ("connect4", "chess"):
        root = tmp_path / game
        shutil.copytree(c4_whole, root)
        monkeypatch.setattr(driver.shutil, "rmtree", dies)
        with pytest.raises(KeyboardInterrupt):
            prepare_output(root)
        monkeypatch.undo()
        m = load_manifest(root)
        assert (m.tiers, m.generated) == ([], False)
        assert driver.resumes(root)
        if game == "connect4":
            generate_dataset(root, ConnectFourTiers(4, 3), client, resume=True, per_shard=1_000)
            same_dataset(root, c4_whole)
        else:
            generate_chess(root, "KQK", client, resume=True, **CHESS)  # type: ignore[arg-type]
            same_dataset(root, kqk_whole)


@pytest.mark.dask
def test_a_connect4_generation_killed_before_tier_0_is_listed_resumes(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, c4_whole: Path
) -> None:
    root = tmp_path / "c4"
    prepare_output(root)

    def dies(*_: Any) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(driver, "write_codes", dies)
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(root, ConnectFourTiers(4, 3), client, per_shard=1_000)
    monkeypatch.undo()
    assert load_manifest(root).tiers == []  # the run's manifest, before any file
    generate_dataset(root, ConnectFourTiers(4, 3), client, resume=True)
    same_dataset(root, c4_whole)


def test_resume_in_an_empty_directory_starts_over(tmp_path: Path) -> None:
    """A run killed before it wrote anything leaves an empty directory: ``--resume`` starts
    the generation there; a missing directory or another one is still refused."""
    from verifier.dataset.errors import DatasetError

    (tmp_path / "empty").mkdir()
    assert not driver.resumes(tmp_path / "empty")
    with pytest.raises(DatasetError, match="no such file or directory"):
        driver.resumes(tmp_path / "missing")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    with pytest.raises(DatasetError, match="is not a tiered dataset"):
        driver.resumes(tmp_path / "other")


# --- the command line killed (SIGKILL) once it says a given step -----------------------------


def _cli(*args: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "verifier.cli", *args]


def _killed_when(args: list[str], line: str, cwd: Path) -> int:
    """Run ``verifier ARGS`` and SIGKILL it once its standard error holds ``line``; its exit
    status (-9, or its own if it ended first)."""
    import os
    import signal
    import subprocess

    env = dict(os.environ, VERIFIER_PROGRESS_EVERY="0", PYTHONPATH=os.pathsep.join(
        p for p in __import__("sys").path if p))  # fmt: skip
    with subprocess.Popen(_cli(*args), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as p:  # fmt: skip
        assert p.stderr is not None
        for said in p.stderr:
            if line in said:
                p.send_signal(signal.SIGKILL)
                break
        return p.wait(timeout=300)


@pytest.mark.slow
@pytest.mark.dask
def test_the_command_line_killed_mid_generation_resumes_to_the_same_dataset(
    tmp_path: Path,
) -> None:
    """``generate chess:KQK --symmetry -o DIR --engine dask`` SIGKILLed once its scan is
    done (its expansion under way), and Connect Four 4x3 once tier 2 is written: ``--resume``
    (from another working directory, naming DIR otherwise) writes the uninterrupted run's
    manifest; ``solve`` killed after its first tier resumes to the same answers."""
    import subprocess

    chess = ["generate", "chess:KQK", "--symmetry", "--engine", "dask",
             "--shard-positions", "5000"]  # fmt: skip
    c4 = ["generate", "connect4", "--width", "4", "--height", "3", "--engine", "dask",
          "--shard-positions", "1000"]  # fmt: skip
    for name, args, line in [("kqk", chess, "classes in 2 materials"), ("c4", c4, "tier 2:")]:
        whole, root = tmp_path / f"{name}-whole", tmp_path / name
        subprocess.run(_cli(*args, "-o", str(whole)), check=True, capture_output=True)
        assert _killed_when([*args, "-o", name], line, tmp_path) == -9
        assert not load_manifest(root).generated
        again = [a for a in args if a not in ("--shard-positions", "5000", "1000")]
        subprocess.run(_cli(*again, "-o", str(root), "--resume"), check=True, capture_output=True)
        same_dataset(root, whole)
    whole, root = tmp_path / "c4-whole", tmp_path / "c4"
    subprocess.run(_cli("solve", str(whole), "--engine", "dask"), check=True, capture_output=True)
    assert _killed_when(["solve", "c4", "--engine", "dask"], "tier 7:", tmp_path) == -9
    assert any(t.solved for t in load_manifest(root).tiers)
    subprocess.run(_cli("solve", str(root), "--engine", "dask"), check=True, capture_output=True)
    same_dataset(root, whole)
