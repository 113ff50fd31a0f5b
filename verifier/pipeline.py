"""The ``verify`` pipeline: run every applicable solver, compare them, run every check, compare
with the case's ``expect`` block, and decide the case's verdict.

Verdict of a case: ``refuted`` if any check is refuted, else ``inconclusive`` if any check is
unknown (or nothing was checked), else ``verified``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from verifier.checks.agreement import agreement_checks
from verifier.checks.expect import expect_checks, unanswered_expectations
from verifier.deadline import TimeUp, stop_after
from verifier.errors import NotApplicable
from verifier.games.summary import summarize_solution
from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.columns import LOOPY, REMOTENESS, VALUE
from verifier.model.report import CaseReport, CaseVerdict, SolverRun
from verifier.model.results import AGREE, ANSWER, EXPECT, SOLVER
from verifier.model.solution import Solution
from verifier.registry import CheckContext, Options, checks_for, solvers_for

__all__ = [
    "ExtraResults",
    "decide",
    "run_case",
    "summarize",
]


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
            crash = _crash(f"solver {spec.name}", e, time.perf_counter() - s0)
            checks.extend(stamped([crash], SOLVER, frozenset()))
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
    checks.extend(stamped(agreement_checks(case, results), AGREE, AGREEMENT_PROVES))
    checks.extend(stamped(expect_checks(case, results), EXPECT, EXPECT_PROVES))
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
            not_run = CheckResult(cspec.name, Verdict.UNKNOWN, _spent(options, "not run"))
            checks.extend(stamped([not_run], cspec.name, cspec.proves))
            continue
        try:
            with stop_after(left), z3_timeout(left):
                checks.extend(stamped(cspec.fn(ctx), cspec.name, cspec.proves))
        except TimeUp:
            why = _spent(options, "stopped while it ran")
            stopped = CheckResult(
                cspec.name, Verdict.UNKNOWN, why, seconds=time.perf_counter() - c0
            )
            checks.extend(stamped([stopped], cspec.name, cspec.proves))
        except NotApplicable:
            continue
        except Exception as e:
            crash = _crash(cspec.name, e, time.perf_counter() - c0)
            checks.extend(stamped([crash], cspec.name, cspec.proves))
    if smt:
        options.report(f"{case.id}: checks", len(cspecs), len(cspecs))
        checks.extend(stamped(unanswered_expectations(case, checks), EXPECT, EXPECT_PROVES))
    t_checks = time.perf_counter()
    solution = Solution.from_results(case, results, checks)
    if solution is None:
        why = "; ".join(f"{r.name}: {r.skipped}" for r in runs if r.skipped) or "no solver"
        lead = (
            "no solver answered"
            if options.engine == "auto"
            else f"no solver of --engine {options.engine} answers this case: try another --engine"
        )
        none = CheckResult("answer", Verdict.UNKNOWN, f"{lead} ({why})")
        checks.extend(stamped([none], ANSWER, frozenset()))
    verdict = decide(checks)
    if not smt and verdict is not CaseVerdict.REFUTED and solution is not None:
        unknown = any(c.verdict is Verdict.UNKNOWN for c in checks)
        verdict = CaseVerdict.INCONCLUSIVE if unknown else CaseVerdict.SOLVED
    summary = _summary(case, solution)  # a game's block may be long (chess: orbit sizes)
    t_summary = time.perf_counter()
    return CaseReport(
        case=case,
        solvers=tuple(runs),
        checks=tuple(checks),
        verdict=verdict,
        seconds=t_summary - t0,
        stages={
            "solve": t_solve - t0,
            "compare": t_compare - t_solve,
            "checks": t_checks - t_compare,
            "summary": t_summary - t_checks,
        },
        summary=summary,
        solution=solution,
    )


AGREEMENT_PROVES = frozenset({VALUE, LOOPY, REMOTENESS})
"""What the solvers' agreement vouches for (moves are not compared: ties break differently)."""
EXPECT_PROVES = frozenset({VALUE})
"""What an ``expect`` entry vouches for (``expect remoteness`` says remoteness too)."""


def stamped(
    results: Iterable[CheckResult], check: str, proves: frozenset[str]
) -> list[CheckResult]:
    """The results with the registered name of their check, and the columns they vouch for
    where a result does not say itself."""
    return [
        replace(c, check=check, proves=proves if c.proves is None else c.proves) for c in results
    ]


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
