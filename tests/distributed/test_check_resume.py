"""Issue 48 (3): ``verify DIR --engine dask --resume``: a check stopped part way resumes to the
same verdict from the records of its finished tasks (``tiers.checkpoints``), and says its
first violations as it finds them.

The stops are those of ``test_resume_kills.py``: a task function replaced by one that runs the
real task for its first ``N`` calls and then stands for the run dying. The tasks run again
after a stop are counted (a file, the tasks being pickled). Connect Four 4x4 (normal play,
161,029 positions) and a random minimax graph stored in 4 shards (another semantics).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_resume_kills import _cli, _killed_when, dies_after
from tier_cli import one_line_error, run_cli, stdout

distributed = pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from verifier.dataset.errors import RunFailed  # noqa: E402
from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.dataset.storage import (  # noqa: E402
    read_answers,
    read_codes,
    read_rule_answers,
    write_rule_answers,
)
from verifier.dataset.stored_columns import COLUMNS  # noqa: E402
from verifier.distributed.tiers import check, checkpoints, graph_check  # noqa: E402
from verifier.distributed.tiers.driver import (  # noqa: E402
    generate_dataset,
    prepare_output,
    solve_dataset,
)
from verifier.distributed.tiers.graph_check import check_any  # noqa: E402
from verifier.games.tiered.connect4 import ConnectFourTiers  # noqa: E402
from verifier.model.semantics import Semantics  # noqa: E402
from verifier.progress import Notice, Violation  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]


@pytest.fixture(scope="module")
def c44(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Connect Four 4x4 generated and solved in small shards (read-only for the tests)."""
    root = tmp_path_factory.mktemp("c44") / "ds"
    prepare_output(root)
    generate_dataset(root, ConnectFourTiers(4, 4), client, per_shard=8_000)
    solve_dataset(root, client)
    return root


def own_table(root: Path) -> dict[str, np.ndarray]:
    """The dataset's own answers as a stranger's table (code, value, remoteness)."""
    m = load_manifest(root)
    cols: dict[str, list[np.ndarray]] = {"code": [], "value": [], "remoteness": []}
    for t in m.tiers:
        for s in t.shards:
            cols["code"].append(read_codes(root, t.tier, s.shard, s.sha256, s.positions))
            label, rem = read_answers(root, t.tier, s.shard, s.answers_sha256, s.positions)
            cols["value"].append(label.astype(np.int64))
            cols["remoteness"].append(rem.astype(np.int64))
    return {k: np.concatenate(v) for k, v in cols.items()}


def write_table(folder: Path, cols: dict[str, np.ndarray]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({k: pa.array(v) for k, v in cols.items()}), folder / "t.parquet")
    return folder


def flipped(cols: dict[str, np.ndarray], rows: list[int]) -> dict[str, np.ndarray]:
    """``cols`` with the value of each of ``rows`` changed (won <-> lost, drawn -> won)."""
    out = {k: v.copy() for k, v in cols.items()}
    out["value"][rows] = np.where(out["value"][rows] == 0, 1, -out["value"][rows])
    return out


def counted(real: Callable[..., Any], at: Path) -> Callable[..., Any]:
    """``real``, each call counted in the file ``at``."""
    at.write_text("0")

    def task(*args: Any, **kwargs: Any) -> Any:
        import fcntl

        with open(at.with_suffix(".lock"), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            at.write_text(str(int(at.read_text()) + 1))
        return real(*args, **kwargs)

    return task


def same(got: Any, want: Any) -> None:
    """The same verdict, counts, witnesses and violations shard by shard."""
    assert (got.verdict, got.checks, got.counts) == (want.verdict, want.checks, want.counts)
    assert (got.witnesses, got.names, got.by_shard) == (want.witnesses, want.names, want.by_shard)


def records(root: Path) -> list[Path]:
    return sorted((root / "tmp" / "check").glob("*/*/tier=*/shard=*.json"))


def shards(root: Path) -> int:
    return sum(len(t.shards) for t in load_manifest(root).tiers)


# --- normal play: Connect Four 4x4 -----------------------------------------------------------


@pytest.mark.parametrize(("task", "n"), [("check_shard", 5), ("check_shard", 30),
                                         ("reach_shard", 7)])  # fmt: skip
@pytest.mark.parametrize("theirs", [False, True])
def test_a_check_stopped_after_n_tasks_resumes_to_the_same_verdict(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, n: int,
    theirs: bool,
) -> None:  # fmt: skip
    """The dataset's own answers (verified), or a table with wrong values in three shards
    (refuted): stopped after ``n`` tasks of a round, resumed with the same verdict, counts,
    witnesses and violations per shard, running only the tasks not recorded."""
    table = None
    if theirs:
        cols = own_table(c44)
        table = write_table(tmp_path / "theirs", flipped(cols, [5, 40_000, 150_000]))
    want = check_any(c44, client, answers=table)
    assert want.verdict == ("refuted" if theirs else "verified")
    assert not (c44 / "tmp").exists()  # a completed check keeps no record

    real = getattr(check, task)
    monkeypatch.setattr(check, task, dies_after(real, n, tmp_path / "kill"))
    with pytest.raises(RunFailed, match="killed after"):
        check_any(c44, client, answers=table)
    monkeypatch.undo()
    kept = len(records(c44))
    total = shards(c44)
    # about the n tasks before the kill are recorded: with two workers, a task finished while
    # the failure reaches the driver may be recorded or not (either way the resumed run below
    # runs exactly the tasks without a record)
    done = kept - (total if task == "reach_shard" else 0)
    assert n - 2 <= done <= n + 2

    said: list[str] = []
    runs = tmp_path / "runs"
    monkeypatch.setattr(check, "check_shard", counted(check.check_shard, runs))
    got = check_any(c44, client, answers=table, say=said.append, resume=True)
    monkeypatch.undo()
    same(got, want)
    assert int(runs.read_text()) == (0 if task == "reach_shard" else total - done)
    assert f"resuming a check: {kept} finished task(s)" in said[0]
    assert not (c44 / "tmp").exists()  # removed once the verdict is returned


def test_restart_checks_every_shard_again_and_the_default_reuses_and_says_so(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    total, real = shards(c44), check.check_shard
    for resume in (False, None):
        monkeypatch.setattr(check, "check_shard", dies_after(real, 4, tmp_path / f"k{resume}"))
        with pytest.raises(RunFailed):
            check_any(c44, client)
        kept = len(records(c44))
        assert 2 <= kept <= 6  # give or take the tasks in flight on the two workers
        ran = total if resume is False else total - kept
        monkeypatch.setattr(check, "check_shard", counted(real, tmp_path / "n"))
        said: list[str] = []
        got = check_any(c44, client, say=said.append, resume=resume)
        monkeypatch.undo()
        assert got.verdict == "verified"
        assert int((tmp_path / "n").read_text()) == ran
        resumed = [x for x in said if "resuming a check" in x]
        if resume is None:
            assert len(resumed) == 1 and isinstance(resumed[0], Notice)
            assert f"{kept} finished task(s)" in resumed[0] and "--restart" in resumed[0]
        else:
            assert not resumed


def test_a_record_of_another_table_is_not_reused(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every check task of a correct table recorded (the run stopped in its reach round),
    then the table corrupted in place: the resumed check runs every task again and refutes."""
    cols = own_table(c44)
    table = write_table(tmp_path / "theirs", cols)
    monkeypatch.setattr(check, "reach_shard", dies_after(check.reach_shard, 0, tmp_path / "k"))
    with pytest.raises(RunFailed):
        check_any(c44, client, answers=table)
    monkeypatch.undo()
    assert len(records(c44)) == shards(c44)
    write_table(table, flipped(cols, [1_000]))
    monkeypatch.setattr(check, "check_shard", counted(check.check_shard, tmp_path / "n"))
    got = check_any(c44, client, answers=table, resume=True)
    assert got.verdict == "refuted" and got.counts["rules"] >= 1
    assert int((tmp_path / "n").read_text()) == shards(c44)
    assert len(records(c44)) == shards(c44)  # the other table's stay, never read
    assert check_any(c44, client, answers=table, resume=False).verdict == "refuted"
    assert not (c44 / "tmp").exists()  # --restart removed them


def test_a_corrupted_record_is_ignored_and_its_task_run_again(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want = check_any(c44, client)
    monkeypatch.setattr(check, "reach_shard", dies_after(check.reach_shard, 0, tmp_path / "k"))
    with pytest.raises(RunFailed):
        check_any(c44, client)
    monkeypatch.undo()
    first, second, third = records(c44)[:3]
    first.write_text("{not json")
    doc = json.loads(second.read_text())
    doc["result"]["counts"][3] = 99  # a violation forged without its digest
    second.write_text(json.dumps(doc))
    doc = json.loads(third.read_text())
    doc["at"] = [doc["at"][0], doc["at"][1] + 1]  # another task's record
    third.write_text(json.dumps(doc))
    monkeypatch.setattr(check, "check_shard", counted(check.check_shard, tmp_path / "n"))
    said: list[str] = []
    got = check_any(c44, client, say=said.append, resume=True)
    same(got, want)
    assert int((tmp_path / "n").read_text()) == 3
    assert any("3 unreadable record(s) ignored" in x for x in said), said


def test_the_first_violations_are_said_as_found_then_counted(
    client: Any, c44: Path, tmp_path: Path
) -> None:
    """One wrong value: its line is said before the next round starts; many in many shards:
    the first ``SHOWN`` lines, then one count."""
    cols = own_table(c44)
    said: list[str] = []
    one = flipped(cols, [60_000])
    check_any(c44, client, answers=write_table(tmp_path / "one", one), say=said.append)
    lines = [x for x in said if isinstance(x, Violation)]
    assert lines and lines[0].startswith("rules: 1 violation(s) in tier "), said
    assert "first at " in lines[0] and "claimed" in lines[0]
    reach = next(i for i, x in enumerate(said) if x.startswith("checking that every position"))
    assert said.index(lines[0]) < reach

    said.clear()
    many = flipped(cols, list(range(0, 160_000, 4_000)))
    res = check_any(c44, client, answers=write_table(tmp_path / "many", many), say=said.append)
    lines = [x for x in said if isinstance(x, Violation)]
    hit = sum(len(x) for x in res.by_shard.values())
    assert len(lines) == checkpoints.SHOWN + 1, lines
    assert lines[-1].startswith(f"{hit - checkpoints.SHOWN:,} more task(s) found violations")


def test_a_dataset_that_cannot_be_written_is_checked_without_checkpoints(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    root = tmp_path / "ro"
    shutil.copytree(c44, root, ignore=shutil.ignore_patterns("tmp"))
    if os.geteuid() == 0:  # root writes anywhere: the probe's answer stands for it
        monkeypatch.setattr(checkpoints, "unwritable", lambda _: "Permission denied")
    else:
        root.chmod(0o555)
    said: list[str] = []
    try:
        got = check_any(root, client, say=said.append)
    finally:
        root.chmod(0o755)
    assert got.verdict == "verified"
    told = [x for x in said if "cannot be written" in x]
    assert len(told) == 1 and "without checkpoints" in told[0], said
    assert not (root / "tmp").exists()


def test_resume_on_a_case_file_is_a_usage_error(tmp_path: Path) -> None:
    r = run_cli("generate", "connect4", "--width", 3, "--height", 3, "-o", tmp_path / "c.json")
    assert r.exit_code == 0, r.output
    for flag in ("--resume", "--restart"):
        r = run_cli("verify", tmp_path / "c.json", flag)
        one_line_error(r, 2, "c.json", "--resume/--restart", "tiered dataset")


def test_the_command_line_resumes_and_says_the_violations(
    client: Any, c44: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    cols = own_table(c44)
    table = write_table(tmp_path / "theirs", flipped(cols, [60_000]))
    whole = run_cli("verify", c44, "--answers", table, "--json", *addr)
    assert whole.exit_code == 1
    monkeypatch.setattr(check, "check_shard", dies_after(check.check_shard, 9, tmp_path / "k"))
    r = run_cli("verify", c44, "--answers", table, *addr)
    assert r.exit_code == 3, r.output  # the run failed (a cluster's failure: exit 3)
    monkeypatch.undo()
    r = run_cli("verify", c44, "--answers", table, "--json", "--resume", *addr)
    assert r.exit_code == 1, r.output
    assert "progress: " + str(c44) + ": resuming a check: 9 finished task(s)" in r.output
    assert f"violation: {c44}: rules: 1 violation(s) in tier " in r.output
    assert json.loads(stdout(r)) == json.loads(stdout(whole))


# --- another semantics: a stored minimax graph ------------------------------------------------


@pytest.fixture(scope="module")
def minimax(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random minimax graph of 400 nodes stored in 4 shards, solved, one score corrupted
    where the solver wrote it (its digest updated): the own answers are refuted."""
    addr = ("--engine", "dask", "--scheduler", client.scheduler.address)
    base = tmp_path_factory.mktemp("minimax")
    case, root = base / "g.npz", base / "ds"
    r = run_cli("generate", "random", "--semantics", "minimax", "--nodes", 400, "--seed", 3,
                "--terminal-values", "-2,-1,0,1,3", "-o", case)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert run_cli("generate", case, "-o", root, "--shard-positions", 100, *addr).exit_code == 0
    assert run_cli("solve", root, *addr).exit_code == 0
    m = load_manifest(root)
    s = m.tiers[0].shards[2]
    cols = COLUMNS[Semantics.MINIMAX].answer_columns
    got = {k: v.copy() for k, v in read_rule_answers(root, 0, 2, s.answers_sha256, s.positions,
                                                       cols).items()}  # fmt: skip
    got["score"][7] += 5
    s.answers_sha256 = write_rule_answers(root, 0, 2, got)
    m.save(root)
    return root


@pytest.mark.parametrize("n", [1, 3])
def test_a_minimax_check_stopped_resumes_to_the_same_verdict(
    client: Any, minimax: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    said: list[str] = []
    want = check_any(minimax, client, say=said.append)
    assert want.verdict == "refuted" and want.counts["rules"] >= 1
    assert any(isinstance(x, Violation) and x.startswith("rules: ") for x in said), said
    real = graph_check.check_rule_shard
    monkeypatch.setattr(graph_check, "check_rule_shard", dies_after(real, n, tmp_path / "k"))
    with pytest.raises(RunFailed):
        check_any(minimax, client)
    monkeypatch.setattr(graph_check, "check_rule_shard", counted(real, tmp_path / "n"))
    kept = len(records(minimax))
    assert max(n - 2, 0) <= kept <= n + 2  # give or take the tasks in flight on two workers
    got = check_any(minimax, client, resume=True)
    same(got, want)
    assert int((tmp_path / "n").read_text()) == 4 - kept
    assert not (minimax / "tmp").exists()


# --- the command line killed (SIGKILL) mid-check ----------------------------------------------


@pytest.mark.slow
def test_the_command_line_killed_mid_check_resumes_to_the_same_report(
    c44: Path, tmp_path: Path
) -> None:
    import shutil
    import subprocess

    root = tmp_path / "c44"
    shutil.copytree(c44, root)
    args = ["verify", "c44", "--engine", "dask", "--json"]
    whole = subprocess.run(_cli(*args), cwd=tmp_path, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    assert _killed_when(args, "shard(s) done after", tmp_path) == -9  # mid-check
    kept = len(records(root))
    again = subprocess.run(_cli(*args, "--resume"), cwd=tmp_path, capture_output=True,
                           text=True)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert f"resuming a check: {kept} finished task(s)" in again.stderr, again.stderr
    drop = ("seconds",)
    a, b = json.loads(whole.stdout), json.loads(again.stdout)
    assert {k: v for k, v in a.items() if k not in drop} == {
        k: v for k, v in b.items() if k not in drop
    }
    assert not (root / "tmp").exists()
