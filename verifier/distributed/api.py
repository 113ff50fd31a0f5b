"""``solve_distributed``: solve a case on a Dask cluster and summarise it like ``verify``.

The case is stored as a tiered dataset of one tier (``tiers.graph_generate.dataset_from_graph``:
in a scratch folder, or in ``out``), solved by the tiered route's rounds
(``tiers.driver.solve_dataset``) and its answers read back as the result an in-memory solver
publishes (``dataset.answers.solver_result``): one route for a case file and a dataset.

Examples
--------
Solving Kars' Figure 1 (b = -1, d = 2) on a throw-away two-worker LocalCluster::

    >>> from verifier.model import GameGraph, Semantics, MAX, MIN
    >>> g = GameGraph.from_successors({"a": ["b", "c"], "c": ["d", "a"]},
    ...     semantics=Semantics.MINIMAX, owner={"a": MAX, "c": MIN}, value={"b": -1, "d": 2})
    >>> r = solve_distributed(g, scheduler=None, out=None)  # doctest: +SKIP
    >>> r.values.tolist(), r.summary["drawn"]  # doctest: +SKIP
    ([0.0, 0.0, -1.0, 2.0], 2)
"""

from __future__ import annotations

import contextlib
import json
import logging
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from verifier.dataset.errors import DatasetError
from verifier.dataset.round_rules import RULES
from verifier.errors import UsageError
from verifier.games.summary import summarize_solution
from verifier.model.case import Case
from verifier.model.describe import describe
from verifier.model.graph import GameGraph, IntArray
from verifier.model.results import SolverResult, View
from verifier.model.semantics import Semantics
from verifier.model.solution import Solution

if TYPE_CHECKING:
    from distributed import Client

    from verifier.model.report import CaseReport

__all__ = [
    "SOLVERS",
    "DistributedResult",
    "distributed_report",
    "load_input",
    "solve_distributed",
]

SOLVERS = RULES
"""The semantics a case is solved in on the cluster, each by its rule's rounds, its answer
named ``Rule.solver`` (an impartial graph must be acyclic: the rounds compute finite Grundy
values)."""


@dataclass(frozen=True, eq=False)
class DistributedResult:
    """What a distributed run computed, with the run's cost.

    ``solution`` is the answer as any other engine gives it (masked named columns, summary):
    read it, or ``to_solver_result().columns``, from outside this package. ``values`` and
    ``remoteness`` are the raw arrays of the stored answers (``remoteness`` with -1 where
    undefined), for this package, its tests and the benchmarks."""

    semantics: Semantics
    values: NDArray[Any]
    """One value per node id in the semantics' view."""
    remoteness: IntArray | None
    """Raw: remoteness (``normal``, ``minimax``) or attractor layer (``reachability``), -1 where
    undefined; ``None`` for ``impartial``. Outside the package read
    ``solution.columns["remoteness"]`` (masked)."""
    result: SolverResult
    """The answer as the result an in-memory solver publishes (moves included)."""
    seconds: float
    """Wall-clock seconds of the run on the cluster (storing, solving, reading the answers
    back); the cluster's start-up is ``cluster_seconds``."""
    partitions: int
    """Shards of the stored graph."""
    workers: int
    summary: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The ``verify`` summary keys (``Solution.summary``: positions, moves, won, lost, drawn,
    max_remoteness, root, root_value) plus ``engine`` and ``shards``."""
    out: Path | None = None
    """The dataset written (with ``summary.json``), if asked for."""
    solution: Solution | None = None
    """The case's answer built from this run."""
    cluster_seconds: float = 0.0
    """Wall-clock seconds spent starting the LocalCluster or connecting to the scheduler (0
    with a ``client`` given): the report's ``cluster`` stage, so its seconds are the run's."""

    @property
    def view(self) -> View:
        """``SCORE`` (minimax), ``LABEL`` (normal), ``REGION`` (reachability), ``GRUNDY``."""
        return describe(self.semantics).view

    @property
    def solver(self) -> str:
        """The name the run's answer goes by: ``dask-kars``, ``dask-retrograde``, ..."""
        return SOLVERS[self.semantics].solver

    def to_solver_result(self) -> SolverResult:
        """The run as a ``SolverResult`` (to compare it with the in-memory solvers)."""
        return self.result


def distributed_report(case: Case, res: DistributedResult) -> CaseReport:
    """The run as the report every engine's ``solve`` writes (answer first, then the solver's
    row and the ``expect`` block): verdict ``solved``, ``refuted`` when the answer contradicts
    the case's ``expect`` block."""
    from verifier.checks.expect import expect_checks
    from verifier.model.report import CaseReport, CaseVerdict, SolverRun
    from verifier.pipeline import decide

    result = res.to_solver_result()
    checks = expect_checks(case, {res.solver: result})
    verdict = decide(checks) if checks else CaseVerdict.SOLVED
    if verdict is CaseVerdict.VERIFIED:  # nothing was proved: solve's verdict
        verdict = CaseVerdict.SOLVED
    return CaseReport(
        case=case,
        solvers=(SolverRun(res.solver, result, seconds=res.seconds),),
        checks=tuple(checks),
        verdict=verdict,
        seconds=res.cluster_seconds + res.seconds,
        stages={"cluster": res.cluster_seconds, "solve": res.seconds}
        if res.cluster_seconds
        else {"solve": res.seconds},
        summary=res.summary,
        solution=res.solution,
    )


def load_input(
    case_or_path: Case | GameGraph | Path | str, semantics: Semantics | None = None
) -> Case:
    """A case from a case, a bare graph, a case file (``.json``, ``.npz``, ...) or a directory
    of Parquet tables (``nodes.parquet``, ``edges.parquet``)."""
    if isinstance(case_or_path, Case):
        return case_or_path
    if isinstance(case_or_path, GameGraph):
        return Case(graph=case_or_path, id="graph")
    from verifier.io.formats import load_any

    return load_any(case_or_path, semantics=semantics)  # a case file, or Parquet tables


def solve_distributed(
    case_or_path: Case | GameGraph | Path | str,
    *,
    scheduler: str | None = None,
    out: Path | None = None,
    workers: int = 2,
    partitions: int | None = None,
    semantics: Semantics | None = None,
    client: Client | None = None,
) -> DistributedResult:
    """Solve a ``minimax``, ``normal``, ``reachability`` or acyclic ``impartial`` case on a Dask
    cluster: the case stored as a dataset of one tier, solved in rounds, its answers read back.

    ``scheduler``: address of a running Dask scheduler (``tcp://host:8786``); ``None`` starts a
    ``LocalCluster`` of ``workers`` single-threaded worker processes on loopback. ``client``:
    an existing ``distributed.Client`` (overrides ``scheduler``). ``partitions``: shards of the
    stored graph (default: one per worker of the cluster). ``out``: the dataset's folder (empty,
    or an earlier dataset's), with ``summary.json``; on a cluster of several machines, a folder
    every worker can read and write. Without it, a scratch folder (on this machine) removed
    after the run. ``semantics``: for Parquet tables without stored metadata.
    """
    case = load_input(case_or_path, semantics)
    if case.semantics not in SOLVERS:
        raise UsageError(
            f"{case.id}: --engine dask solves {', '.join(s.value for s in SOLVERS)} graphs, "
            f"not {case.semantics.value!r}: use another engine"
        )
    if workers < 1 or (partitions is not None and partitions < 1):
        raise UsageError("workers and partitions must be at least 1")
    if out is not None:
        from verifier.distributed.tiers.driver import prepare_output

        prepare_output(out)
    with contextlib.ExitStack() as stack:
        if out is None:
            out_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dask-case-")))
        else:
            out_dir = out
        began, started = time.perf_counter(), 0.0
        if client is None:
            client = stack.enter_context(_client(scheduler, workers))
            started = time.perf_counter() - began
        try:
            result = _run(case, client, out_dir, partitions)
        except DatasetError as e:  # named by the scratch folder: name the case instead
            raise DatasetError(str(e).replace(str(out_dir), str(case.path or case.id))) from None
    result = replace(result, out=out, cluster_seconds=started)
    if out is not None:
        (out / "summary.json").write_text(json.dumps(dict(result.summary), indent=2) + "\n")
    return result


def _run(case: Case, client: Client, root: Path, partitions: int | None) -> DistributedResult:
    """Store ``case`` in ``root``, solve it on ``client`` and read its answers back."""
    import numpy as np

    from verifier.dataset.answers import catalog, solver_result
    from verifier.distributed.tiers.driver import solve_dataset
    from verifier.distributed.tiers.graph_generate import dataset_from_graph
    from verifier.distributed.tiers.supervise import cluster_workers

    n_workers = len(cluster_workers(client))
    shards = partitions or max(1, n_workers)
    t0 = time.perf_counter()
    dataset_from_graph(root, case.graph, client, shards=shards, source=case.id,
                       start=case.root, names=True)  # fmt: skip
    solve_dataset(root, client)
    result = solver_result(catalog(root), case.graph, SOLVERS[case.semantics].solver)
    seconds = time.perf_counter() - t0
    extra = MappingProxyType({"partitions": shards, "workers": n_workers})
    result = replace(result, seconds=seconds, extra=extra)
    solution = Solution.from_results(case, {result.solver: result})
    summary = summarize_solution(case, solution) if solution is not None else {}
    summary.update(engine="dask", shards=shards)
    rem = None if result.remoteness is None else np.asarray(result.remoteness, dtype=np.int64)
    return DistributedResult(
        semantics=case.semantics,
        values=result.values,
        remoteness=rem,
        result=result,
        seconds=seconds,
        partitions=shards,
        workers=n_workers,
        summary=MappingProxyType(summary),
        solution=solution,
    )


_SPAWN = "distributed.nanny.pre-spawn-environ."
WORKER_CONFIG: Mapping[str, Any] = MappingProxyType(
    {
        "distributed.worker.profile.enabled": False,
        _SPAWN + "MALLOC_MMAP_THRESHOLD_": 32 << 20,
        _SPAWN + "MALLOC_TRIM_THRESHOLD_": 256 << 20,
        _SPAWN + "MIMALLOC_PURGE_DELAY": 1000,
    }
)
"""Dask settings of every cluster this package starts. No worker profiler: every 10 ms it
calls ``sys._current_frames()`` on the worker's event loop while a task runs, and CPython
before 3.11.9 can deadlock there (a lock-order inversion of the runtime's thread-list lock
and the GIL when the garbage collector runs inside that call: CPython gh-106883 /
gh-116969, Dask distributed#8616). Seen as a test run that stopped for good in CI, its event
loop thread in ``Worker.trigger_profile``.

Memory kept for reuse, not given back to the kernel after every array (the workers' allocator
settings, set before they start): Dask starts its workers with glibc's
``MALLOC_TRIM_THRESHOLD_=65536``, which also fixes the mmap threshold at 128 KiB, so every
array above it was mapped afresh and faulted in a 4 KiB page at a time: a Connect Four 6x4
check spent 38 of its 90 CPU seconds in the kernel (6.5 million page faults). Here arrays up
to 32 MiB come from the heap, up to 256 MiB of it kept free, and Arrow's pool (mimalloc) keeps
freed pages a second: every stage of 6x4 in 0.62-0.77 of the time (docs/distributed.md,
"Memory kept for reuse"). A scheduler given with ``--scheduler`` keeps its own settings:
docs/distributed.md says what to give its workers."""


@contextlib.contextmanager
def _client(
    scheduler: str | None, workers: int, memory_limit: str | int | None = None
) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, or of a throw-away loopback LocalCluster
    (``memory_limit``: each worker's, Dask's default share of the machine when ``None``)."""
    import dask
    import distributed

    dd: Any = distributed  # the distributed API is only partly typed
    if scheduler is not None:
        with dd.Client(scheduler) as client:
            yield client
        return
    with warnings.catch_warnings():
        # another cluster's dashboard holds port 8787: Dask picks another, no need to say so
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use")
        # the worker processes start ignoring Ctrl-C and with WORKER_CONFIG (their nannies
        # pass them the configuration of the moment they start)
        with _deaf_to_ctrl_c(), dask.config.set(dict(WORKER_CONFIG)):
            cluster = dd.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                memory_limit="auto" if memory_limit is None else memory_limit,
                # a task's error reaches the user once, as the run's one line: the workers' own
                # "Compute Failed" log records with their tracebacks would repeat it
                silence_logs=logging.CRITICAL,
            )
        with cluster, dd.Client(cluster) as client:
            yield client


@contextlib.contextmanager
def _deaf_to_ctrl_c() -> Iterator[None]:
    """Ctrl-C ignored while the block starts processes: they inherit the setting (Python does
    not install its KeyboardInterrupt handler where SIGINT is ignored), so a Ctrl-C at the
    terminal, sent to the whole process group, reaches this process alone, which closes the
    cluster and says so in one line, instead of every worker printing its traceback. Restored
    when the block has started (the nanny restarts its workers with the setting it inherited).
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
