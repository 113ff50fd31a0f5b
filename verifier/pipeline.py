"""The ``verify`` pipeline: run every applicable solver, compare them, run every check, compare
with the case's ``expect`` block, and decide the case's verdict.

Verdict of a case: ``refuted`` if any check is refuted, else ``inconclusive`` if any check is
unknown (or nothing was checked), else ``verified``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from verifier.errors import NotApplicable
from verifier.model import Case, CheckResult, Semantics, SolverResult, Verdict
from verifier.model.results import View
from verifier.registry import CheckContext, Options, checks_for, solvers_for

__all__ = ["CaseReport", "CaseVerdict", "SolverRun", "run_case"]

_LABEL_WORDS = {1: "won", -1: "lost", 0: "unknown"}


class CaseVerdict(StrEnum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class SolverRun:
    """One solver's run: its result, or why it was skipped."""

    name: str
    result: SolverResult | None
    skipped: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class CaseReport:
    case: Case
    solvers: tuple[SolverRun, ...]
    checks: tuple[CheckResult, ...]
    verdict: CaseVerdict
    seconds: float
    stages: Mapping[str, float] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)

    @property
    def results(self) -> dict[str, SolverResult]:
        return {r.name: r.result for r in self.solvers if r.result is not None}


def run_case(case: Case, options: Options | None = None, *, smt: bool = True) -> CaseReport:
    """Run every solver and check that applies to ``case`` and decide its verdict.

    With ``smt=False`` only the solvers, their agreement and the ``expect`` block are checked
    (what ``verifier solve`` does); the registered Z3 / certificate checks are skipped.
    """
    options = options or Options()
    t0 = time.perf_counter()
    runs: list[SolverRun] = []
    checks: list[CheckResult] = []
    specs = solvers_for(case.semantics)
    for i, spec in enumerate(specs):
        options.report(f"{case.id}: solvers", i, len(specs))
        s0 = time.perf_counter()
        try:
            res = spec.fn(case, options)
            runs.append(SolverRun(spec.name, res, seconds=time.perf_counter() - s0))
        except NotApplicable as e:
            runs.append(SolverRun(spec.name, None, skipped=str(e)))
        except Exception as e:  # a crashing solver is a defect, reported, never hidden
            runs.append(SolverRun(spec.name, None, skipped=f"crashed: {e!r}"))
            checks.append(_crash(f"solver {spec.name}", e, time.perf_counter() - s0))
    t_solve = time.perf_counter()
    results = {r.name: r.result for r in runs if r.result is not None}
    checks.extend(agreement_checks(case, results))
    checks.extend(expect_checks(case, results))
    t_compare = time.perf_counter()
    ctx = CheckContext(case=case, results=results, options=options)
    cspecs = checks_for(case.semantics) if smt else []
    options.report(f"{case.id}: solvers", len(specs), len(specs))
    for i, cspec in enumerate(cspecs):
        options.report(f"{case.id}: checks", i, len(cspecs))
        c0 = time.perf_counter()
        try:
            checks.extend(cspec.fn(ctx))
        except NotApplicable:
            continue
        except Exception as e:
            checks.append(_crash(cspec.name, e, time.perf_counter() - c0))
    if smt:
        options.report(f"{case.id}: checks", len(cspecs), len(cspecs))
        checks.extend(_unanswered_expectations(case, checks))
    t_checks = time.perf_counter()
    verdict = decide(checks)
    return CaseReport(
        case=case,
        solvers=tuple(runs),
        checks=tuple(checks),
        verdict=verdict,
        seconds=t_checks - t0,
        stages={
            "solve": t_solve - t0,
            "compare": t_compare - t_solve,
            "checks": t_checks - t_compare,
        },
        summary=summarize(case, results),
    )


def decide(checks: list[CheckResult]) -> CaseVerdict:
    if any(c.verdict is Verdict.REFUTED for c in checks):
        return CaseVerdict.REFUTED
    if not checks or any(c.verdict is Verdict.UNKNOWN for c in checks):
        return CaseVerdict.INCONCLUSIVE
    return CaseVerdict.VERIFIED


def _crash(name: str, e: BaseException, seconds: float) -> CheckResult:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
    return CheckResult(
        name=name,
        verdict=Verdict.UNKNOWN,
        detail=f"crashed with {type(e).__name__}: {e}{where}",
        seconds=seconds,
    )


# ---------------------------------------------------------------------- agreement between solvers
def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def agreement_checks(case: Case, results: Mapping[str, SolverResult]) -> list[CheckResult]:
    """Compare every pair (reference, other) of solvers with the same view, node by node."""
    g = case.graph
    out: list[CheckResult] = []
    by_view: dict[View, list[SolverResult]] = {}
    for r in results.values():
        by_view.setdefault(r.view, []).append(r)
    for view, rs in by_view.items():
        if len(rs) < 2:
            continue
        ref = rs[0]
        for other in rs[1:]:
            t0 = time.perf_counter()
            both = ref.covered_mask() & other.covered_mask()
            witness: dict[str, Any] | None = None
            what = "values"
            diff = np.flatnonzero(both & ~_equal(ref.values, other.values))
            if len(diff) == 0 and ref.remoteness is not None and other.remoteness is not None:
                what = "remoteness"
                diff = np.flatnonzero(both & (ref.remoteness != other.remoteness))
                if len(diff):
                    x = int(diff[0])
                    witness = {
                        "node": g.name(x),
                        "remoteness": {
                            ref.solver: int(ref.remoteness[x]),
                            other.solver: int(other.remoteness[x]),
                        },
                        "successors": {
                            g.name(int(y)): int(ref.remoteness[y]) for y in g.successors(x)
                        },
                    }
            elif len(diff):
                x = int(diff[0])
                witness = {
                    "node": g.name(x),
                    "values": {
                        ref.solver: _py(ref.values[x]),
                        other.solver: _py(other.values[x]),
                    },
                    "successors": {
                        g.name(int(y)): {
                            ref.solver: _py(ref.values[y]),
                            other.solver: _py(other.values[y]),
                        }
                        for y in g.successors(x)
                    },
                    "disagreements": len(diff),
                }
            name = f"agree {view.value}: {ref.solver} = {other.solver}"
            secs = time.perf_counter() - t0
            if witness is None:
                out.append(
                    CheckResult(
                        name,
                        Verdict.CONFIRMED,
                        f"{int(both.sum())} nodes compared, values"
                        + (
                            " and remoteness"
                            if ref.remoteness is not None and other.remoteness is not None
                            else ""
                        )
                        + " identical",
                        seconds=secs,
                    )
                )
            else:
                out.append(
                    CheckResult(
                        name,
                        Verdict.REFUTED,
                        f"{what} differ at node {witness['node']!r} ({len(diff)} node(s) in all)",
                        witness=witness,
                        seconds=secs,
                    )
                )
    return out


def _equal(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    eq = np.asarray(a == b)
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        eq |= np.isnan(a) & np.isnan(b)
    return eq


def _py(v: Any) -> Any:
    """A numpy scalar as a plain JSON value (integral floats as ints, NaN as None)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        if np.isnan(v):
            return None
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
    return v


# ---------------------------------------------------------------------- expectations
_VIEW_OF_EXPECT = {
    "values": View.SCORE,
    "labels": View.LABEL,
    "winner": View.REGION,
    "grundy": View.GRUNDY,
}


def _first(results: Mapping[str, SolverResult], view: View) -> SolverResult | None:
    for r in results.values():
        if r.view is view:
            return r
    return None


def _shown(view: View, r: SolverResult, x: int) -> Any:
    if view is View.LABEL:
        return _LABEL_WORDS[int(r.values[x])]
    if view is View.REGION:
        return 0 if int(r.values[x]) == 1 else 1
    display = r.extra.get("display")
    if isinstance(display, Mapping) and x in display:
        return display[x]
    return _py(r.values[x])


def expect_checks(case: Case, results: Mapping[str, SolverResult]) -> list[CheckResult]:
    """Compare the case's ``expect`` block with the solvers' answers (every solver of the view)."""
    exp = case.expect
    if exp is None:
        return []
    g = case.graph
    out: list[CheckResult] = []
    fields: dict[str, Mapping[int, Any]] = {
        "values": exp.values,
        "labels": exp.labels,
        "winner": exp.winner,
        "grundy": exp.grundy,
    }
    if exp.root_value is not None and case.root is not None:
        view = _native_view(case.semantics)
        fields["root_value"] = {case.root: exp.root_value}
    for key, wanted in fields.items():
        if not wanted:
            continue
        view = _VIEW_OF_EXPECT.get(key, _native_view(case.semantics))
        rs = [r for r in results.values() if r.view is view]
        name = f"expect {key}"
        if not rs:
            msg = f"no solver produced {view.value} values"
            out.append(CheckResult(name, Verdict.UNKNOWN, msg))
            continue
        bad: dict[str, Any] | None = None
        compared = 0
        for r in rs:
            cov = r.covered_mask()
            for x, v in wanted.items():
                if not cov[x]:
                    continue
                compared += 1
                got = _shown(view, r, x)
                if not _matches(got, v):
                    bad = {"node": g.name(x), "expected": v, "solver": r.solver, "got": got}
                    break
            if bad:
                break
        if bad:
            out.append(
                CheckResult(
                    name,
                    Verdict.REFUTED,
                    f"node {bad['node']!r}: expected {bad['expected']!r}, "
                    f"{bad['solver']} gives {bad['got']!r}",
                    witness=bad,
                )
            )
        elif compared == 0:
            out.append(CheckResult(name, Verdict.UNKNOWN, "no solver covered the expected nodes"))
        else:
            out.append(
                CheckResult(
                    name,
                    Verdict.CONFIRMED,
                    f"{len(wanted)} expected node value(s) match {len(rs)} solver(s)",
                )
            )
    if exp.remoteness:
        out.append(_expect_remoteness(case, results, exp.remoteness))
    return out


def _matches(got: Any, want: Any) -> bool:
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(got) == float(want)
    return str(got) == str(want)


def _expect_remoteness(
    case: Case, results: Mapping[str, SolverResult], wanted: Mapping[int, int]
) -> CheckResult:
    rs = [r for r in results.values() if r.remoteness is not None]
    if not rs:
        return CheckResult("expect remoteness", Verdict.UNKNOWN, "no solver reports remoteness")
    for r in rs:
        assert r.remoteness is not None
        for x, v in wanted.items():
            if r.covered_mask()[x] and int(r.remoteness[x]) != int(v):
                w = {
                    "node": case.graph.name(x),
                    "expected": v,
                    "solver": r.solver,
                    "got": int(r.remoteness[x]),
                }
                return CheckResult(
                    "expect remoteness",
                    Verdict.REFUTED,
                    f"node {w['node']!r}: expected remoteness {v}, {r.solver} gives {w['got']}",
                    witness=w,
                )
    return CheckResult(
        "expect remoteness", Verdict.CONFIRMED, f"{len(wanted)} remoteness value(s) match"
    )


def _unanswered_expectations(case: Case, checks: list[CheckResult]) -> list[CheckResult]:
    """An expectation no check answered must not pass silently."""
    exp = case.expect
    if exp is None:
        return []
    out = []
    answered = {k for c in checks for k in c.data}
    if exp.unique is not None and "unique" not in answered:
        out.append(
            CheckResult(
                "expect unique", Verdict.UNKNOWN, "no check decided uniqueness for this case"
            )
        )
    if exp.intervals and "intervals" not in answered:
        out.append(
            CheckResult(
                "expect intervals",
                Verdict.UNKNOWN,
                "no check computed solution intervals for this case",
            )
        )
    if exp.sums and "sums" not in answered:
        out.append(
            CheckResult(
                "expect sums", Verdict.UNKNOWN, "no check computed the values of the declared sums"
            )
        )
    return out


# ---------------------------------------------------------------------- summary
def _native_view(sem: Semantics) -> View:
    return {
        Semantics.MINIMAX: View.SCORE,
        Semantics.NORMAL: View.LABEL,
        Semantics.REACHABILITY: View.REGION,
        Semantics.IMPARTIAL: View.GRUNDY,
    }[sem]


def summarize(case: Case, results: Mapping[str, SolverResult]) -> dict[str, Any]:
    """Whole-graph counts (``positions``, ``won``, ``lost``, ``drawn`` for the side to move,
    ``max_remoteness``, ``root_value``; by symmetry class where the generator reduced symmetry).

    Won / lost is from the mover's view for ``normal`` and ``impartial`` (N / P positions; loopy
    draws are drawn), from Max's view for ``minimax`` (score > 0 / < 0), and from player 0's view
    for ``reachability`` (in W / not in W).
    """
    from verifier.games.summary import summarize as count_labels

    g = case.graph
    view = _native_view(case.semantics)
    ref = _first(results, view)
    if ref is None:
        return {"positions": g.n, "moves": g.m}
    vals = np.asarray(ref.values)
    if view is View.GRUNDY:
        sign = np.where(vals > 0, 1, np.where(vals == 0, -1, 0))
        loopy = ref.extra.get("loopy")
        if isinstance(loopy, Mapping):  # infinity(K) with 0 in K is a win for the mover
            for x, k in loopy.items():
                if 0 in k:
                    sign[int(x)] = 1
    elif view is View.REGION:
        sign = np.where(vals == 1, 1, -1)
    else:
        sign = np.sign(np.nan_to_num(vals.astype(np.float64)))
    sign = np.where(ref.covered_mask(), sign, 0)
    rem = ref.remoteness
    if rem is None:
        rem = next((r.remoteness for r in results.values() if r.remoteness is not None), None)
    if rem is None:
        rem = np.full(g.n, -1, dtype=np.int64)
    summary = count_labels(case, sign, rem)
    summary["moves"] = g.m
    if not ref.covered_mask().all():
        summary["covered"] = int(ref.covered_mask().sum())
    summary["root"] = g.name(case.root) if case.root is not None else None
    summary["root_value"] = (
        _shown(view, ref, case.root)
        if case.root is not None and ref.covered_mask()[case.root]
        else None
    )
    return summary
