"""Issue 48 (3), its done-when: every stage of the sharded route (generate, solve, verify)
killed at a random moment, the driver or a worker, then resumed to the same answers.

Each trial runs a stage as the command line does (``verifier ... --engine dask --scheduler
ADDR`` in a process of its own) against one LocalCluster of two worker processes under
nannies, and after a seeded random delay within the stage's measured duration SIGKILLs either
the command line's process (the driver) or one worker (``client.run(os.getpid)``; its nanny
starts another). Then it resumes: ``generate ... --resume``, ``solve DIR`` (which resumes by
default) or ``verify DIR --resume``, and asserts the uninterrupted run's result: the manifest
(every shard's counts and digests, so the answers too) and the verdict, counts and witnesses.

A run that failed must fail in one line (exit 3, no traceback, its last line the error); a
kill that came after the run finished (the driver had exited 0, or a worker died between two
rounds and the run did not need it) must leave the same result, and a resume must then find
nothing left to do and change nothing.

The uninterrupted runs are measured first (a module fixture): Connect Four 4x4 and chess KQK
up to symmetry (generate), a random minimax graph of 4,000 nodes with cycles and Connect Four
4x4 (solve, then verify). A stage's trials take its subjects in turn (the driver's first trial
the first, the worker's the second). One trial per stage and victim by default (the machine is
shared: ``VERIFIER_KILL_TRIALS=N`` runs N), eight more with ``-m slow``; a failure names its
seed, replayed with ``-k STAGE-VICTIM-seedN``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from verifier.dataset.manifest import load_manifest  # noqa: E402
from verifier.distributed.tiers.supervise import cluster_workers  # noqa: E402

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]

TRIALS = int(os.environ.get("VERIFIER_KILL_TRIALS", "1"))
"""Trials per stage and victim in the default run."""
SLOW_TRIALS = 8
"""Further trials (other seeds) with ``-m slow``."""
HANG = 120.0
"""Seconds a killed or resumed run may take before the trial says it hung."""

STAGES = ("generate", "solve", "verify")
SUBJECTS = {"generate": ("c4", "kqk"), "solve": ("graph", "c4"), "verify": ("graph", "c4")}
"""What each stage's trials run on, in turn."""
MAKE = {
    "c4": ["generate", "connect4", "--width", "4", "--height", "4", "--symmetry",
           "--shard-positions", "8000"],
    "kqk": ["generate", "chess:KQK", "--symmetry", "--shard-positions", "5000"],
    "graph": ["generate", "random", "--semantics", "minimax", "--nodes", "4000", "--degree",
              "2", "--seed", "3", "--shard-positions", "1000"],
}  # fmt: skip
"""How each subject's dataset is generated (the output ``-o ds`` and the cluster added)."""


def _cli(cwd: Path, args: list[str], addr: str) -> list[str]:
    return [sys.executable, "-m", "verifier.cli", *args, "--engine", "dask", "--scheduler", addr]


def _env() -> dict[str, str]:
    """The command line's environment: this test's imports, every progress line said."""
    path = os.pathsep.join(p for p in sys.path if p)
    return dict(os.environ, VERIFIER_PROGRESS_EVERY="0", PYTHONPATH=path, PYTHONFAULTHANDLER="1")


def run(cwd: Path, args: list[str], addr: str) -> subprocess.CompletedProcess[str]:
    """``verifier ARGS`` in ``cwd`` on the cluster at ``addr``, to its end (exit 0 asserted)."""
    r = subprocess.run(_cli(cwd, args, addr), cwd=cwd, env=_env(), capture_output=True,
                       text=True, timeout=HANG)  # fmt: skip
    assert r.returncode == 0, f"verifier {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return r


def stage_args(stage: str, subject: str) -> list[str]:
    """The command of ``stage`` on ``subject``'s dataset ``ds`` (in the working directory)."""
    if stage == "generate":
        return [*MAKE[subject], "-o", "ds"]
    return ["solve", "ds"] if stage == "solve" else ["verify", "ds", "--json"]


def resume_args(stage: str, subject: str) -> list[str]:
    """The same command resumed: ``--resume`` (a generation without its sizes, which the
    dataset keeps); ``solve`` resumes by default, ``--resume`` says so explicitly."""
    args = stage_args(stage, subject)
    if stage == "generate":
        i = args.index("--shard-positions")
        args = args[:i] + args[i + 2 :]
    return [*args, "--resume"]


def report(stdout: str) -> dict[str, Any]:
    """``verify --json``'s document without its times."""
    doc = json.loads(stdout)
    return {k: v for k, v in doc.items() if k != "seconds"}


def files(root: Path) -> dict[str, int]:
    """Every file under ``root`` and its modification time (ns)."""
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


@dataclass(frozen=True)
class Whole:
    """A stage's uninterrupted run: the folder holding its dataset ``ds``, its wall time (the
    command line's, start to exit) and its standard output."""

    where: Path
    seconds: float
    stdout: str


class Wholes:
    """The uninterrupted runs, each measured once, when a trial first needs it."""

    def __init__(self, base: Path, addr: str) -> None:
        self.base, self.addr = base, addr
        self.done: dict[tuple[str, str], Whole] = {}

    def get(self, stage: str, subject: str) -> Whole:
        key = (stage, subject)
        if key not in self.done:
            where = self.base / f"{stage}-{subject}"
            where.mkdir()
            before = self.before(stage, subject)
            if before is not None:
                shutil.copytree(before / "ds", where / "ds")
            t0 = time.monotonic()
            r = run(where, stage_args(stage, subject), self.addr)
            self.done[key] = Whole(where, time.monotonic() - t0, r.stdout)
            print(f"uninterrupted {stage} of {subject}: {self.done[key].seconds:.2f} s")
        return self.done[key]

    def before(self, stage: str, subject: str) -> Path | None:
        """The folder of the dataset ``stage`` starts from (``None``: none, it writes one)."""
        if stage == "generate":
            return None
        if stage == "verify":
            return self.get("solve", subject).where
        if subject == "graph":  # not a stage's subject: generated once, unmeasured
            where = self.base / "made-graph"
            if not where.exists():
                where.mkdir()
                run(where, [*MAKE["graph"], "-o", "ds"], self.addr)
            return where
        return self.get("generate", subject).where


@contextlib.contextmanager
def two_workers() -> Iterator[tuple[Any, Any]]:
    """Two one-thread worker processes, each under a nanny that restarts it when killed."""
    import logging

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit="1GB", silence_logs=logging.CRITICAL,
        ) as c,
        distributed.Client(c) as client,
    ):  # fmt: skip
        client.wait_for_workers(2, timeout=60)
        yield c, client


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[Any, Any]]:
    """The trials' cluster (``two_workers``)."""
    with two_workers() as both:
        yield both


@pytest.fixture
def own_cluster() -> Iterator[tuple[Any, Any]]:
    """A cluster of its own for a test that stops or kills a worker on purpose: the module's
    may still be waiting for the nanny to replace a worker a trial killed."""
    with two_workers() as both:
        yield both


@pytest.fixture(scope="module")
def wholes(cluster: tuple[Any, Any], tmp_path_factory: pytest.TempPathFactory) -> Wholes:
    return Wholes(tmp_path_factory.mktemp("whole"), cluster[0].scheduler_address)


def workers_back(client: Any, gone: str) -> None:
    """Wait until the scheduler no longer lists the worker ``gone`` and two workers are up
    (the nanny's new one)."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        now = set(cluster_workers(client))  # (scheduler_info() is a cache)
        if gone not in now and len(now) >= 2:
            return
        time.sleep(0.2)
    raise AssertionError(f"the killed worker {gone} was not replaced within 60 s")


def killed(
    cmd: list[str], cwd: Path, delay: float, victim: tuple[str, int] | None
) -> tuple[int, str, str, bool]:
    """Run ``cmd`` and after ``delay`` seconds SIGKILL it (``victim`` ``None``) or the worker
    process ``victim`` (address, pid); its exit status, stdout, stderr, and whether the kill
    came before the run ended."""
    with subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as p:  # fmt: skip
        try:
            out, err = p.communicate(timeout=delay)
            return p.returncode, out, err, False
        except subprocess.TimeoutExpired:
            pass
        if victim is None:
            p.kill()
        else:
            os.kill(victim[1], signal.SIGKILL)
        try:
            out, err = p.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGABRT)  # its threads' stacks said (PYTHONFAULTHANDLER)
            try:
                out, err = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:  # its stdout held open by processes it started
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
            raise AssertionError(f"the run hung after the kill:\n{err[-6000:]}") from None
        return p.returncode, out, err, True


def same_result(stage: str, got: Path, whole: Whole, stdout: str) -> None:
    """The dataset in ``got`` (and the run's ``stdout``) equals the uninterrupted run's: the
    manifest, the same files (no piece or record left over) and ``verify``'s report."""
    assert load_manifest(got / "ds").to_json() == load_manifest(whole.where / "ds").to_json()
    assert sorted(files(got / "ds")) == sorted(files(whole.where / "ds"))  # nothing left over
    if stage == "verify":
        assert report(stdout) == report(whole.stdout)


def trial(
    cluster: tuple[Any, Any], wholes: Wholes, tmp_path: Path, stage: str, victim: str, seed: int
) -> None:
    """One seeded trial: kill, resume, compare (module docstring)."""
    local, client = cluster
    addr = local.scheduler_address
    rng = random.Random(f"{stage}/{victim}/{seed}")
    turn = seed + (victim == "worker")  # one trial each covers both subjects of a stage
    subject = SUBJECTS[stage][turn % len(SUBJECTS[stage])]
    whole = wholes.get(stage, subject)
    before = wholes.before(stage, subject)
    if before is not None:
        shutil.copytree(before / "ds", tmp_path / "ds")
    delay = rng.uniform(0, whole.seconds)
    target = None
    if victim == "worker":
        pids = client.run(os.getpid)
        address = rng.choice(sorted(pids))
        target = (address, pids[address])
    cmd = _cli(tmp_path, stage_args(stage, subject), addr)
    code, out, err, landed = killed(cmd, tmp_path, delay, target)
    said = (f"seed {seed} ({stage} of {subject}, {victim} killed at {delay:.2f} s of "
            f"{whole.seconds:.2f} s; exit {code}{'' if landed else ', ended before'}):\n"
            f"{err[-3000:]}")  # fmt: skip
    if target is not None and landed:
        workers_back(client, target[0])
    print(said.splitlines()[0])
    if code == 0:  # the run ended before the kill, or did without the worker
        same_result(stage, tmp_path, whole, out)
        kept = files(tmp_path / "ds")
        again = run(tmp_path, resume_args(stage, subject), addr)
        same_result(stage, tmp_path, whole, again.stdout)
        if stage == "solve":
            assert "0 tier(s) solved by this run" in again.stdout, said + again.stdout
        if stage != "verify":  # (a finished check keeps no record: it judges again)
            assert files(tmp_path / "ds") == kept, said
        return
    if victim == "driver":
        assert code == -signal.SIGKILL, said
    else:
        lines = err.strip().splitlines()
        assert code == 3 and "Traceback" not in err, said
        assert lines and not lines[-1].startswith("progress:"), said
        assert [x for x in lines if not x.startswith(("progress:", "violation:"))] == [lines[-1]], (
            said
        )
    resumed = stage_args(stage, subject) if stage == "solve" else resume_args(stage, subject)
    if stage == "generate" and not (tmp_path / "ds").exists():  # killed before it began
        resumed = stage_args(stage, subject)  # (--resume refuses a missing DIR: one line)
    elif stage == "generate" and load_manifest(tmp_path / "ds").generated:
        # killed after its last write, on its way out (the cluster closing): a whole dataset,
        # which it had said it wrote; --resume then finds nothing to do
        assert "wrote ds: " in err, said
    elif stage == "generate":
        assert not load_manifest(tmp_path / "ds").generated, said
    again = run(tmp_path, resumed, addr)
    try:
        same_result(stage, tmp_path, whole, again.stdout)
    except AssertionError as e:
        raise AssertionError(f"{said}\nresumed:\n{again.stderr[-3000:]}\n{e}") from None


def _seeds(first: int, n: int) -> list[Any]:
    return [
        pytest.param(stage, victim, seed, id=f"{stage}-{victim}-seed{seed}")
        for stage in STAGES
        for victim in ("driver", "worker")
        for seed in range(first, first + n)
    ]


@pytest.mark.parametrize(("stage", "victim", "seed"), _seeds(0, TRIALS))
def test_a_stage_killed_at_a_random_moment_resumes_to_the_same_result(
    cluster: tuple[Any, Any], wholes: Wholes, tmp_path: Path, stage: str, victim: str, seed: int
) -> None:
    trial(cluster, wholes, tmp_path, stage, victim, seed)


@pytest.mark.slow
@pytest.mark.parametrize(("stage", "victim", "seed"), _seeds(TRIALS, SLOW_TRIALS))
def test_more_random_kills(
    cluster: tuple[Any, Any], wholes: Wholes, tmp_path: Path, stage: str, victim: str, seed: int
) -> None:
    trial(cluster, wholes, tmp_path, stage, victim, seed)


def test_a_relative_dataset_path_is_read_from_the_drivers_directory(
    cluster: tuple[Any, Any], tmp_path: Path
) -> None:
    """``-o ds`` and ``solve ds`` / ``verify ds`` with ``--scheduler``: the workers (started
    in another directory) read and write the driver's ``ds`` (before, they were sent ``ds``
    as given and read their own directory's: ``ds/tier=0/shard=0.parquet: missing``)."""
    local, client = cluster
    addr = local.scheduler_address
    assert str(tmp_path) not in set(client.run(os.getcwd).values())
    run(tmp_path, ["generate", "connect4", "--width", "3", "--height", "3", "-o", "ds"], addr)
    run(tmp_path, ["solve", "ds"], addr)
    r = run(tmp_path, ["verify", "ds", "--json"], addr)
    assert report(r.stdout)["verdict"] == "verified"
    assert report(r.stdout)["dataset"] == "ds"  # said as given
    for where in set(client.run(os.getcwd).values()):
        assert not (Path(where) / "ds").exists()


def test_dask_says_nothing_beside_the_runs_own_lines(cluster: tuple[Any, Any]) -> None:
    """Inside ``tier_cluster`` every Dask logger is silenced, ``distributed.client`` too (its
    configured WARNING level and handler said "Couldn't gather 1 keys, rescheduling" when a
    worker that had finished a task was killed, beside the failed run's one line); after it
    the levels are back."""
    import logging

    from verifier.distributed.tiers.commands import DaskOptions, tier_cluster

    names = ("distributed", "distributed.client", "distributed.scheduler")
    logs = [logging.getLogger(n) for n in names]
    before = [log.level for log in logs]  # (this module's LocalCluster silenced them)
    heard: list[str] = []
    ear = logging.Handler()
    ear.emit = lambda record: heard.append(record.getMessage())  # type: ignore[method-assign]
    for log in logs:
        log.setLevel(logging.WARNING)  # as Dask's configuration leaves them in the CLI
        log.addHandler(ear)
    try:
        with tier_cluster(DaskOptions(cluster[0].scheduler_address, 1, None)):
            for log in logs:
                log.warning("Couldn't gather 1 keys, rescheduling")
        assert heard == []
        assert [log.level for log in logs] == [logging.WARNING] * 3
        logs[1].warning("after")
        assert "after" in heard  # (the levels are back)
    finally:
        for log, level in zip(logs, before, strict=True):
            log.setLevel(level)
            log.removeHandler(ear)


def test_sharing_a_value_does_not_wait_for_every_worker(own_cluster: tuple[Any, Any]) -> None:
    """``supervise.share`` returns while a worker does not answer (stopped here, SIGSTOP: it
    stands for one killed during the call, which the scheduler still lists): Dask's broadcast
    waited for it forever, so ``verify DIR`` hung when a worker was killed before its first
    task (seed 1 of this file's verify/worker trials). The value goes to the one that answers
    (Dask's round robin set to it), and a task elsewhere reads it."""
    import threading

    from distributed import utils_comm

    from verifier.distributed.tiers.supervise import share

    _, client = own_cluster
    pids = client.run(os.getpid)
    ready, stopped = sorted(pids)
    got: list[Any] = []
    os.kill(pids[stopped], signal.SIGSTOP)
    try:
        utils_comm._round_robin_counter[0] = 0  # the first of the sorted workers: ``ready``
        call = threading.Thread(target=lambda: got.append(share(client, list(range(1000)))))
        call.start()
        call.join(15)
        assert got, "share() still waits for the stopped worker"
    finally:
        os.kill(pids[stopped], signal.SIGCONT)
    total = client.submit(sum, got[0], workers=[ready], pure=False).result(timeout=30)
    assert total == sum(range(1000))


def test_a_result_lost_with_its_worker_fails_the_run_instead_of_waiting(
    own_cluster: tuple[Any, Any],
) -> None:
    """A task pinned to a worker (a stored graph's round) finished there, then the worker
    killed before its result was fetched: Dask would compute it again on that worker alone and
    ``client.gather`` waited forever (``solve DIR`` hung after a round, seed 0 of the
    solve/worker trials); ``supervise.fetch`` checks the workers while it waits and fails with
    the worker's line."""
    from verifier.dataset.errors import RunFailed
    from verifier.distributed.tiers import supervise

    _, client = own_cluster
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    fut = client.submit(os.getpid, workers=[victim], allow_other_workers=False, pure=False)
    distributed.wait([fut], timeout=30)
    assert fut.status == "finished"
    start = set(supervise.cluster_workers(client))
    os.kill(pids[victim], signal.SIGKILL)
    workers_back(client, victim)
    t0 = time.monotonic()
    with pytest.raises(RunFailed, match=f"worker {victim} left the cluster while testing"):
        supervise.fetch(client, [fut], start, {}, "testing", 10.0, 0.2)
    assert time.monotonic() - t0 < 10
    other = client.submit(os.getpid, pure=False)
    assert supervise.fetch(client, [other], set(supervise.cluster_workers(client)), {}, "x",
                           10.0, 0.2) == [other.result()]  # fmt: skip
