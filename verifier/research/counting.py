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
import itertools
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
from numpy.typing import NDArray

from verifier.distinct import distinct

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

Group = tuple[list[int], list[int]]
"""One component: its clauses as 0-terminated literal runs and its projection, variables
renumbered 1..m."""


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
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # an import hook that refuses it
        return False


def split(
    clauses: list[list[int]], projection: list[int] | tuple[int, ...]
) -> tuple[list[Group], int]:
    """The independent components (clauses linked by shared variables), smallest first, each
    renumbered, components with no projected variable joined to the first that has one; and the
    number of projected variables in no clause (each doubles the count). The unit clauses are
    applied first (a clause they satisfy left out, a false literal dropped, the units kept), so
    that a constant such as the order encoding's ``TRUE`` does not join every component into
    one; an emptied clause leaves the formula ``1, -1``, which has no model. In numpy: the full
    L-game's 685,176 clauses take seconds, not the minute of a Python loop."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    lens = np.fromiter((len(c) for c in clauses), dtype=np.int64, count=len(clauses))
    lits = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64, count=lens.sum())
    proj = np.asarray(sorted(set(projection)), dtype=np.int64)
    nv = int(max(np.abs(lits).max(initial=0), proj.max(initial=0)))
    starts = np.cumsum(lens) - lens
    units = distinct(lits[starts[lens == 1]])
    true = np.zeros(2 * nv + 1, dtype=np.bool_)  # literal v at index v + nv
    true[units + nv] = True
    if (true[units + nv] & true[-units + nv]).any():
        return [([1, 0, -1, 0], [])], 0
    cid = np.repeat(np.arange(len(lens)), lens)
    satisfied = np.bincount(cid, weights=true[lits + nv], minlength=len(lens)) > 0
    keep = ~satisfied & (lens != 1)
    kept = keep[cid] & ~true[-lits + nv]
    new_lens = np.bincount(cid[kept], minlength=len(lens))[keep]
    if (new_lens == 0).any():
        return [([1, 0, -1, 0], [])], 0
    lits = np.concatenate([lits[kept], units])
    lens = np.concatenate([new_lens, np.ones(len(units), dtype=np.int64)])
    cid = np.repeat(np.arange(len(lens)), lens)
    starts = np.cumsum(lens) - lens
    var = np.abs(lits)
    head = var[starts]
    m = coo_matrix((np.ones(len(var)), (var, head[cid])), shape=(nv + 1, nv + 1))
    _, label = connected_components(m, directed=False)
    used = np.zeros(nv + 1, dtype=np.bool_)
    used[var] = True
    loose = int((~used[proj]).sum())
    proj = proj[used[proj]]
    clabel = label[head]
    sizes = np.bincount(clabel, minlength=nv + 1)
    counted = np.unique(label[proj])
    counted = counted[np.argsort(sizes[counted], kind="stable")]  # smallest first
    group = np.zeros(nv + 1, dtype=np.int64)  # the rest: joined to group 0
    group[counted] = np.arange(len(counted))
    tokens = np.zeros(len(lits) + len(lens), dtype=np.int64)
    tokens[np.arange(len(lits)) + cid] = lits
    tgroup = np.repeat(group[clabel], lens + 1)
    order = np.argsort(tgroup, kind="stable")
    bounds = np.searchsorted(tgroup[order], np.arange(max(len(counted), 1) + 1))
    groups: list[Group] = []
    for k in range(max(len(counted), 1)):
        tok = tokens[order[bounds[k] : bounds[k + 1]]]
        mine = proj[label[proj] == counted[k]] if len(counted) else proj[:0]
        groups.append(_renumber(tok, mine))
    return groups, loose


def _renumber(tokens: NDArray[np.int64], projection: NDArray[np.int64]) -> Group:
    """Variables renumbered 1..m (their order kept), the 0 terminators kept."""
    lit = tokens[tokens != 0]
    old, inv = np.unique(np.abs(lit), return_inverse=True)
    out = tokens.copy()
    out[tokens != 0] = np.sign(lit) * (inv + 1)
    return out.tolist(), (np.searchsorted(old, projection) + 1).tolist()


def _merge(groups: list[Group]) -> Group:
    """Independent components as one formula (their count the product of theirs)."""
    if len(groups) == 1:
        return groups[0]
    tokens: list[int] = []
    projection: list[int] = []
    offset = 0
    for ts, ps in groups:
        top = max([abs(v) for v in ts] + ps + [0])
        tokens += [v + offset if v > 0 else v - offset if v < 0 else 0 for v in ts]
        projection += [v + offset for v in ps]
        offset += top
    return tokens, projection


_CHILD = """
import json, sys
for line in sys.stdin:
    job = json.loads(line)
    proj = job["projection"]
    clauses = job.get("clauses")
    if clauses is None:  # 0-terminated literal runs
        clauses, cur = [], []
        for t in job["tokens"]:
            if t:
                cur.append(t)
            else:
                clauses.append(cur)
                cur = []
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
        {"mode": "exact", "tokens": c, "projection": p, "seed": seed} for c, p in groups
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
    rest_tokens, rest_projection = _merge(groups[len(exact) :])
    job: dict[str, Any] = {
        "mode": "approximate",
        "tokens": rest_tokens,
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
