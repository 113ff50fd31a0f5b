"""Plumbing shared by the field checks: one check result per solver that publishes a column."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from verifier.errors import NotApplicable
from verifier.model import CheckResult, GameGraph, SolverResult, Verdict
from verifier.model.results import View
from verifier.registry import CheckContext

__all__ = ["about", "per_solver", "result"]


def per_solver(
    ctx: CheckContext,
    view: View,
    column: str,
    judge: Callable[[GameGraph, SolverResult], CheckResult],
) -> list[CheckResult]:
    """``judge`` every solver of ``view`` that gives ``column`` (by name); ``NotApplicable``
    when none does."""
    rs = [r for r in ctx.results.values() if r.view is view and column in r.columns]
    if not rs:
        raise NotApplicable(f"no solver gives {view.value} {column}s")
    return [about(judge(ctx.case.graph, r), r.solver) for r in sorted(rs, key=lambda r: r.solver)]


def about(c: CheckResult, *solvers: str) -> CheckResult:
    """``c``, saying it judges the results of ``solvers`` too (``CheckResult.judged``)."""
    return replace(c, judged=c.judged | frozenset(solvers))


def result(
    name: str,
    verdict: Verdict,
    detail: str,
    t0: float,
    witness: Mapping[str, Any] | None = None,
) -> CheckResult:
    """A check's result, timed from ``t0`` (``time.perf_counter()`` at its start)."""
    return CheckResult(name, verdict, detail, witness, seconds=time.perf_counter() - t0)
