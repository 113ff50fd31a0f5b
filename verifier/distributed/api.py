"""``solve_distributed``: solve a case on a Dask cluster and summarise it like ``verify``.

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
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from numpy.typing import NDArray

from verifier.distributed.partition import PartitionData, partition_graph
from verifier.distributed.programs import program_for
from verifier.distributed.superstep import RunOutput, SuperstepEngine
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

__all__ = ["DistributedResult", "distributed_report", "load_input", "solve_distributed"]


@dataclass(frozen=True, eq=False)
class DistributedResult:
    """What a distributed run computed, with the run's cost.

    ``solution`` is the answer as any other engine gives it (masked named columns, summary):
    read it, or ``to_solver_result().columns``, from outside this package. ``values`` and
    ``remoteness`` are the raw arrays the partitions returned (``remoteness`` with -1 where
    undefined), for this package, its tests and the benchmarks."""

    semantics: Semantics
    values: NDArray[Any]
    """One value per node id in the semantics' view (empty when the run was not collected to
    the driver)."""
    remoteness: IntArray | None
    """Raw: remoteness (``normal``, ``minimax``) or attractor layer (``reachability``), -1 where
    undefined. Outside the package read ``solution.columns["remoteness"]`` (masked)."""
    supersteps: int
    """Supersteps executed, including the first and the final quiet one."""
    messages: int
    """Messages sent (one per move into a node that changed)."""
    changed: tuple[int, ...]
    """Frontier size (nodes changed) per superstep."""
    step_seconds: tuple[float, ...]
    seconds: float
    """Wall-clock seconds of the whole run, cluster start-up excluded."""
    partitions: int
    workers: int
    summary: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The ``verify`` summary keys (``Solution.summary``: positions, moves, won, lost, drawn,
    max_remoteness, root, root_value) plus ``engine``, ``supersteps`` and ``messages``."""
    out: Path | None = None
    """Directory holding ``nodes/part-*.parquet`` and ``summary.json``, if written."""
    solution: Solution | None = None
    """The case's answer built from this run (``None`` when the per-node results stayed on the
    workers, in the Parquet parts)."""

    @property
    def view(self) -> View:
        """``SCORE`` (minimax), ``LABEL`` (normal) or ``REGION`` (reachability)."""
        return describe(self.semantics).view

    @property
    def solver(self) -> str:
        """The name the run's answer goes by: ``dask-kars``, ``dask-retrograde``, ..."""
        return program_for(self.semantics).solver

    def to_solver_result(self) -> SolverResult:
        """The run as a ``SolverResult`` (to compare it with the in-memory solvers)."""
        return SolverResult(
            solver=self.solver,
            view=self.view,
            values=self.values,
            seconds=self.seconds,
            remoteness=self.remoteness,
            work=MappingProxyType({"supersteps": self.supersteps, "messages": self.messages}),
            extra=MappingProxyType({"partitions": self.partitions, "workers": self.workers}),
        )


def distributed_report(case: Case, res: DistributedResult) -> CaseReport:
    """The run as the report every engine's ``solve`` writes (answer first, then the solver's
    row and the ``expect`` block): verdict ``solved``, ``refuted`` when the answer contradicts
    the case's ``expect`` block, ``inconclusive`` when the answer stayed on the workers."""
    from verifier.checks.expect import expect_checks
    from verifier.model import CheckResult, Verdict
    from verifier.model.report import CaseReport, CaseVerdict, SolverRun
    from verifier.pipeline import decide

    result = res.to_solver_result()
    checks = []
    if res.solution is not None:
        checks = expect_checks(case, {res.solver: result})
    else:
        where = f" (in {res.out})" if res.out is not None else ""
        why = f"the per-node results stayed on the workers{where}"
        checks.append(CheckResult("answer", Verdict.UNKNOWN, why))
    verdict = decide(checks) if checks else CaseVerdict.SOLVED
    if verdict is CaseVerdict.VERIFIED:  # nothing was proved: solve's verdict
        verdict = CaseVerdict.SOLVED
    return CaseReport(
        case=case,
        solvers=(SolverRun(res.solver, result if res.solution else None, seconds=res.seconds),),
        checks=tuple(checks),
        verdict=verdict,
        seconds=res.seconds,
        stages={"solve": res.seconds},
        summary=res.summary,
        solution=res.solution,
    )


class _Ran(NamedTuple):
    """A run's output with where and how long it ran."""

    run: RunOutput
    partitions: int
    workers: int
    seconds: float
    """The run itself (scatter, supersteps, collection), not loading and partitioning."""


def load_input(
    case_or_path: Case | GameGraph | Path | str, semantics: Semantics | None = None
) -> Case:
    """A case from a case, a bare graph, a case file (``.json``, ``.npz``, ...) or a directory
    of Parquet tables (``nodes.parquet``, ``edges.parquet``)."""
    if isinstance(case_or_path, Case):
        return case_or_path
    if isinstance(case_or_path, GameGraph):
        return Case(graph=case_or_path, id="graph")
    path = Path(case_or_path)
    if path.is_dir():
        from verifier.distributed.parquet_io import read_parquet_graph

        graph, root = read_parquet_graph(path, semantics)
        return Case(graph=graph, id=path.name, root=root, path=path)
    from verifier.io.formats import load_any

    return load_any(path)  # .json (either encoding), .npz, .graphml, .gml


def solve_distributed(
    case_or_path: Case | GameGraph | Path | str,
    *,
    scheduler: str | None = None,
    out: Path | None = None,
    workers: int = 2,
    partitions: int | None = None,
    semantics: Semantics | None = None,
    client: Client | None = None,
    engine: SuperstepEngine | None = None,
) -> DistributedResult:
    """Solve a ``minimax``, ``normal`` or ``reachability`` case with the distributed engine.

    ``scheduler``: address of a running Dask scheduler (``tcp://host:8786``); ``None`` starts a
    ``LocalCluster`` of ``workers`` single-threaded worker processes on loopback. ``client``:
    an existing ``distributed.Client`` (overrides ``scheduler``). ``engine``: another
    ``SuperstepEngine`` (e.g. ``LocalEngine()``), no Dask at all. ``partitions``: number of node
    ranges (default: one per worker of the cluster). ``out``: write ``nodes/part-*.parquet`` and
    ``summary.json`` there (on a real cluster, a directory every worker can write to).
    ``semantics``: for Parquet tables without stored metadata. The result's ``seconds`` cover
    the run itself (scatter, supersteps, collection), not loading and partitioning.
    """
    case = load_input(case_or_path, semantics)
    program_for(case.semantics)  # ValueError before any work for a semantics without one
    if workers < 1 or (partitions is not None and partitions < 1):
        raise UsageError("workers and partitions must be at least 1")
    if out is not None:
        _clear_out(out)
    if engine is not None:
        ran = _run_in_process(engine, case.graph, partitions or workers, out)
    elif client is not None:
        ran = _run_dask(client, case.graph, partitions, out)
    else:
        with _client(scheduler, workers) as c:
            ran = _run_dask(c, case.graph, partitions, out)
    result = _result(case, ran, out)
    summary = _summary(case, result.solution, ran.run, engine)
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return replace(result, summary=MappingProxyType(summary))


def _clear_out(out: Path) -> None:
    """Create the output directory and remove the Parquet parts of an earlier run."""
    out.mkdir(parents=True, exist_ok=True)
    for old in (out / "nodes").glob("part-*.parquet"):
        old.unlink()


@contextlib.contextmanager
def _client(
    scheduler: str | None, workers: int, memory_limit: str | int | None = None
) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, or of a throw-away loopback LocalCluster
    (``memory_limit``: each worker's, Dask's default share of the machine when ``None``)."""
    import distributed

    dd: Any = distributed  # the distributed API is only partly typed
    if scheduler is not None:
        with dd.Client(scheduler) as client:
            yield client
        return
    with warnings.catch_warnings():
        # another cluster's dashboard holds port 8787: Dask picks another, no need to say so
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use")
        with _deaf_to_ctrl_c():  # the worker processes start ignoring Ctrl-C
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


def _run_in_process(
    engine: SuperstepEngine, graph: GameGraph, partitions: int, out: Path | None
) -> _Ran:
    """Partition and run on ``engine`` in this process; write the Parquet parts if asked."""
    parts = partition_graph(graph, partitions)
    t0 = time.perf_counter()
    run = engine.run(parts)
    seconds = time.perf_counter() - t0
    if out is not None and len(run.values) == graph.n:
        _write_local(out, parts, run)
    return _Ran(run, len(parts), 1, seconds)


def _run_dask(client: Client, graph: GameGraph, partitions: int | None, out: Path | None) -> _Ran:
    """Partition (default: one node range per worker of the cluster) and run on ``client``."""
    from verifier.distributed.dask_backend import DaskEngine
    from verifier.distributed.tiers.supervise import cluster_workers

    n_workers = len(cluster_workers(client))
    parts = partition_graph(graph, partitions or max(1, n_workers))
    t0 = time.perf_counter()
    run = DaskEngine(client, out=out).run(parts)
    return _Ran(run, len(parts), n_workers, time.perf_counter() - t0)


def _write_local(out: Path, parts: list[PartitionData], run: RunOutput) -> None:
    """Write the Parquet part of every partition from results collected in this process."""
    from verifier.distributed.parquet_io import write_result_part

    for part in parts:
        rem = None if run.remoteness is None else run.remoteness[part.lo : part.hi]
        write_result_part(out, part, run.values[part.lo : part.hi], rem)


def _result(case: Case, ran: _Ran, out: Path | None) -> DistributedResult:
    """The run as a ``DistributedResult`` with its ``Solution`` (if the results came back)."""
    run = ran.run
    result = DistributedResult(
        semantics=case.semantics,
        values=run.values,
        remoteness=run.remoteness,
        supersteps=run.supersteps,
        messages=run.messages,
        changed=run.changed,
        step_seconds=run.step_seconds,
        seconds=ran.seconds,
        partitions=ran.partitions,
        workers=ran.workers,
        out=out,
    )
    if len(run.values) != case.graph.n:  # the per-node results stayed on the workers
        return result
    solution = Solution.from_results(case, {result.solver: result.to_solver_result()})
    return replace(result, solution=solution)


def _summary(
    case: Case, solution: Solution | None, run: RunOutput, engine: SuperstepEngine | None
) -> dict[str, Any]:
    """The ``verify`` summary of the answer (the graph's size alone if it stayed on the
    workers), plus the engine, the supersteps and the messages."""
    if solution is None:
        summary: dict[str, Any] = {"positions": case.graph.n, "moves": case.graph.m}
    else:
        summary = summarize_solution(case, solution)
    summary.update(
        engine="dask" if engine is None else type(engine).__name__,
        supersteps=run.supersteps,
        messages=run.messages,
    )
    return summary
