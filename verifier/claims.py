"""Judging a stranger's answers (``verify --answers``) and comparing answer tables (``diff``).

The claims of an answer file become one more result, named ``answers``, that joins our solvers'
in the pipeline (``run_case(..., extra_results=...)``): agreement compares it with them and every
field check and Z3 check judges it on its own, against the rules. A partial file is completed
where it is silent by our own answer, for every semantics (``docs/answers.md``, the partial-table
rules): the checks judge one whole table, the claims and our values around them, taken from our
solvers (judged in the same run), never derived from the claims.

``judgment`` then sums up, as one check named ``answers FILE``, what the checks found about the
claims, with a witness a person can act on: the node, its claimed value, its successors' claimed
values and the rule it breaks, in words; a ``minimax`` table that satisfies (T+MM) but is not
Kars' score is reported as exactly that, with the node's interval over all solutions.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.checks.rules import NAME as RULES
from verifier.checks.rules import rule_faults
from verifier.equations.system import OrderSystem
from verifier.io.answers import Answers
from verifier.model import Case, CheckResult, SolverResult, Verdict
from verifier.model.columns import LOOPY, REMOTENESS, VALUE, Column, answer_columns, column_spec
from verifier.model.describe import describe
from verifier.model.mex import mex
from verifier.model.report import CaseReport
from verifier.model.results import AGREE, EXPECT
from verifier.model.solution import Solution
from verifier.pipeline import ExtraResults, decide, run_case
from verifier.registry import Options

__all__ = [
    "CLAIMS",
    "DiffRow",
    "claimed",
    "diff_tables",
    "judge_claims",
    "rule_fault",
    "run_with_claims",
]

CLAIMS = "answers"
"""The name of the claims' result among the solvers'."""


def run_with_claims(case: Case, options: Options, claims: Answers | None) -> CaseReport:
    """``run_case``, with the claims of an answer file judged alongside when given."""
    if claims is None:
        return run_case(case, options)
    rep = run_case(case, options, extra_results=claimed(claims))
    return judge_claims(rep, claims, options)


# ---------------------------------------------------------------------- completion
def claimed(answers: Answers, name: str = CLAIMS) -> ExtraResults:
    """The ``extra_results`` of ``run_case`` for an answer file: its claims, completed."""

    def extra(results: Mapping[str, SolverResult]) -> Mapping[str, SolverResult]:
        return {name: _complete(answers, results, name)}

    return extra


def _complete(answers: Answers, results: Mapping[str, SolverResult], name: str) -> SolverResult:
    """The claims, with what the file does not say taken from our own answer: the values of the
    nodes it does not claim (with their remoteness and moves) and, on a claimed row whose value
    is ours, the remoteness and move it leaves out. Nothing is derived from the claims."""
    r = answers.result(name)
    ours = Solution.from_results(answers.case, results)
    if ours is None:
        return r
    mine = r.columns
    values, given = np.array(r.values), answers.given.copy()
    loopy = dict(answers.loopy)
    fill = ~given & ours.covered
    values[fill] = ours.columns[VALUE].data[fill]
    for x, k in ours.loopy_sets().items():
        if fill[x]:
            loopy[x], values[x] = k, -1
    given |= fill
    same = given & ~fill & _same_value(mine, ours.columns)
    derive = fill | same
    filled: dict[str, NDArray[np.int64] | None] = {}
    for col in answers:  # every answer column the file gives
        arr, theirs = answers.array(col), ours.columns.get(col)
        if arr is not None and theirs is not None:
            gap = derive & (arr < 0) & theirs.given
            if gap.any():  # a copy only when something is filled in (a full table is used as is)
                arr = arr.copy()
                arr[gap] = np.asarray(theirs.data)[gap]
        filled[col] = arr
    derived = int((given & ~answers.given).sum())
    done = replace(
        r,
        values=values,
        covered=given,
        loopy=loopy or None,
        extra={**r.extra, "derived": derived, "derived_from": ours.sources.get(VALUE, "")},
    )
    return done.with_columns(filled)


def _same_value(a: Mapping[str, Column], b: Mapping[str, Column]) -> NDArray[np.bool_]:
    """Per node: both give the same value (finite, or infinite with the same K)."""
    va, vb = a[VALUE], b[VALUE]
    out = va.given & vb.given & (np.asarray(va.data) == np.asarray(vb.data))
    la, lb = a.get(LOOPY), b.get(LOOPY)
    if la is not None and lb is not None:
        both = np.flatnonzero(la.given & lb.given)
        for x in both.tolist():
            out[x] = tuple(la.data[x]) == tuple(lb.data[x])
    return np.asarray(out, dtype=np.bool_)


# ---------------------------------------------------------------------- rules in words
def rule_fault(case: Case, r: SolverResult, x: int) -> str | None:
    """Why the claimed value of node ``x`` breaks its local rule given its successors' claimed
    values, in words (``None`` when it keeps it, or when a successor is not claimed)."""
    g = case.graph
    d = describe(case.semantics)
    cols = r.columns
    succ = g.successors(x).tolist()
    if not all(cols[VALUE].given[y] or _inf(cols, y) for y in succ) or not _claims(cols, x):
        return None
    if not d.has_order:  # the mex equations
        if _inf(cols, x):
            return None
        want = mex(int(cols[VALUE].data[y]) for y in succ if not _inf(cols, y))
        got = int(cols[VALUE].data[x])
        return None if got == want else d.rule(g, x, want)
    sys = OrderSystem.for_graph(g)
    idx, bad = sys.to_index(np.where(cols[VALUE].given, cols[VALUE].data, 0))
    if bad[x]:
        return f"{d.value_shape} is expected, and the value set of this graph lacks it"
    want_idx = int(sys.apply(idx)[x])
    if want_idx == int(idx[x]):
        return None
    return d.rule(g, x, d.show(sys.levels[want_idx]))


def _claims(cols: Mapping[str, Column], x: int) -> bool:
    return bool(cols[VALUE].given[x]) or _inf(cols, x)


def _inf(cols: Mapping[str, Column], x: int) -> bool:
    inf = cols.get(LOOPY)
    return inf is not None and bool(inf.given[x])


# ---------------------------------------------------------------------- the judgment
def _about(c: CheckResult, name: str) -> bool:
    """Does check ``c`` judge the result named ``name``? What the check that made it says it
    judged (``CheckResult.judged``), never the words of its name or detail."""
    return name in c.judged


def judge_claims(
    report: CaseReport, answers: Answers, options: Options | None = None
) -> CaseReport:
    """The report with one more check, ``answers FILE``: what the checks say of the claims."""
    t0 = time.perf_counter()
    r = report.results.get(CLAIMS)
    about = [c for c in report.checks if _about(c, CLAIMS)]
    refuted = [c for c in about if c.verdict is Verdict.REFUTED]
    name = f"answers {answers.file}"
    claimed_n = int(answers.given.sum())
    what = f"{claimed_n} of {report.case.graph.n} positions claimed"
    if r is None:
        check = CheckResult(name, Verdict.UNKNOWN, f"{what}; nothing judged them")
    elif refuted:
        check = _refuted(report, answers, r, about, refuted, name, what, options)
    elif about and all(c.verdict is Verdict.CONFIRMED for c in about):
        how = f"{len(about)} checks confirm them against the rules"
        if options is not None and options.linear:
            ours = sorted(n for n in report.results if n != CLAIMS)
            how = (
                f"{len(about)} linear checks confirm them: every local rule, the same values "
                f"as {', '.join(ours) or 'no solver'} (the least fixpoint), "
                "remoteness and moves; no Z3 (--linear)"
            )
        check = CheckResult(
            name,
            Verdict.CONFIRMED,
            f"{what}: right; {how}",
            data={"checks": [c.name for c in about], "claimed": claimed_n},
        )
    else:
        open_ = [c.name for c in about if c.verdict is not Verdict.CONFIRMED] or ["none ran"]
        check = CheckResult(
            name, Verdict.UNKNOWN, f"{what}: undecided ({', '.join(open_)})", data={"open": open_}
        )
    check = replace(check, seconds=time.perf_counter() - t0, check=CLAIMS, proves=frozenset())
    checks = [check, *report.checks]
    return replace(report, checks=tuple(checks), verdict=decide(checks))


def _refuted(
    report: CaseReport,
    answers: Answers,
    r: SolverResult,
    about: list[CheckResult],
    refuted: list[CheckResult],
    name: str,
    what: str,
    options: Options | None,
) -> CheckResult:
    """The refutation of the claims, at one node, in words."""
    case = report.case
    g = case.graph
    cols = r.columns
    every_fault = rule_faults(g, r).tolist()
    faults = [x for x in every_fault if answers.given[x]]
    off = np.zeros(g.n, dtype=np.bool_)
    if report.solution is not None:
        off = answers.given & ~_same_value(cols, report.solution.columns)
    first = min(refuted, key=lambda c: c.check in _COMPARISONS)
    # a wrong claim breaks its own rule (its predecessors' may break for reading it); a wrong
    # claim that keeps its own rule is circular: a well-foundedness check names it
    own = [y for y in faults if off[y]]
    named = [c for c in refuted if c.check not in _COMPARISONS]
    circular = next((y for c in named if (y := _node_of(case, c)) is not None and off[y]), None)
    x: int | None
    rule: str | None
    alternative = None if faults else _another_solution(report, about, refuted, None, options)
    if alternative is not None:
        x, rule = alternative
    elif own:
        x, rule = own[0], rule_fault(case, r, own[0])
    elif circular is not None or (off.any() and faults):
        x = circular if circular is not None else int(np.flatnonzero(off)[0])
        why = next((c for c in named if _node_of(case, c) == x), first)
        rule = f"{why.name}: {why.detail}"
        if faults:
            rule += f"; and {g.name(faults[0])!r} breaks its rule: {rule_fault(case, r, faults[0])}"
    elif off.any() and (read := _read_by_unclaimed(g, answers, every_fault, off)) is not None:
        # the claims keep their own rules but not the rule of an unclaimed position that reads
        # them (its value is ours): name the claim, not the position the file does not claim
        x, y = read
        rule = (
            f"{_ours_is(report, x)}; its own rule holds with the values it reads, but "
            f"{g.name(y)!r} (not claimed), which reads it, then breaks its rule: "
            f"{rule_fault(case, r, y)}"
        )
    elif (y := _remoteness_off(r, report.solution)) is not None and not faults:
        # the values are right and a remoteness is not: name that node, not a predecessor
        # whose move now looks wrong for reading it
        x, ours = y, report.solution.columns[REMOTENESS].data[y]  # type: ignore[union-attr]
        rule = (
            f"its remoteness is {int(ours)} plies by the rules (as our solvers compute it); "
            f"{first.name}: {first.detail}"
        )
    else:
        x = faults[0] if faults else _node_of(case, first)
        rule = rule_fault(case, r, x) if x is not None else None
        if x is not None and not answers.given[x] and off.any():
            # a check names a position the file does not claim (its value is ours): name the
            # first claim that is not the answer instead
            y, x = x, int(np.flatnonzero(off)[0])
            rule = f"{_ours_is(report, x)}; {first.name} (at {g.name(y)!r}): {first.detail}"
    witness: dict[str, Any] = {"rule": rule or f"{first.name}: {first.detail}", "check": first.name}
    rule = witness["rule"]
    head = f"{what}: wrong"
    if x is not None:
        d = describe(case.semantics)
        witness |= {
            "node": g.name(x),
            "claimed": d.show_node(cols, x),
            "successors": {
                g.name(int(y)): _shown(d.show_node(cols, int(y))) for y in g.successors(x)
            },
        }
        ours_only = [g.name(int(y)) for y in g.successors(x) if not _claimed(answers, int(y))]
        if ours_only:  # successors the file does not claim: their values are ours
            witness["not_claimed"] = ours_only
        for col in _answer_columns():
            entry = _entry(case, cols, col, x)
            if entry is not None:
                witness[col] = entry
        if REMOTENESS in cols:
            rem = cols[REMOTENESS]
            witness["successors_remoteness"] = {
                g.name(int(y)): rem.at(int(y)) for y in g.successors(x)
            }
        succ = (
            ", ".join(
                f"{k}={v}" + (" (ours)" if k in ours_only and v != "not claimed" else "")
                for k, v in witness["successors"].items()
            )
            or "none"
        )
        more = "".join(f", {c} {witness[c]}" for c in _answer_columns() if c in witness)
        head += (
            f" at {g.name(x)!r}: claimed {d.in_words(witness['claimed'])}{more}"
            f" (successors: {succ}); {rule}"
        )
    else:
        head += f": {rule}"
    return CheckResult(
        name,
        Verdict.REFUTED,
        head,
        witness=witness,
        data={"refuted_by": [c.name for c in refuted], "faults": len(faults)},
    )


def _claimed(answers: Answers, x: int) -> bool:
    return bool(answers.given[x])


def _read_by_unclaimed(
    g: Any, answers: Answers, faults: list[int], off: NDArray[np.bool_]
) -> tuple[int, int] | None:
    """(a claim that is not the answer, an unclaimed position reading it whose rule breaks):
    the first unclaimed faulty position with such a successor."""
    for y in faults:
        if answers.given[y]:
            continue
        for z in g.successors(y).tolist():
            if off[z]:
                return int(z), int(y)
    return None


def _ours_is(report: CaseReport, x: int) -> str:
    """``x``'s value by the rules, as our solvers compute it, in words."""
    ours = report.solution
    if ours is None or not ours.covered[x]:
        return "not the answer of the rules"
    shown = ours.description.show_node(ours.columns, x)
    return f"its value by the rules is {shown} (as our solvers compute it)"


def _remoteness_off(r: SolverResult, ours: Solution | None) -> int | None:
    """The first node whose claimed remoteness differs from ours (both given)."""
    mine = r.columns.get(REMOTENESS)
    theirs = ours.columns.get(REMOTENESS) if ours is not None else None
    if mine is None or theirs is None:
        return None
    both = mine.given & theirs.given
    off = np.flatnonzero(both & (np.asarray(mine.data) != np.asarray(theirs.data)))
    return int(off[0]) if len(off) else None


def _shown(v: Any) -> Any:
    """A claimed value for the witness (``not claimed`` where there is none)."""
    return "not claimed" if v is None else v


def _node_of(case: Case, c: CheckResult) -> int | None:
    node = (c.witness or {}).get("node")
    if isinstance(node, str) and case.graph.has_node(node):
        return case.graph.id_of(node)
    return None


_COMPARISONS = frozenset({AGREE, EXPECT})
"""The pipeline's own comparisons (solvers with each other, with ``expect``): they follow from a
wrong claim, they do not locate it."""
_EQUATIONS_CHECK = "smt-equations"
"""The check that proves an order system's equations hold (``has_order``)."""
_MEX_CHECK = "grundy-z3-mex"
"""The check that proves the mex equations hold (its results that vouch for values)."""


def _another_solution(
    report: CaseReport,
    about: list[CheckResult],
    refuted: list[CheckResult],
    x: int | None,
    options: Options | None,
) -> tuple[int | None, str] | None:
    """The claims satisfy the local equations (Z3 confirmed them) but are not the answer: for
    ``minimax`` not Kars' score (with the node's interval over all solutions and the value
    closest to the draw), for the others not well-founded (a circular labelling)."""
    case = report.case
    d = describe(case.semantics)
    if d.kars_score:
        return _not_kars(report, about, refuted, x, options)
    check, equations = _EQUATIONS_CHECK if d.has_order else _MEX_CHECK, d.equations_words
    if not _equations_hold(about, check):
        return None
    ours, r = report.solution, report.results[CLAIMS]
    if ours is None:
        return None
    off = np.flatnonzero(r.columns[VALUE].given & ~_same_value(r.columns, ours.columns))
    if len(off) == 0:
        return None
    why = next((c for c in refuted if c.check not in _COMPARISONS), refuted[0])
    return int(off[0]), (
        f"another solution of {equations}: every local rule holds, but it is not the answer "
        f"of the rules ({len(off)} node(s) differ): {why.name}: {why.detail}"
    )


def _not_kars(
    report: CaseReport,
    about: list[CheckResult],
    refuted: list[CheckResult],
    x: int | None,
    options: Options | None,
) -> tuple[int | None, str] | None:
    """``minimax``: the claims satisfy (T+MM) (smt-equations confirmed) but are not Kars'
    score: where they differ, the node's interval over all solutions and the draw-closest value."""
    case = report.case
    if not _equations_hold(about, "smt-equations"):
        return None
    agreed = {*_COMPARISONS, "smt-kars-least"}
    if any(c.check not in agreed for c in refuted):
        return None
    from verifier.equations.system import OrderSystem

    sys = OrderSystem.minimax(case.graph)
    r = report.results[CLAIMS]
    val = r.columns[VALUE]
    idx, _ = sys.to_index(np.where(val.given, val.data, 0))
    if options is not None and options.linear:
        return _not_kars_linear(report, sys, idx, val.given)
    from verifier.smt.uniqueness import intervals

    iv = intervals(sys, options or Options())
    if iv.verdict is not Verdict.CONFIRMED:
        return x, "another solution of (T+MM), not Kars' score (the intervals are not proved)"
    off = np.flatnonzero(val.given & (idx != iv.kars))
    if len(off) == 0:
        return None
    y = int(off[0])
    lo, hi, k = (float(sys.levels[a[y]]) for a in (iv.lo, iv.hi, iv.kars))
    return y, (
        f"another solution of (T+MM), not Kars' score: every equation holds, but over all "
        f"solutions this node ranges over [{_num(lo)}, {_num(hi)}] and Kars' score, the value "
        f"closest to the draw, is {_num(k)} ({len(off)} node(s) differ)"
    )


def _not_kars_linear(
    report: CaseReport, sys: Any, idx: NDArray[np.int64], given: NDArray[np.bool_]
) -> tuple[int | None, str] | None:
    """``--linear``: where the claims keep (T+MM) but are not the score our solver computed
    (Kars'), without the intervals (they take Z3)."""
    ours = report.solution
    if ours is None:
        return None
    k_idx, _ = sys.to_index(np.where(ours.covered, ours.columns[VALUE].data, 0))
    off = np.flatnonzero(given & ours.covered & (idx != k_idx))
    if len(off) == 0:
        return None
    y = int(off[0])
    k = float(sys.levels[k_idx[y]])
    return y, (
        f"another solution of (T+MM), not Kars' score: every equation holds, but Kars' score, "
        f"the value closest to the draw, is {_num(k)} ({len(off)} node(s) differ; the interval "
        "over all solutions takes Z3: verify without --linear)"
    )


def _equations_hold(about: list[CheckResult], check: str) -> bool:
    """Do the claims keep every local equation: Z3's ``check`` or, with ``--linear``, the
    direct evaluation of ``rules``, confirmed and none refuted?"""
    eq = [c for c in about if (c.check == check and VALUE in (c.proves or ())) or c.check == RULES]
    return bool(eq) and all(c.verdict is Verdict.CONFIRMED for c in eq)


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


# ---------------------------------------------------------------------- diff
@dataclass(frozen=True)
class DiffRow:
    """One node where two tables differ."""

    node: str
    column: str
    left: Any
    right: Any


def diff_tables(
    case: Case, ca: Mapping[str, Column], cb: Mapping[str, Column]
) -> tuple[list[DiffRow], int]:
    """Node by node, where both tables give a value: the entries (value, remoteness, move) that
    differ (remoteness and moves where both give one); and how many nodes only one covers."""
    g = case.graph
    d = describe(case.semantics)
    out: list[DiffRow] = []
    one_sided = 0
    for x in range(g.n):
        va, vb = d.show_node(ca, x), d.show_node(cb, x)
        if va is None or vb is None:
            one_sided += (va is None) != (vb is None)
            continue
        if va != vb:
            out.append(DiffRow(g.name(x), VALUE, va, vb))
        for col in _answer_columns():
            ea, eb = _entry(case, ca, col, x), _entry(case, cb, col, x)
            if ea is not None and eb is not None and ea != eb:
                out.append(DiffRow(g.name(x), col, ea, eb))
    return out, one_sided


def _answer_columns() -> list[str]:
    """The registered answer columns (remoteness, move, ...), in registration order."""
    return [spec.name for spec in answer_columns()]


def _entry(case: Case, cols: Mapping[str, Column], col: str, x: int) -> Any:
    """Node ``x``'s entry of answer column ``col`` as answer files write it (a position by its
    name, a count as an integer), ``None`` where it has none."""
    c = cols.get(col)
    if c is None or not c.given[x]:
        return None
    codec = column_spec(col).codec
    return case.graph.name(int(c.data[x])) if codec and codec.entry == "node" else int(c.data[x])
