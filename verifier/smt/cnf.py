"""CNF formulas built in bulk with numpy and handed to Z3 as DIMACS text.

Building Z3 terms one by one through the Python API costs about 0.3 ms per node; emitting the
clauses as integer arrays and letting Z3 parse one DIMACS string is ~30x cheaper
(``shared/research/z3-encoding.md``). Every query here runs on Z3 with the
fixed seed and the resource limit of the ``Options`` (``solve`` says how), either through Z3's
own executable in DIMACS mode (much faster) or through ``SolverFor("QF_FD")``; Z3's ``unknown``
is reported with its reason and never read as an answer.

Variable 1 is the constant TRUE (a unit clause), so a "literal" of a node whose value is a
constant is simply ``+1`` or ``-1``.

At scale (``docs/smt-scaling.md``) the DIMACS text is formatted with numpy (``dimacs_text``),
and ``submit`` hands a formula to a Z3 process in the background (``Z3_JOBS`` at a time) so that
independent queries use both cores while Python builds the next one.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
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
    "Z3_JOBS",
    "Cnf",
    "Pending",
    "SatOutcome",
    "SatStatus",
    "dimacs_text",
    "forget",
    "long_clauses",
    "solve",
    "submit",
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
Z3_JOBS = max(1, min(2, os.cpu_count() or 1))
"""Z3 processes that ``submit`` runs at the same time (one per core, at most two)."""

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

    def clauses(self) -> list[list[int]]:
        """The clauses as lists of literals (for the model counters and python-sat)."""
        tokens = np.concatenate(self._parts).tolist()
        out: list[list[int]] = []
        clause: list[int] = []
        for t in tokens:
            if t:
                clause.append(t)
            else:
                out.append(clause)
                clause = []
        return out

    def dimacs(self) -> str:
        return self.header() + b"".join(map(dimacs_text, self._parts)).decode("ascii")

    def digest(self, seed: int = 0) -> str:
        """A digest of the formula (its clauses in order) and a seed."""
        h = hashlib.blake2b(digest_size=20)
        h.update(f"{self.header()} seed {seed}\n".encode())
        for part in self._parts:
            h.update(np.ascontiguousarray(part).tobytes())
            h.update(b"|")
        return h.hexdigest()

    def header(self) -> str:
        return f"p cnf {self.n_vars} {self.n_clauses}\n"

    def write(self, path: Path, chunk: int = 1 << 20) -> None:
        """Write the DIMACS text to ``path`` in chunks (bounded memory on huge formulas)."""
        with path.open("wb") as fh:
            fh.write(self.header().encode("ascii"))
            for part in self._parts:
                for k in range(0, len(part), chunk):
                    fh.write(dimacs_text(part[k : k + chunk]))


_TRIPLES = np.array([[ord(c) for c in f"{i:03d}"] for i in range(1000)], dtype=np.uint8)
"""ASCII digits of 000..999."""


def dimacs_text(tokens: IntArray) -> bytes:
    """The tokens as DIMACS text: each literal followed by a space, each ``0`` (end of a clause)
    by a newline. Formatted with numpy (several times faster than ``" ".join(map(str, ...))``):
    one fixed-width row per token, filled three digits at a time from a table and right-aligned,
    then only the bytes of the token itself (sign, digits, separator) are kept."""
    t = np.asarray(tokens, dtype=np.int64)
    n = len(t)
    if n == 0:
        return b""
    a = np.abs(t)
    top = int(a.max())
    if top >= 1 << 32:
        raise ValueError(f"DIMACS literal {top} is too large")
    groups = (len(str(top)) + 2) // 3
    cols = 3 * groups + 2  # room for a sign, the digits, a separator
    buf = np.empty((n, cols), dtype=np.uint8)
    q = a.astype(np.uint32)
    for j in range(groups):
        buf[:, cols - 4 - 3 * j : cols - 1 - 3 * j] = _TRIPLES[q % 1000]
        q //= 1000
    buf[:, cols - 1] = np.where(t == 0, ord("\n"), ord(" "))
    digits = np.ones(n, dtype=np.int8)
    bound = 10
    while bound <= top:
        digits += a >= bound
        bound *= 10
    neg = t < 0
    start = (cols - 1 - digits - neg).astype(np.intp)
    buf[np.flatnonzero(neg), start[neg]] = ord("-")
    keep = np.arange(cols, dtype=np.intp)[None, :] >= start[:, None]
    return bytes(buf[keep].tobytes())


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


def solve(
    cnf: Cnf, options: Options, *, want_model: bool = False, memo: bool = False
) -> SatOutcome:
    """Run Z3 on the formula: fixed seed, resource limits from the options.

    Z3's own executable in DIMACS mode goes straight to its SAT engine and is ~25x faster on
    these formulas than parsing them into ``SolverFor("QF_FD")`` through the Python API (0.4 s
    against 10.6 s for 9x10^5 clauses). In that mode ``rlimit`` is not enforced, so the
    deterministic limit there is ``sat.max_conflicts = rlimit // CONFLICT_COST``. Without the
    executable, and for formulas under ``BINARY_MIN_CLAUSES`` clauses (where starting a process
    costs more than parsing), the Python API is used (``rlimit`` enforced).

    With ``memo`` a sat / unsat answer is kept under a digest of the formula's text (and the
    seed): when two checks ask Z3 the very same question, the second reads Z3's first answer.
    Unknown answers are not kept.
    """
    key = cnf.digest(options.seed) if memo else None
    known = _known(key, want_model)
    if known is not None:
        return known
    exe = _binary_for(cnf)

    def attempt(o: Options) -> SatOutcome:
        if exe is not None:
            return _solve_binary(exe, cnf, o, want_model)
        return _solve_api(cnf, o, want_model)

    out = escalating(attempt, options)
    _keep(key, out)
    return out


ESCALATION = 4
"""Each new attempt at a query Z3 left unknown multiplies the resource limit by this."""


def limits(options: Options) -> list[int]:
    """The resource limits a query is tried with, in order: ``first_rlimit`` (at most the
    ceiling ``rlimit``), then ``ESCALATION`` times the previous one, ending at ``rlimit``."""
    ceiling = max(int(options.rlimit), 1)
    out = [min(max(int(options.first_rlimit), 1), ceiling)]
    while out[-1] < ceiling:
        out.append(min(out[-1] * ESCALATION, ceiling))
    return out


def escalating(attempt: Callable[[Options], SatOutcome], options: Options) -> SatOutcome:
    """``attempt`` with each of ``limits(options)`` until Z3 decides; an answer that stays
    unknown names every limit tried (the seed stays the user's: answers are reproducible)."""
    tried: list[int] = []
    out = SatOutcome(SatStatus.UNKNOWN, "not run")
    for lim in limits(options):
        out = attempt(replace(options, rlimit=lim))
        tried.append(lim)
        if out.status is not SatStatus.UNKNOWN:
            return out
    if len(tried) > 1:
        tries = ", ".join(f"{t:,}" for t in tried)
        out = replace(out, reason=f"{out.reason}; tried rlimit {tries} (--rlimit is the ceiling)")
    return out


_MEMO: dict[str, SatOutcome] = {}


def _known(key: str | None, want_model: bool) -> SatOutcome | None:
    """The kept answer for ``key``, if it answers the question (a model when one is wanted)."""
    known = None if key is None else _MEMO.get(key)
    if known is None or (want_model and known.status is SatStatus.SAT and known.model is None):
        return None
    return known


def _keep(key: str | None, out: SatOutcome) -> None:
    if key is not None and out.status is not SatStatus.UNKNOWN:
        if len(_MEMO) > 32:
            _MEMO.clear()
        _MEMO[key] = out


def forget() -> None:
    """Drop the answers kept by ``solve(..., memo=True)``."""
    _MEMO.clear()


def _binary_for(cnf: Cnf) -> str | None:
    big = cnf.n_clauses >= BINARY_MIN_CLAUSES
    return z3_binary() if USE_BINARY and big else None


class Pending:
    """A query handed to Z3 by ``submit``; ``result()`` waits for Z3's answer."""

    def __init__(
        self,
        outcome: SatOutcome | None = None,
        future: Future[SatOutcome] | None = None,
        tmp: str | None = None,
        memo: str | None = None,
    ) -> None:
        self._outcome = outcome
        self._future = future
        self._tmp = tmp
        self._memo = memo

    def result(self) -> SatOutcome:
        if self._outcome is None:
            assert self._future is not None
            self._outcome = self._future.result()
            _keep(self._memo, self._outcome)
        return self._outcome

    def cancel(self) -> None:
        """Drop the query if Z3 has not started it (its answer is no longer needed)."""
        if self._future is not None and self._future.cancel() and self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=Z3_JOBS, thread_name_prefix="z3")
        return _POOL


def submit(cnf: Cnf, options: Options, *, want_model: bool = False, memo: bool = False) -> Pending:
    """``solve`` in the background. A formula for Z3's executable is written here (numpy, in
    the caller's thread) and then solved by one of ``Z3_JOBS`` worker threads, each waiting on
    its own Z3 process: independent queries run on both cores while the caller goes on (builds
    the next formula, runs the plain certificate checker). Formulas for the Python API (small,
    and Z3's Python context is not thread-safe) are solved at once. The answer is exactly
    ``solve``'s: same formula, seed and limits (``memo`` as there)."""
    exe = _binary_for(cnf)
    key = cnf.digest(options.seed) if memo else None
    known = _known(key, want_model)
    if known is not None:
        return Pending(known)
    if Z3_JOBS <= 1 or exe is None:
        return Pending(solve(cnf, options, want_model=want_model, memo=memo))
    t0 = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="gv-z3-")
    try:
        src = Path(tmp) / "q.cnf"
        cnf.write(src)
        future = _pool().submit(
            _run_then_clean, exe, src, cnf.n_clauses, cnf.n_vars, options, want_model, t0
        )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Pending(future=future, tmp=tmp, memo=key)


def _run_then_clean(
    exe: str, src: Path, nc: int, nv: int, options: Options, want_model: bool, t0: float
) -> SatOutcome:
    try:
        return escalating(lambda o: _run_binary(exe, src, nc, nv, o, want_model, t0), options)
    finally:
        shutil.rmtree(src.parent, ignore_errors=True)


def _solve_binary(exe: str, cnf: Cnf, options: Options, want_model: bool) -> SatOutcome:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gv-z3-") as tmp:
        src = Path(tmp) / "q.cnf"
        cnf.write(src)
        return _run_binary(exe, src, cnf.n_clauses, cnf.n_vars, options, want_model, t0)


def _run_binary(
    exe: str,
    src: Path,
    nc: int,
    nv: int,
    options: Options,
    want_model: bool,
    t0: float,
) -> SatOutcome:
    """Z3's executable on the DIMACS file ``src`` (``nc`` clauses, ``nv`` variables)."""
    out = src.with_suffix(".out")
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
