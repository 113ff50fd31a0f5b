"""The number of a CNF's models projected onto some variables: exactly with Ganak (``pyganak``),
component by component (the clauses that share no variable are counted apart and the counts
multiplied); where that does not finish before its deadline, an (epsilon, delta) estimate with
ApproxMC (``pyapproxmc``) for the components left; beyond that, no number (the caller's bounds).
Both counters run in a child process that a deadline can stop (their ``count()`` has no
timeout of its own); both are the optional extra ``counting``.

A second method for the tests and for small sets: :func:`enumerate_models` (python-sat,
blocking clauses over the projection).

>>> enumerate_models([[1, 2], [-1, -2], [3]], [1, 2], 10)[1]
True
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

__all__ = [
    "DELTA",
    "EPSILON",
    "EXTRA",
    "INSTALL",
    "Counted",
    "Method",
    "available",
    "count_models",
    "enumerate_models",
    "run_jobs",
    "split",
]

EXTRA = "counting"
INSTALL = "pip install 'gamegraph-verifier[counting]'"
EPSILON = 0.8
DELTA = 0.2
"""ApproxMC's guarantee (its defaults):
Pr[c / (1 + eps) <= estimate <= (1 + eps) c] >= 1 - delta."""

Group = tuple[list[list[int]], list[int]]
"""Clauses and projection of one component, variables renumbered 1..m."""


class Method(StrEnum):
    """Which method gave the number (the report's and the JSON's ``method``)."""

    EXACT = "exact"
    APPROXIMATE = "approximate"  # ApproxMC's (epsilon, delta) estimate
    BOUNDS = "bounds"  # no number: the caller's bounds


@dataclass(frozen=True)
class Counted:
    """What the counters said."""

    method: Method
    count: int | None
    """The exact count, or ApproxMC's estimate; None with ``bounds``."""
    components: int
    detail: str
    seconds: float


def available(module: str = "pyganak") -> bool:
    """Whether a counter's module is installed (``pyganak``, ``pyapproxmc``, ``pyunigen``)."""
    return importlib.util.find_spec(module) is not None


def split(
    clauses: list[list[int]], projection: list[int] | tuple[int, ...]
) -> tuple[list[Group], int]:
    """The independent components (clauses linked by shared variables), smallest first, each
    renumbered, components with no projected variable joined to the first that has one; and the
    number of projected variables in no clause (each doubles the count)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    clauses = _simplified(clauses)
    nv = max([abs(v) for c in clauses for v in c] + list(projection) + [0])
    heads = np.array([abs(c[0]) if c else 0 for c in clauses], dtype=np.int64)
    src = [abs(v) for c in clauses for v in c]
    dst = np.repeat(heads, [len(c) for c in clauses]).tolist()
    m = coo_matrix((np.ones(len(src)), (src, dst)), shape=(nv + 1, nv + 1))
    _, label = connected_components(m, directed=False)
    used = np.zeros(nv + 1, dtype=np.bool_)
    used[src] = True
    proj = set(projection)
    loose = sum(1 for v in proj if not used[v])
    by: dict[int, list[list[int]]] = {}
    for c, h in zip(clauses, heads.tolist(), strict=True):
        by.setdefault(int(label[h]), []).append(c)
    counted = {int(label[v]) for v in proj if used[v]}
    keys = sorted(by, key=lambda k: len(by[k]))
    rest = [c for k in keys if k not in counted for c in by[k]]
    groups: list[Group] = []
    order: list[int | None] = [k for k in keys if k in counted]
    for k in order or [None]:
        cs = by.get(k, []) if k is not None else []
        if not groups:
            cs = cs + rest  # the components without a counted variable: only satisfiable or not
        groups.append(_renumber(cs, [v for v in proj if used[v] and (k is None or label[v] == k)]))
    return groups, loose


def _simplified(clauses: list[list[int]]) -> list[list[int]]:
    """The clauses with their unit clauses' literals applied once (a clause they satisfy left
    out, a false literal dropped; the units kept), so that a constant such as the order
    encoding's ``TRUE`` does not join every component into one; an emptied clause makes the
    formula ``[[1], [-1]]``, which has no model."""
    units = {c[0] for c in clauses if len(c) == 1}
    if any(-u in units for u in units):
        return [[1], [-1]]
    out = [[u] for u in sorted(units)]
    for c in clauses:
        if len(c) == 1 or any(v in units for v in c):
            continue
        kept = [v for v in c if -v not in units]
        if not kept:
            return [[1], [-1]]
        out.append(kept)
    return out


def _renumber(clauses: list[list[int]], projection: list[int]) -> Group:
    new: dict[int, int] = {}
    for v in sorted(projection):
        new[v] = len(new) + 1
    for c in clauses:
        for v in c:
            new.setdefault(abs(v), len(new) + 1)
    out = [[new[v] if v > 0 else -new[-v] for v in c] for c in clauses]
    return out, [new[v] for v in projection]


def _merge(groups: list[Group]) -> Group:
    """Independent components as one formula (their count the product of theirs)."""
    clauses: list[list[int]] = []
    projection: list[int] = []
    offset = 0
    for cs, ps in groups:
        top = max([abs(v) for c in cs for v in c] + ps + [0])
        clauses += [[v + offset if v > 0 else v - offset for v in c] for c in cs]
        projection += [v + offset for v in ps]
        offset += top
    return clauses, projection


_CHILD = """
import json, sys
for line in sys.stdin:
    job = json.loads(line)
    clauses, proj = job["clauses"], job["projection"]
    if not proj:  # nothing to count: satisfiable or not
        from pysat.solvers import Solver
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            n = 1 if s.solve() else 0
    elif job["mode"] == "exact":
        import pyganak
        c = pyganak.Counter(seed=job["seed"])
        c.new_vars(max([abs(v) for cl in clauses for v in cl] + proj))
        c.add_clauses(clauses)
        c.set_sampling_set(proj)
        n = c.count()
    elif job["mode"] == "sample":
        import pyunigen
        c = pyunigen.Sampler(seed=job["seed"] + 1)
        for cl in clauses:
            c.add_clause(cl)
        n = c.sample(num=job["num"], sampling_set=proj)[2]
    else:
        import pyapproxmc
        c = pyapproxmc.Counter(seed=job["seed"] + 1, epsilon=job["epsilon"], delta=job["delta"])
        c.add_clauses(clauses)
        cells, hashes = c.count(proj)
        n = cells * 2 ** hashes
    print("result", json.dumps(n), flush=True)
"""


def run_jobs(jobs: list[dict[str, Any]], deadline: float | None) -> tuple[list[Any], str]:
    """The results of ``jobs`` (modes ``exact``, ``approximate``, ``sample``) in order, as
    many as the child finishes before ``deadline`` (``time.monotonic``), and why it stopped
    short (empty when it did not)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin, stdout = proc.stdin, proc.stdout
    out: queue.Queue[Any] = queue.Queue()

    def write() -> None:
        try:
            for job in jobs:
                stdin.write(json.dumps(job) + "\n")
            stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass

    def read() -> None:
        for line in stdout:
            if line.startswith("result "):
                out.put(json.loads(line[len("result ") :]))
        out.put(None)

    threading.Thread(target=write, daemon=True).start()
    threading.Thread(target=read, daemon=True).start()
    got: list[Any] = []
    why = ""
    try:
        while len(got) < len(jobs):
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                item = out.get(timeout=wait)
            except queue.Empty:
                why = "the budget ran out"
                break
            if item is None:
                proc.wait()
                tail = proc.stderr.read().strip().splitlines()
                why = f"the counter stopped ({tail[-1] if tail else f'exit {proc.returncode}'})"
                break
            got.append(item)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    return got, why


def count_models(
    clauses: list[list[int]],
    projection: list[int] | tuple[int, ...],
    *,
    exact_until: float | None = None,
    approximate_until: float | None = None,
    seed: int = 0,
    whole: bool = False,
) -> Counted:
    """The number of models over ``projection``: exact (Ganak, the components' product) when
    it finishes by ``exact_until`` (``time.monotonic``; None: no limit), else ApproxMC's
    estimate by ``approximate_until``, else none. ``whole``: one count, no components (the
    tests compare the two)."""
    t0 = time.perf_counter()
    groups, loose = split(clauses, projection)
    if whole:
        groups = [_merge(groups)]
    if not available("pyganak"):
        why = f"no exact count: the '{EXTRA}' extra is not installed ({INSTALL})"
        return Counted(Method.BOUNDS, None, len(groups), why, time.perf_counter() - t0)
    jobs: list[dict[str, Any]] = [
        {"mode": "exact", "clauses": c, "projection": p, "seed": seed} for c, p in groups
    ]
    exact, why = run_jobs(jobs, exact_until)
    parts = f"{len(groups):,} independent component(s)"
    if len(exact) == len(groups) or 0 in exact:
        n = math.prod(exact) * 2**loose if 0 not in exact else 0
        how = f"Ganak counted the CNF exactly ({parts}, the product)"
        return Counted(Method.EXACT, n, len(groups), how, time.perf_counter() - t0)
    stop = f"Ganak counted {len(exact):,} of {parts} before {why}"
    if not available("pyapproxmc"):
        stop += f"; no estimate: pyapproxmc is not installed ({INSTALL})"
        return Counted(Method.BOUNDS, None, len(groups), stop, time.perf_counter() - t0)
    rest_clauses, rest_projection = _merge(groups[len(exact) :])
    job: dict[str, Any] = {
        "mode": "approximate",
        "clauses": rest_clauses,
        "projection": rest_projection,
        "seed": seed,
        "epsilon": EPSILON,
        "delta": DELTA,
    }
    estimate, why2 = run_jobs([job], approximate_until)
    if not estimate:
        return Counted(
            Method.BOUNDS, None, len(groups), f"{stop}; ApproxMC: {why2}", time.perf_counter() - t0
        )
    n = math.prod(exact) * estimate[0] * 2**loose
    how = (
        f"{stop}; ApproxMC estimated the rest: with probability at least {1 - DELTA:g} the "
        f"count lies within a factor {1 + EPSILON:g} of the estimate (epsilon {EPSILON:g}, "
        f"delta {DELTA:g})"
    )
    return Counted(Method.APPROXIMATE, n, len(groups), how, time.perf_counter() - t0)


def enumerate_models(
    clauses: list[list[int]], projection: list[int] | tuple[int, ...], limit: int
) -> tuple[list[frozenset[int]], bool]:
    """Up to ``limit`` models, distinct over ``projection`` (their true literals), and whether
    that is all of them: a SAT solver and one blocking clause per model (python-sat)."""
    from pysat.solvers import Solver  # type: ignore[import-untyped]

    found: list[frozenset[int]] = []
    proj = set(projection)
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        while s.solve():
            if len(found) == limit:
                return found, False
            model = frozenset(v for v in s.get_model() or () if abs(v) in proj)
            found.append(model)
            if not proj:
                break
            s.add_clause([-v for v in model])
    return found, True
