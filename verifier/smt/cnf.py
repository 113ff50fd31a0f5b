"""CNF formulas built in bulk with numpy and handed to Z3 as DIMACS text.

Building Z3 terms one by one through the Python API costs about 0.3 ms per node; emitting the
clauses as integer arrays and letting Z3 parse one DIMACS string is ~30x cheaper
(``shared/research/z3-encoding.md``). Every query here runs on Z3 with the
fixed seed and the resource limit of the ``Options`` (``solve`` says how), either through Z3's
own executable in DIMACS mode (much faster) or through ``SolverFor("QF_FD")``; Z3's ``unknown``
is reported with its reason and never read as an answer.

Variable 1 is the constant TRUE (a unit clause), so a "literal" of a node whose value is a
constant is simply ``+1`` or ``-1``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import numpy as np
import z3
from numpy.typing import NDArray

from verifier.model.graph import IntArray
from verifier.registry import Options

__all__ = [
    "BINARY_MIN_CLAUSES",
    "CONFLICT_COST",
    "TRUE",
    "USE_BINARY",
    "Cnf",
    "SatOutcome",
    "SatStatus",
    "long_clauses",
    "solve",
    "z3_binary",
]

TRUE = 1
"""The DIMACS variable that is asserted true; ``-TRUE`` is the constant false."""

CONFLICT_COST = 100
"""``rlimit`` units per SAT conflict when the Z3 executable runs (it ignores ``rlimit``)."""
USE_BINARY = True
"""Prefer Z3's executable (DIMACS mode) to the Python API; tests flip it to cover both."""
BINARY_MIN_CLAUSES = 20_000
"""Smaller formulas go through the Python API (no process start-up to pay)."""

_KVAR = re.compile(r"k!(\d+)$")


class SatStatus(StrEnum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass(frozen=True, eq=False)
class SatOutcome:
    """What Z3 said about one query."""

    status: SatStatus
    reason: str = ""
    """Z3's ``reason_unknown()`` when the status is unknown."""
    model: NDArray[np.bool_] | None = None
    """Value of each DIMACS variable (index = variable number) when sat and asked for."""
    seconds: float = 0.0
    clauses: int = 0
    variables: int = 0


class Cnf:
    """A CNF under construction: clauses are stored as 0-terminated integer token arrays."""

    def __init__(self, n_vars: int) -> None:
        self.n_vars = max(int(n_vars), TRUE)
        self._parts: list[IntArray] = [np.array([TRUE, 0], dtype=np.int64)]
        self.n_clauses = 1

    def new_vars(self, count: int) -> int:
        """Reserve ``count`` fresh variables; returns the first one."""
        first = self.n_vars + 1
        self.n_vars += int(count)
        return first

    def add_tokens(self, tokens: IntArray, n_clauses: int) -> None:
        """Append clauses already laid out as 0-terminated literal runs."""
        if n_clauses:
            self._parts.append(np.asarray(tokens, dtype=np.int64))
            self.n_clauses += int(n_clauses)

    def add_units(self, lits: IntArray) -> None:
        lits = np.asarray(lits, dtype=np.int64)
        out = np.zeros(2 * len(lits), dtype=np.int64)
        out[0::2] = lits
        self.add_tokens(out, len(lits))

    def add_binary(self, a: IntArray, b: IntArray) -> None:
        """Clauses ``(a[i] or b[i])``."""
        a = np.asarray(a, dtype=np.int64)
        out = np.zeros(3 * len(a), dtype=np.int64)
        out[0::3] = a
        out[1::3] = b
        self.add_tokens(out, len(a))

    def add_clause(self, lits: IntArray) -> None:
        """One clause (an empty one makes the formula unsatisfiable)."""
        lits = np.asarray(lits, dtype=np.int64)
        if len(lits) == 0:
            lits = np.array([-TRUE], dtype=np.int64)
        self.add_tokens(np.concatenate([lits, [0]]), 1)

    def dimacs(self) -> str:
        body = np.concatenate(self._parts)
        return f"p cnf {self.n_vars} {self.n_clauses}\n" + " ".join(map(str, body.tolist()))

    def write(self, path: Path, chunk: int = 1 << 20) -> None:
        """Write the DIMACS text to ``path`` in chunks (bounded memory on huge formulas)."""
        with path.open("w") as fh:
            fh.write(f"p cnf {self.n_vars} {self.n_clauses}\n")
            for part in self._parts:
                for k in range(0, len(part), chunk):
                    fh.write(" ".join(map(str, part[k : k + chunk].tolist())))
                    fh.write(" ")


def long_clauses(heads: IntArray, ptr: IntArray, body: IntArray) -> IntArray:
    """Tokens of clauses ``[heads[j], body[ptr[j]:ptr[j+1]]..., 0]`` laid out in one array."""
    lens = np.diff(ptr)
    sizes = lens + 2
    starts = np.zeros(len(heads), dtype=np.int64)
    if len(heads) > 1:
        np.cumsum(sizes[:-1], out=starts[1:])
    out = np.zeros(int(sizes.sum()), dtype=np.int64)
    out[starts] = heads
    pos = np.repeat(starts + 1 - ptr[:-1], lens) + np.arange(int(ptr[-1]), dtype=np.int64)
    out[pos] = body
    return out


def z3_binary() -> str | None:
    """The ``z3`` executable shipped with the z3-solver package (or on PATH), if any."""
    here = Path(sys.executable).with_name("z3")
    if here.exists():
        return str(here)
    return shutil.which("z3")


def solve(cnf: Cnf, options: Options, *, want_model: bool = False) -> SatOutcome:
    """Run Z3 on the formula: fixed seed, resource limits from the options.

    Z3's own executable in DIMACS mode goes straight to its SAT engine and is ~25x faster on
    these formulas than parsing them into ``SolverFor("QF_FD")`` through the Python API (0.4 s
    against 10.6 s for 9x10^5 clauses). In that mode ``rlimit`` is not enforced, so the
    deterministic limit there is ``sat.max_conflicts = rlimit // CONFLICT_COST``. Without the
    executable, and for formulas under ``BINARY_MIN_CLAUSES`` clauses (where starting a process
    costs more than parsing), the Python API is used (``rlimit`` enforced).
    """
    big = cnf.n_clauses >= BINARY_MIN_CLAUSES
    exe = z3_binary() if USE_BINARY and big else None
    if exe is not None:
        return _solve_binary(exe, cnf, options, want_model)
    return _solve_api(cnf, options, want_model)


def _solve_binary(exe: str, cnf: Cnf, options: Options, want_model: bool) -> SatOutcome:
    t0 = time.perf_counter()
    nc, nv = cnf.n_clauses, cnf.n_vars
    with tempfile.TemporaryDirectory(prefix="gv-z3-") as tmp:
        src, out = Path(tmp) / "q.cnf", Path(tmp) / "out.txt"
        cnf.write(src)
        args = [
            exe,
            "-dimacs",
            str(src),
            f"sat.random_seed={options.seed}",
            f"rlimit={options.rlimit}",
            f"sat.max_conflicts={max(options.rlimit // CONFLICT_COST, 1)}",
        ]
        with out.open("w") as fh:
            proc = subprocess.run(args, stdout=fh, stderr=subprocess.PIPE, check=False)
        with out.open() as fh:
            first = fh.readline().strip()
            rest = fh.read() if want_model and first == "s SATISFIABLE" else ""
    dt = time.perf_counter() - t0
    if first == "s UNSATISFIABLE":
        return SatOutcome(SatStatus.UNSAT, seconds=dt, clauses=nc, variables=nv)
    if first != "s SATISFIABLE":
        why = first or proc.stderr.decode(errors="replace").strip() or f"exit {proc.returncode}"
        if first == "s UNKNOWN":
            why = "sat.max_conflicts (resource limit) reached"
        return SatOutcome(SatStatus.UNKNOWN, why, seconds=dt, clauses=nc, variables=nv)
    model = None
    if want_model:
        lits = np.array(rest.replace("v", " ").split(), dtype=np.int64)
        model = np.zeros(nv + 1, dtype=np.bool_)
        pos = lits[(lits > 0) & (lits <= nv)]
        model[pos] = True
        model[TRUE] = True
    return SatOutcome(SatStatus.SAT, model=model, seconds=dt, clauses=nc, variables=nv)


def _solve_api(cnf: Cnf, options: Options, want_model: bool) -> SatOutcome:
    t0 = time.perf_counter()
    s = z3.SolverFor("QF_FD")
    s.set("random_seed", options.seed)
    s.set("rlimit", options.rlimit)
    try:
        s.from_string(cnf.dimacs())
        res = s.check()
    except z3.Z3Exception as exc:  # resource limits can also strike while parsing
        return SatOutcome(SatStatus.UNKNOWN, f"z3 error: {exc}", seconds=time.perf_counter() - t0)
    nc, nv = cnf.n_clauses, cnf.n_vars
    if res == z3.unsat:
        return SatOutcome(
            SatStatus.UNSAT, seconds=time.perf_counter() - t0, clauses=nc, variables=nv
        )
    if res != z3.sat:
        return SatOutcome(
            SatStatus.UNKNOWN,
            s.reason_unknown(),
            seconds=time.perf_counter() - t0,
            clauses=nc,
            variables=nv,
        )
    model = None
    if want_model:
        model = np.zeros(cnf.n_vars + 1, dtype=np.bool_)
        m = s.model()
        for d in m.decls():
            hit = _KVAR.match(d.name())
            if hit and z3.is_true(m[d]):
                model[int(hit.group(1))] = True
        model[TRUE] = True
    return SatOutcome(
        SatStatus.SAT, model=model, seconds=time.perf_counter() - t0, clauses=nc, variables=nv
    )
