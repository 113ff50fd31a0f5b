"""Solutions of a case's equations drawn uniformly, each written as an answer file
(``verifier uniqueness CASE --sample N -o DIR``; docs/uniqueness.md).

Where the solution CNF (``research.cnf``) has at most :data:`EXACT_LIMIT` solutions, a SAT
enumeration lists them all and numpy draws from the list (exactly uniform, seeded); beyond,
UniGen (``pyunigen``, the ``counting`` extra) draws almost uniformly: each solution with
probability within a factor 1 + epsilon (0.8, its default) of 1 / count. A sample is one
solution of the rules without ranks: ``verify CASE --answers SAMPLE`` confirms its equations and,
where it is not the true answer, refutes it by the ranks (remoteness, the attractor's layers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from verifier.model import Case

__all__ = ["EXACT_LIMIT", "Samples", "sample", "sample_to_folder", "write_samples"]

EXACT_LIMIT = 10_000
"""Enumerate and draw exactly uniformly up to this many solutions; beyond, UniGen."""


@dataclass(frozen=True)
class Samples:
    values: list[NDArray[Any]]
    """Per sample, every position's stored value (the view's: score, label, winner, Grundy)."""
    method: str
    """``exact`` (drawn from the enumerated set) or ``unigen`` (almost uniform)."""
    detail: str


def sample(case: Case, n: int, seed: int = 0, until: float | None = None) -> Samples:
    """``n`` solutions drawn independently (with replacement); ``until``: UniGen's deadline
    (``time.monotonic``). Raises ``LookupError`` when UniGen is needed and not installed or
    does not finish."""
    from verifier.equations.system import OrderSystem
    from verifier.model.describe import describe
    from verifier.research.counting import INSTALL, available, enumerate_models, run_jobs
    from verifier.research.uniqueness import case_cnf, view_values

    cnf = case_cnf(case)
    sys = OrderSystem.for_graph(case.graph) if describe(case.semantics).has_order else None
    view = view_values(case, sys)
    found, complete = enumerate_models(cnf.clauses, cnf.projection, EXACT_LIMIT)
    if complete:
        if not found:
            return Samples([], "exact", "the equations have no solution: nothing to draw")
        picks = np.random.default_rng(seed).integers(len(found), size=n).tolist()
        models = [found[i] for i in picks]
        detail = (
            f"drawn uniformly (numpy, seed {seed}) from all {len(found):,} solutions, "
            "enumerated by SAT calls"
        )
        return Samples([view(cnf.solution(m)) for m in models], "exact", detail)
    if not available("pyunigen"):
        raise LookupError(f"more than {EXACT_LIMIT:,} solutions: sampling needs UniGen ({INSTALL})")
    job = {
        "mode": "sample",
        "clauses": cnf.clauses,
        "projection": list(cnf.projection),
        "seed": seed,
        "num": n,
    }
    got, why = run_jobs([job], until)
    if not got:
        raise LookupError(f"UniGen did not finish: {why}")
    sols = [view(cnf.solution(frozenset(s))) for s in got[0]]
    detail = (
        f"drawn almost uniformly by UniGen (seed {seed}): each of more than {EXACT_LIMIT:,} "
        "solutions with probability within a factor 1.8 of 1 / count (epsilon 0.8)"
    )
    return Samples(sols, "unigen", detail)


def write_samples(case: Case, samples: Samples, folder: Path) -> list[Path]:
    """One answer file per sample, ``DIR/sample-0001.json`` ..., value per position only."""
    from verifier.io.answers import FORMAT, VERSION, names_of
    from verifier.io.files import write_atomically
    from verifier.model.describe import describe

    folder.mkdir(parents=True, exist_ok=True)
    d = describe(case.semantics)
    name = names_of(case.graph)
    paths = []
    for i, vals in enumerate(samples.values, start=1):
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "semantics": case.semantics.value,
            "case": case.id,
            "nodes": {name(x): d.show(v) for x, v in enumerate(vals.tolist())},
        }
        text = (json.dumps(doc, indent=1) + "\n").encode()
        path = folder / f"sample-{i:04d}.json"
        paths.append(write_atomically(path, partial(_write, text), None))
    return paths


def sample_to_folder(case: Case, n: int, folder: Path, budget: float | None = None) -> str:
    """Draw ``n`` samples within ``budget`` seconds and write them: the line to print."""
    import time

    until = None if budget is None else time.monotonic() + budget
    drawn = sample(case, n, until=until)
    written = write_samples(case, drawn, folder)
    return f"wrote {len(written):,} sample(s) to {folder}: {drawn.detail}"


def _write(text: bytes, f: IO[bytes]) -> None:
    f.write(text)
