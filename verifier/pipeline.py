"""The ``verify`` pipeline: run every applicable solver, compare them, run every check, compare
with the case's ``expect`` block, and decide the case's verdict.

Verdict of a case: ``refuted`` if any check is refuted, else ``inconclusive`` if any check is
unknown (or nothing was checked), else ``verified``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from verifier.checks.agreement import agreement_checks
from verifier.checks.expect import expect_checks, unanswered_expectations
from verifier.deadline import TimeUp, stop_after
from verifier.errors import NotApplicable
from verifier.games.summary import summarize_solution
from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.solution import Solution
from verifier.registry import CheckContext, Options, checks_for, solvers_for

__all__ = [
    "CaseReport",
    "CaseVerdict",
    "ExtraResults",
    "Finding",
    "SolverRun",
    "decide",
    "findings",
    "run_case",
    "summarize",
]


class CaseVerdict(StrEnum):
    VERIFIED = "verified"
    """Every check confirmed, the Z3 proofs included."""
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    SOLVED = "solved"
    """``solve`` (no proofs run): an answer, and nothing refuted or undecided among the solvers'
    agreement and the ``expect`` block. Never ``verified``: nothing was proved."""


@dataclass(frozen=True)
class SolverRun:
    """One solver's run: its result, or why it was skipped."""

    name: str
    result: SolverResult | None
    skipped: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Finding:
    """A refuted check that leads, and the refuted checks that fail because of it.

    A check that sums others up (the judgment of an answer file: its ``data["refuted_by"]``
    names the checks that refuted the claims) is the root cause: it names the claim that breaks
    its own rule, and the checks it names are its consequences, folded under it."""

    check: CheckResult
    because: tuple[CheckResult, ...] = ()


def findings(checks: tuple[CheckResult, ...] | list[CheckResult]) -> list[Finding]:
    """The refuted checks as findings: each root cause first with its consequences (in the
    order of ``checks``), then every other refuted check alone, in order."""
    refuted = [c for c in checks if c.verdict is Verdict.REFUTED]
    roots = [c for c in refuted if c.data.get("refuted_by")]
    taken = {id(c) for c in roots}
    out: list[Finding] = []
    for root in roots:
        names = set(root.data["refuted_by"])
        because = tuple(c for c in refuted if id(c) not in taken and c.name in names)
        taken |= {id(c) for c in because}
        out.append(Finding(root, because))
    out += [Finding(c) for c in refuted if id(c) not in taken]
    return out


@dataclass(frozen=True)
class CaseReport:
    case: Case
    solvers: tuple[SolverRun, ...]
    checks: tuple[CheckResult, ...]
    verdict: CaseVerdict
    seconds: float
    stages: Mapping[str, float] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)
    solution: Solution | None = None
    """The answer (``None`` when no solver answered in the semantics' view)."""

    @property
    def witness(self) -> Mapping[str, Any] | None:
        """The witness of the first finding (``None`` when nothing was refuted)."""
        return next((f.check.witness for f in self.findings), None)

    @property
    def findings(self) -> list[Finding]:
        """The refuted checks, root causes first with their consequences (``findings``)."""
        return findings(self.checks)

    @property
    def results(self) -> dict[str, SolverResult]:
        return {r.name: r.result for r in self.solvers if r.result is not None}

    def __repr__(self) -> str:
        """Short: ``<CaseReport figure-1 minimax: verified, 12 checks (12 confirmed)>``."""
        ok = sum(c.verdict is Verdict.CONFIRMED for c in self.checks)
        return (
            f"<CaseReport {self.case.id} {self.case.semantics.value}: {self.verdict.value}, "
            f"{len(self.checks)} check{'' if len(self.checks) == 1 else 's'} ({ok} confirmed)>"
        )

    def _repr_html_(self) -> str:
        """A notebook's view: verdict, answer, open checks, answer table, picture."""
        from verifier.writers.notebook import report_html

        return report_html(self)


ExtraResults = Callable[[Mapping[str, SolverResult]], Mapping[str, SolverResult]]
"""Given the solvers' results, further results to judge alongside them (an answer file's claims,
completed from the solvers where the file is silent)."""


@contextmanager
def z3_timeout(seconds: float | None) -> Iterator[None]:
    """Every Z3 query started in the block stops after ``seconds`` (wall clock) at most: Z3's
    global ``timeout`` parameter, put back afterwards. ``None``: no timeout (and z3 is not
    imported for it)."""
    if seconds is None:
        yield
        return
    import z3

    z3.set_param("timeout", max(1, int(seconds * 1000)))
    try:
        yield
    finally:
        z3.set_param("timeout", 4294967295)  # Z3's default: no timeout


def run_case(
    case: Case,
    options: Options | None = None,
    *,
    smt: bool = True,
    extra_results: ExtraResults | None = None,
) -> CaseReport:
    """Run every solver and check that applies to ``case`` and decide its verdict.

    With ``smt=False`` only the solvers, their agreement and the ``expect`` block are checked
    (what ``verifier solve`` does); the registered Z3 / certificate checks are skipped.
    ``extra_results`` adds results that did not come from a registered solver (``verify
    --answers``): they join the solvers' before agreement and every check judges them alike.
    """
    options = options or Options()
    t0 = time.perf_counter()
    runs: list[SolverRun] = []
    checks: list[CheckResult] = []
    specs = solvers_for(case.semantics)
    solver_options = options
    if options.linear:  # one linear engine solver: compiled, numpy where numba is missing
        specs = [s for s in specs if s.linear]
        solver_options = replace(options, engine="compiled")
    for i, spec in enumerate(specs):
        options.report(f"{case.id}: solvers", i, len(specs))
        s0 = time.perf_counter()
        try:
            # the first answer is given whatever the budget; the others stop when it is spent
            with stop_after(_left(options, t0) if any(r.result for r in runs) else None):
                res = spec.fn(case, solver_options)
            runs.append(SolverRun(spec.name, res, seconds=time.perf_counter() - s0))
        except TimeUp:
            runs.append(SolverRun(spec.name, None, skipped=_spent(options, "stopped")))
        except NotApplicable as e:
            runs.append(SolverRun(spec.name, None, skipped=str(e)))
        except Exception as e:  # a crashing solver is a defect, reported, never hidden
            runs.append(SolverRun(spec.name, None, skipped=f"crashed: {e!r}"))
            checks.append(_crash(f"solver {spec.name}", e, time.perf_counter() - s0))
    t_solve = time.perf_counter()
    results = {r.name: r.result for r in runs if r.result is not None}
    judged = results
    if extra_results is not None:
        extras = dict(extra_results(dict(results)))
        for name, res in extras.items():
            runs.append(SolverRun(name, res, seconds=res.seconds))
            results[name] = res
        if options.linear:  # the checks judge the claims; our solver is what they agree with
            judged = extras
    checks.extend(agreement_checks(case, results))
    checks.extend(expect_checks(case, results))
    t_compare = time.perf_counter()
    ctx = CheckContext(case=case, results=judged, options=options)
    cspecs = checks_for(case.semantics) if smt else []
    if options.linear:
        cspecs = [c for c in cspecs if c.linear]
    options.report(f"{case.id}: solvers", len(specs), len(specs))
    for i, cspec in enumerate(cspecs):
        options.report(f"{case.id}: checks", i, len(cspecs))
        c0 = time.perf_counter()
        left = _left(options, t0)
        if left is not None and left <= 0:
            checks.append(CheckResult(cspec.name, Verdict.UNKNOWN, _spent(options, "not run")))
            continue
        try:
            with stop_after(left), z3_timeout(left):
                checks.extend(cspec.fn(ctx))
        except TimeUp:
            why = _spent(options, "stopped while it ran")
            spent = time.perf_counter() - c0
            checks.append(CheckResult(cspec.name, Verdict.UNKNOWN, why, seconds=spent))
        except NotApplicable:
            continue
        except Exception as e:
            checks.append(_crash(cspec.name, e, time.perf_counter() - c0))
    if smt:
        options.report(f"{case.id}: checks", len(cspecs), len(cspecs))
        checks.extend(unanswered_expectations(case, checks))
    t_checks = time.perf_counter()
    solution = Solution.from_results(case, results, checks)
    if solution is None:
        why = "; ".join(f"{r.name}: {r.skipped}" for r in runs if r.skipped) or "no solver"
        checks.append(CheckResult("answer", Verdict.UNKNOWN, f"no solver answered ({why})"))
    verdict = decide(checks)
    if not smt and verdict is not CaseVerdict.REFUTED and solution is not None:
        unknown = any(c.verdict is Verdict.UNKNOWN for c in checks)
        verdict = CaseVerdict.INCONCLUSIVE if unknown else CaseVerdict.SOLVED
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
        summary=_summary(case, solution),
        solution=solution,
    )


def _left(options: Options, t0: float) -> float | None:
    """Seconds left of the case's ``--budget`` (``None``: no budget)."""
    return None if options.budget is None else t0 + options.budget - time.perf_counter()


def _spent(options: Options, what: str) -> str:
    return f"{what}: the budget of {options.budget:g} s was spent (--budget lifts it)"


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


def summarize(case: Case, results: Mapping[str, SolverResult]) -> dict[str, Any]:
    """The ``summary`` block of the answer these results make (``Solution.summary``)."""
    return _summary(case, Solution.from_results(case, results))


def _summary(case: Case, solution: Solution | None) -> dict[str, Any]:
    """``summarize_solution``, or the graph's size alone when no solver answered."""
    if solution is None:
        return {"positions": case.graph.n, "moves": case.graph.m}
    return summarize_solution(case, solution)
