"""Registry of solvers and checks: modules under ``verifier.solvers`` (solvers),
``verifier.checks`` and ``verifier.smt`` (checks) register themselves with the decorators below
and the ``verify`` pipeline runs what applies.

A solver is ``fn(case, options) -> SolverResult``; it raises ``NotApplicable`` to be skipped
(e.g. the DAG solver on a graph with a cycle). A check is ``fn(ctx) -> list[CheckResult]`` where
``ctx`` holds the case, the solver results so far and the options.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verifier.model import Case, CheckResult, Semantics, SolverResult

__all__ = [
    "COMPILED_LIMIT",
    "ENGINES",
    "CheckContext",
    "CheckSpec",
    "Options",
    "SolverSpec",
    "check",
    "checks_for",
    "compiled_available",
    "load_plugins",
    "solver",
    "solvers_for",
]

REFERENCE_LIMIT = 50_000
"""Above this many nodes ``--engine auto`` runs only the numpy engine..."""
LINEAR_REFERENCE_LIMIT = 200_000
"""...except the linear-time reference solvers, which it runs up to this many nodes, so that
medium graphs are still solved by two independent implementations and compared."""

COMPILED_LIMIT = LINEAR_REFERENCE_LIMIT
"""``--engine auto`` runs the compiled (numba) kernels only above this many nodes.

Measured (``benchmarks/bench_engine.py --tasks retrograde,attractor,kars,grundy --sizes
4e3,4e4,4e5,4e6``, random graphs of mean out-degree 4, 2 cores): importing numba and loading
the kernels from numba's disk cache costs 0.55-0.74 s once per process, while the kernels save
over the numpy engine 1-4 ms per task at 10^3 nodes, 2-7 ms at 10^4, 15-25 ms at 10^5 and
0.16-0.31 s at 10^6; so as a replacement of the numpy engine they would pay only from about
3 * 10^6 nodes. ``auto`` runs them beside the numpy engine, as its cross-check: the role the
pure-Python references play up to ``LINEAR_REFERENCE_LIMIT`` nodes, so the kernels take over
there (and give loopy impartial graphs, which have no numpy solver, their answer where
``grundy-loopy`` stops). ``--engine compiled`` runs them at every size."""

ProgressFn = Callable[[str, int, int], None]
"""``progress(task, done, total)``: long checks call it; the CLI shows a bar, ``--json`` nothing."""


def compiled_available() -> bool:
    """Is numba installed (``verifier.engine.compiled.available``, without importing numba)?"""
    from verifier.engine.compiled import available

    return available()


ENGINES: tuple[str, ...] = ("auto", "reference", "numpy", "compiled")
"""The in-process engines ``Options.engine`` names (``--engine dask`` is the command line's own)."""


@dataclass(frozen=True)
class Options:
    """Knobs shared by every solver and check."""

    engine: str = "auto"
    """``auto`` / ``reference`` (seed-faithful pure Python) / ``numpy`` (vectorized engine) /
    ``compiled`` (the numba kernels instead of the numpy engine, which runs where numba is not
    installed)."""
    rlimit: int = 800_000_000
    """Z3 resource limit per query, the hard ceiling (deterministic, unlike a wall-clock
    timeout): a query Z3 leaves unknown at ``first_rlimit`` is asked again with four times the
    limit, up to this one (``smt.cnf.limits``)."""
    first_rlimit: int = 50_000_000
    """The resource limit of a query's first attempt (lowered to ``rlimit`` if that is less)."""
    seed: int = 0
    """Z3 random seed."""
    exponential_limit: int = 40
    """Run exponential-time solvers (Kars' plain DFS for every root) only up to this many nodes."""
    progress: ProgressFn | None = None
    linear: bool = False
    """``--linear``: one linear-time solver per semantics (the compiled engine, the numpy one
    where numba is missing) and only the linear checks (``CheckSpec.linear``): no Z3, no
    reference solvers; for judging big answer tables (``verify --answers --linear``)."""
    budget: float | None = None
    """Seconds a whole case may take (``--budget``; None: no limit). Checks not started when
    it is spent end ``unknown`` saying so; a check still running then is stopped (``deadline``:
    a timer on the main thread) and ends ``unknown``; a Z3 query gets at most the time left (a
    wall-clock timeout beside the resource limit). The first solver to answer runs to its end
    (the answer is always given); the solvers after it stop at the budget too."""

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r}: expected one of {', '.join(ENGINES)}")

    def use_reference(self, n: int, *, linear: bool = False) -> bool:
        """Run the seed-faithful pure-Python solvers on a graph of ``n`` nodes?

        ``reference``: always; ``numpy``: never; ``auto``: up to ``REFERENCE_LIMIT`` nodes (up to
        ``LINEAR_REFERENCE_LIMIT`` for a ``linear``-time solver), so that on small and medium
        graphs both engines run and are compared.
        """
        limit = LINEAR_REFERENCE_LIMIT if linear else REFERENCE_LIMIT
        return self.engine == "reference" or (self.engine == "auto" and n <= limit)

    def use_numpy(self, n: int) -> bool:
        """Run the vectorized numpy engine? ``auto`` and ``numpy``: yes; ``reference``: no;
        ``compiled``: only where the compiled kernels (which do the same work) are not
        installed."""
        if self.engine == "compiled":
            return not compiled_available()
        return self.engine in ("auto", "numpy")

    def use_compiled(self, n: int) -> bool:
        """Run the compiled (numba) kernels? When numba is installed: ``compiled`` always,
        ``auto`` above ``COMPILED_LIMIT`` nodes (below, importing numba would cost more than the
        whole solve)."""
        if self.engine == "auto" and n <= COMPILED_LIMIT:
            return False
        return self.engine in ("auto", "compiled") and compiled_available()

    def report(self, task: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(task, done, total)


@dataclass(frozen=True)
class CheckContext:
    case: Case
    results: Mapping[str, SolverResult]
    options: Options = field(default_factory=Options)


SolverFn = Callable[[Case, Options], SolverResult]
CheckFn = Callable[[CheckContext], list[CheckResult]]


@dataclass(frozen=True)
class SolverSpec:
    name: str
    semantics: frozenset[Semantics]
    fn: SolverFn
    order: int = 100
    """Lower runs first; the first solver of a view is the reference others are compared with."""
    linear: bool = False
    """Runs in ``--linear`` mode: a linear-time engine solver (with ``--engine compiled``, so
    the numpy one runs only where numba is missing)."""


@dataclass(frozen=True)
class CheckSpec:
    name: str
    semantics: frozenset[Semantics]
    fn: CheckFn
    order: int = 100
    linear: bool = False
    """Runs in ``--linear`` mode: linear time in the graph, no Z3."""
    proves: frozenset[str] = frozenset()
    """The answer columns its confirmed results vouch for (a result may say otherwise)."""


_SOLVERS: dict[str, SolverSpec] = {}
_CHECKS: dict[str, CheckSpec] = {}
_LOADED: set[str] = set()


def solver(
    name: str, semantics: Iterable[Semantics], order: int = 100, *, linear: bool = False
) -> Callable[[SolverFn], SolverFn]:
    """Register ``fn`` as a solver for the given semantics."""

    def deco(fn: SolverFn) -> SolverFn:
        _SOLVERS[name] = SolverSpec(name, frozenset(semantics), fn, order, linear)
        return fn

    return deco


def check(
    name: str,
    semantics: Iterable[Semantics],
    order: int = 100,
    *,
    linear: bool = False,
    proves: Iterable[str] = (),
) -> Callable[[CheckFn], CheckFn]:
    """Register ``fn`` as a check for the given semantics; ``proves``: the answer columns its
    confirmed results vouch for (the proof contract, docs/smt.md). The pipeline stamps ``name``
    and ``proves`` on every result the check returns."""

    def deco(fn: CheckFn) -> CheckFn:
        _CHECKS[name] = CheckSpec(name, frozenset(semantics), fn, order, linear, frozenset(proves))
        return fn

    return deco


SOLVER_PACKAGES = ("verifier.solvers",)
"""Where solvers register (``solvers_for`` imports only these: solving needs no Z3)."""
PLUGIN_PACKAGES = ("verifier.solvers", "verifier.checks", "verifier.smt")
"""Where solvers and checks register."""


def load_plugins(packages: Iterable[str] = PLUGIN_PACKAGES) -> None:
    """Import every module of ``packages`` (by default ``verifier.solvers``, ``verifier.checks``
    and ``verifier.smt``) so they register."""
    for pkg_name in packages:
        if pkg_name in _LOADED:
            continue
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg_name + "."):
            importlib.import_module(info.name)
        _LOADED.add(pkg_name)


def solvers_for(semantics: Semantics) -> list[SolverSpec]:
    load_plugins(SOLVER_PACKAGES)
    found = [s for s in _SOLVERS.values() if semantics in s.semantics]
    return sorted(found, key=lambda s: (s.order, s.name))


def checks_for(semantics: Semantics) -> list[CheckSpec]:
    load_plugins()
    found = [c for c in _CHECKS.values() if semantics in c.semantics]
    return sorted(found, key=lambda c: (c.order, c.name))


def all_registered() -> dict[str, Any]:
    load_plugins()
    return {"solvers": dict(_SOLVERS), "checks": dict(_CHECKS)}
