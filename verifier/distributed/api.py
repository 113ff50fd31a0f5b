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
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from verifier.distributed.partition import PartitionData, partition_graph
from verifier.distributed.programs import program_for
from verifier.distributed.superstep import RunOutput, SuperstepEngine
from verifier.errors import UsageError
from verifier.model.case import Case
from verifier.model.graph import GameGraph, IntArray
from verifier.model.results import SolverResult, View
from verifier.model.semantics import Semantics
from verifier.pipeline import summarize

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["DistributedResult", "load_input", "solve_distributed"]

SOLVER_NAME = {
    Semantics.MINIMAX: "dask-kars",
    Semantics.NORMAL: "dask-retrograde",
    Semantics.REACHABILITY: "dask-attractor",
}


@dataclass(frozen=True, eq=False)
class DistributedResult:
    """What a distributed run computed, with the run's cost."""

    semantics: Semantics
    view: View
    """``SCORE`` (minimax), ``LABEL`` (normal) or ``REGION`` (reachability)."""
    values: NDArray[Any]
    """One value per node id (empty when the run was not collected to the driver)."""
    remoteness: IntArray | None
    """Remoteness (``normal``) or attractor layer (``reachability``), -1 where undefined."""
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
    """The ``verify`` summary keys: positions, moves, won, lost, drawn, max_remoteness, root,
    root_value."""
    out: Path | None = None
    """Directory holding ``nodes/part-*.parquet`` and ``summary.json``, if written."""

    def to_solver_result(self) -> SolverResult:
        """The run as a ``SolverResult`` (to compare it with the in-memory solvers)."""
        return SolverResult(
            solver=SOLVER_NAME[self.semantics],
            view=self.view,
            values=self.values,
            seconds=self.seconds,
            remoteness=self.remoteness,
            work=MappingProxyType({"supersteps": self.supersteps, "messages": self.messages}),
            extra=MappingProxyType({"partitions": self.partitions, "workers": self.workers}),
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
    path = Path(case_or_path)
    if path.is_dir():
        from verifier.distributed.parquet_io import read_parquet_graph

        graph, root = read_parquet_graph(path, semantics)
        return Case(graph=graph, id=path.name, root=root, path=path)
    from verifier.io.formats import load_any

    return load_any(path)  # .json (either encoding), .npz, .graphml, .gml


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int) -> Iterator[Client]:
    import distributed

    dd: Any = distributed  # the distributed API is only partly typed
    if scheduler is not None:
        with dd.Client(scheduler) as client:
            yield client
        return
    with (
        dd.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        dd.Client(cluster) as client,
    ):
        yield client


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
    graph = case.graph
    program = program_for(graph.semantics)
    if workers < 1 or (partitions is not None and partitions < 1):
        raise UsageError("workers and partitions must be at least 1")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for old in (out / "nodes").glob("part-*.parquet"):
            old.unlink()
    if engine is not None:
        parts = partition_graph(graph, partitions or workers)
        t0 = time.perf_counter()
        run = engine.run(parts)
        seconds, n_workers = time.perf_counter() - t0, 1
        if out is not None and len(run.values) == graph.n:
            _write_local(out, parts, program.view, run)
    elif client is not None:
        parts, run, seconds, n_workers = _run_dask(client, graph, partitions, out)
    else:
        with _client(scheduler, workers) as c:
            parts, run, seconds, n_workers = _run_dask(c, graph, partitions, out)
    as_solver = SolverResult(
        solver=SOLVER_NAME[graph.semantics],
        view=program.view,
        values=run.values,
        seconds=seconds,
        remoteness=run.remoteness,
    )
    summary: dict[str, Any]
    if len(run.values) == graph.n:
        summary = summarize(case, {as_solver.solver: as_solver})
    else:  # the per-node results stayed on the workers (Parquet parts)
        summary = {"positions": graph.n, "moves": graph.m}
    summary.update(
        engine="dask" if engine is None else type(engine).__name__,
        supersteps=run.supersteps,
        messages=run.messages,
    )
    if out is not None:
        import json

        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return DistributedResult(
        semantics=graph.semantics,
        view=program.view,
        values=run.values,
        remoteness=run.remoteness,
        supersteps=run.supersteps,
        messages=run.messages,
        changed=run.changed,
        step_seconds=run.step_seconds,
        seconds=seconds,
        partitions=len(parts),
        workers=n_workers,
        summary=MappingProxyType(summary),
        out=out,
    )


def _run_dask(
    client: Client, graph: GameGraph, partitions: int | None, out: Path | None
) -> tuple[list[PartitionData], RunOutput, float, int]:
    """Partition (default: one node range per worker of the cluster) and run on ``client``."""
    from verifier.distributed.dask_backend import DaskEngine

    n_workers = len(client.scheduler_info()["workers"])
    parts = partition_graph(graph, partitions or max(1, n_workers))
    t0 = time.perf_counter()
    run = DaskEngine(client, out=out).run(parts)
    return parts, run, time.perf_counter() - t0, n_workers


def _write_local(out: Path, parts: list[PartitionData], view: View, run: RunOutput) -> None:
    from verifier.distributed.parquet_io import write_result_part

    for part in parts:
        rem = None if run.remoteness is None else run.remoteness[part.lo : part.hi]
        write_result_part(out, part, view, run.values[part.lo : part.hi], rem)
