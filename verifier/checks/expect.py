"""The case's ``expect`` block against every solver's answer, and expectations no check answered.

Per-node keys (``values``, ``labels``, ``winner``, ``grundy``) belong to the view of the
semantics whose ``expect_key`` they are; ``root_value`` to the case's own semantics; values are
compared as the description shows them (words, winner 0 / 1, ``"inf(K)"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.columns import REMOTENESS, VALUE
from verifier.model.describe import DESCRIPTIONS, describe, describe_view
from verifier.model.results import View
from verifier.model.words import number

__all__ = ["expect_checks", "unanswered_expectations"]

_VIEW_OF_EXPECT: Mapping[str, View] = {d.expect_key: d.view for d in DESCRIPTIONS.values()}


def expect_checks(case: Case, results: Mapping[str, SolverResult]) -> list[CheckResult]:
    """Compare the case's ``expect`` block with the solvers' answers (every solver of the view)."""
    exp = case.expect
    if exp is None:
        return []
    fields: dict[str, Mapping[int, Any]] = {
        key: getattr(exp, key) for key in ("values", "labels", "winner", "grundy")
    }
    if exp.root_value is not None and case.root is not None:
        fields["root_value"] = {case.root: exp.root_value}
    out: list[CheckResult] = []
    native = describe(case.semantics).view
    for key, wanted in fields.items():
        if wanted:
            out.append(_expect_values(case, results, key, _VIEW_OF_EXPECT.get(key, native), wanted))
    if exp.remoteness:
        out.append(_expect_remoteness(case, results, exp.remoteness))
    return out


def _expect_values(
    case: Case,
    results: Mapping[str, SolverResult],
    key: str,
    view: View,
    wanted: Mapping[int, Any],
) -> CheckResult:
    name = f"expect {key}"
    rs = [r for r in results.values() if r.view is view]
    if not rs:
        return CheckResult(name, Verdict.UNKNOWN, f"no solver produced {view.value} values")
    d = describe_view(view)
    compared = 0
    for r in rs:
        cov = r.covered_mask()
        for x, v in wanted.items():
            if not cov[x]:
                continue
            compared += 1
            got = d.show_node(r.columns, x)
            if not _matches(got, v):
                bad = {"node": case.graph.name(x), "expected": v, "solver": r.solver, "got": got}
                return CheckResult(
                    name,
                    Verdict.REFUTED,
                    f"node {bad['node']!r}: expected {number(v)!r}, {r.solver} gives "
                    f"{number(got)!r}",
                    witness=bad,
                )
    if compared == 0:
        return CheckResult(name, Verdict.UNKNOWN, "no solver covered the expected nodes")
    return CheckResult(
        name,
        Verdict.CONFIRMED,
        f"{len(wanted)} expected node value(s) match {len(rs)} solver(s)",
    )


def _matches(got: Any, want: Any) -> bool:
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(got) == float(want)
    return str(got) == str(want)


def _expect_remoteness(
    case: Case, results: Mapping[str, SolverResult], wanted: Mapping[int, int]
) -> CheckResult:
    name = "expect remoteness"
    rs = [r for r in results.values() if REMOTENESS in r.columns]
    if not rs:
        return CheckResult(name, Verdict.UNKNOWN, "no solver reports remoteness")
    for r in rs:
        col = r.columns[REMOTENESS]
        cov = r.covered_mask()
        for x, v in wanted.items():
            got = col.at(x)
            if cov[x] and (-1 if got is None else int(got)) != int(v):
                w = {"node": case.graph.name(x), "expected": v, "solver": r.solver, "got": got}
                return CheckResult(
                    name,
                    Verdict.REFUTED,
                    f"node {w['node']!r}: expected remoteness {number(v)}, {r.solver} gives "
                    f"{number(got)}",
                    witness=w,
                )
    detail = f"{len(wanted)} remoteness value(s) match"
    return CheckResult(name, Verdict.CONFIRMED, detail, proves=frozenset({VALUE, REMOTENESS}))


def unanswered_expectations(case: Case, checks: Sequence[CheckResult]) -> list[CheckResult]:
    """An expectation no check answered must not pass silently."""
    exp = case.expect
    if exp is None:
        return []
    answered = {k for c in checks for k in c.data}
    missing = {
        "unique": (exp.unique is not None, "no check decided uniqueness for this case"),
        "intervals": (bool(exp.intervals), "no check computed solution intervals for this case"),
        "sums": (bool(exp.sums), "no check computed the values of the declared sums"),
    }
    return [
        CheckResult(f"expect {key}", Verdict.UNKNOWN, why)
        for key, (asked, why) in missing.items()
        if asked and key not in answered
    ]
