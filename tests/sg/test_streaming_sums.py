"""Sums too large to build: the XOR rule checked by streaming over the product (no graph)."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from verifier.checks.sums import sums_check
from verifier.errors import NotApplicable
from verifier.games.nim import nim_heaps
from verifier.model import Case, Expect, GameGraph, Semantics, SolverResult, SumSpec, Verdict
from verifier.model.report import CaseVerdict
from verifier.model.results import CheckResult
from verifier.pipeline import run_case
from verifier.registry import CheckContext, Options, solvers_for
from verifier.solvers.grundy import grundy_values
from verifier.solvers.sums import MAX_PRODUCT, component, product_size, stream_sum

HEAPS = (40, 50, 60)
"""41 * 51 * 61 = 127,551 product positions, above MAX_PRODUCT."""


def solve_all(case: Case) -> dict[str, SolverResult]:
    """Every registered solver's answer for ``case`` (those that apply)."""
    out: dict[str, SolverResult] = {}
    for spec in solvers_for(case.graph.semantics):
        with contextlib.suppress(NotApplicable):
            out[spec.name] = spec.fn(case, Options())
    return out


def nim_case(heaps: tuple[int, ...], top: int) -> Case:
    """Nim heaps 0..top with one declared sum of ``heaps``."""
    return Case(nim_heaps(top).graph, "nim-streamed", sums=(SumSpec("big", heaps),))


def by_name(results: list[CheckResult], part: str) -> list[CheckResult]:
    """The results whose name contains ``part``."""
    return [r for r in results if part in r.name]


def test_stream_nim_values_by_hand() -> None:
    g = nim_heaps(60).graph
    values = grundy_values(g).tolist()
    parts = [component(g, h, values) for h in HEAPS]
    assert product_size(parts) == 41 * 51 * 61 > MAX_PRODUCT
    res = stream_sum(parts)
    assert res.failure is None and res.positions == 127_551
    assert res.value == 40 ^ 50 ^ 60 == 38
    # a tiny chunk and the fallback without tables give the same answer
    small = stream_sum([component(g, h, values) for h in (3, 4, 5)], cells=7)
    assert small.failure is None and small.value == 3 ^ 4 ^ 5


def test_stream_refutes_a_wrong_value_naming_the_position() -> None:
    g = nim_heaps(60).graph
    values = grundy_values(g).tolist()
    values[17] = 16
    res = stream_sum([component(g, h, values) for h in HEAPS])
    assert res.failure is not None
    state = [g.name(x) for x in res.failure.state]
    assert "17" in state or "16" in state  # the wrong value or a position moving to it
    assert res.failure.mex != res.failure.xor


def test_pipeline_verifies_a_sum_too_large_to_build() -> None:
    case = replace(nim_case(HEAPS, 60), expect=Expect(sums={"big": 38}))
    report = run_case(case)
    assert report.verdict is CaseVerdict.VERIFIED, [
        (c.name, c.verdict, c.detail) for c in report.checks if c.verdict is not Verdict.CONFIRMED
    ]
    streamed = by_name(report.checks, "streamed")
    assert [c.verdict for c in streamed] == [Verdict.CONFIRMED]
    assert "127551 positions" in streamed[0].name
    solvers = by_name(report.checks, "every solver's component values give it")
    assert solvers[0].verdict is Verdict.CONFIRMED and "streamed" in solvers[0].detail


def test_corruption_in_every_solver_is_refuted() -> None:
    case = nim_case(HEAPS, 60)
    g: GameGraph = case.graph
    bad = g.id_of("50")

    def corrupt(r: SolverResult) -> SolverResult:
        out = r.values.copy()
        out[bad] = 51
        loopy = None if r.loopy is None else {k: v for k, v in r.loopy.items() if k != bad}
        return replace(r, values=out, loopy=loopy)

    results = {k: corrupt(r) for k, r in solve_all(case).items()}
    checks = sums_check(CheckContext(case, results, Options()))
    own = by_name(checks, "XOR rule = mex on the product, streamed")
    assert own[0].verdict is Verdict.CONFIRMED
    theirs = by_name(checks, "solver values satisfy mex on the product, streamed")
    assert theirs and all(c.verdict is Verdict.REFUTED for c in theirs)
    w = theirs[0].witness
    assert w is not None and w["sum"] == "big" and w["xor"] != w["mex"]
    assert w["node"].startswith("(") and len(w["components"]) == 3
    assert w["solvers"]
    summed = by_name(checks, "every solver's component values give it")[0]
    assert summed.verdict is Verdict.REFUTED
    assert summed.witness is not None and summed.witness["expected"] == "38"
    assert summed.witness["by_the_rule"] == str(40 ^ 51 ^ 60)


def test_cyclic_component_above_the_limit_names_the_limit() -> None:
    succ = {str(i): [str((i + 1) % 400), str((i + 7) % 400)] for i in range(400)}
    g = GameGraph.from_successors(succ, semantics=Semantics.IMPARTIAL)
    case = Case(g, "cyclic", sums=(SumSpec("loop", (0, 1)),))
    checks = sums_check(CheckContext(case, solve_all(case), Options()))
    unknown = by_name(checks, "XOR rule = product game")
    assert unknown and unknown[0].verdict is Verdict.UNKNOWN
    assert "MAX_PRODUCT" in unknown[0].detail and "cycle" in unknown[0].detail


def test_stream_a_million_positions() -> None:
    g = nim_heaps(100).graph
    values = grundy_values(g).tolist()
    parts = [component(g, h, values) for h in (99, 100, 100)]
    res = stream_sum(parts)
    assert res.failure is None and res.positions == 100 * 101 * 101
    assert res.value == 99 ^ 100 ^ 100 == 99
